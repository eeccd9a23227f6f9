/**
 * The status of an auto-workflow reply: exactly one status tag and at most one comment. Markers
 * inside file blocks (read as the reply parser reads them) are file content and do not count. Pure:
 * no I/O.
 * @module
 */
import { replyProse, scanBlocks } from "../../reply/blocks.ts";

const STATUSES = ["task-success", "changes-requested", "changes-attempted"] as const;

export type Status = typeof STATUSES[number];

function statusTag(status: Status): string {
  return `@@@@${status}@@@@`;
}

const COMMENT_OPEN = "%%%%comment%%%%";
const COMMENT_CLOSE = "%%%%end%%%%";

/** What a reply says, or why it says nothing usable. */
export type StatusReply =
  | {
    readonly ok: true;
    readonly status: Status;
    /** The comment without its surrounding blank lines, when there is one. */
    readonly comment: string | undefined;
    readonly fileBlocks: number;
  }
  | { readonly ok: false; readonly reason: string };

/** The reply with its file blocks' lines emptied (read as the reply parser does), and their count. */
function outsideFileBlocks(text: string): { text: string; fileBlocks: number } {
  const { lines, items } = scanBlocks(text);
  const kept = [...lines];
  let fileBlocks = 0;
  for (const item of items) {
    if (item.kind !== "block") continue;
    fileBlocks++;
    for (let line = item.line; line <= item.lastLine; line++) kept[line - 1] = "";
  }
  return { text: kept.join("\n"), fileBlocks };
}

/** Drops the blank lines at either end, and the white space around a one-line text. */
function withoutBlankEdges(text: string): string {
  const lines = text.split("\n");
  while (lines.length > 0 && lines[0].trim() === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1].trim() === "") lines.pop();
  return lines.length === 1 ? lines[0].trim() : lines.map((line) => line.trimEnd()).join("\n");
}

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

/**
 * Reads the status and comment of a reply. Never throws: no tag, several tags, several comments or
 * an unbalanced comment give `{ ok: false, reason }`.
 */
export function parseStatusReply(reply: string): StatusReply {
  const { text, fileBlocks } = outsideFileBlocks(reply);

  const found = STATUSES.flatMap((status) =>
    Array.from({ length: count(text, statusTag(status)) }, () => status)
  );
  const refuse = (reason: string) => ({ ok: false, reason }) as const;
  if (found.length === 0) {
    const tags = STATUSES.map(statusTag).join(", ");
    return refuse(`the reply has no status tag: it must hold exactly one of ${tags}`);
  }
  if (found.length > 1) {
    const tags = found.map(statusTag).join(", ");
    return refuse(`the reply has ${found.length} status tags (${tags}); it must hold exactly one`);
  }

  const opens = count(text, COMMENT_OPEN);
  const closes = count(text, COMMENT_CLOSE);
  if (opens > 1) return refuse(`the reply has ${opens} comment sections; at most one is allowed`);
  let comment: string | undefined;
  if (opens === 1 || closes > 0) {
    const start = text.indexOf(COMMENT_OPEN);
    const end = text.indexOf(COMMENT_CLOSE, start + COMMENT_OPEN.length);
    if (start < 0 || end < 0 || closes !== 1 || text.indexOf(COMMENT_CLOSE) < start) {
      return refuse(
        `the reply's comment is malformed: it must be one ${COMMENT_OPEN} followed ` +
          `later by one ${COMMENT_CLOSE}`,
      );
    }
    comment = withoutBlankEdges(text.slice(start + COMMENT_OPEN.length, end));
  }
  return { ok: true, status: found[0], comment, fileBlocks };
}

/**
 * The reply's prose (`replyProse`) without status tags and comment, which the workflow tells in its
 * own words when the task ends. Never throws.
 */
export function proseWithoutStatus(reply: string): string[] {
  let text = replyProse(reply).join("\n");
  const start = text.indexOf(COMMENT_OPEN);
  const end = start < 0 ? -1 : text.indexOf(COMMENT_CLOSE, start + COMMENT_OPEN.length);
  if (end >= 0) text = text.slice(0, start) + text.slice(end + COMMENT_CLOSE.length);
  for (const status of STATUSES) text = text.replaceAll(statusTag(status), "");
  const lines: string[] = [];
  for (const line of text.split("\n").map((line) => line.trimEnd())) {
    if (line === "" && (lines.length === 0 || lines.at(-1) === "")) continue;
    lines.push(line);
  }
  while (lines.at(-1) === "") lines.pop();
  return lines;
}
