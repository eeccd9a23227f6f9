/**
 * The `^^^` file-block syntax of an LLM reply, in one place: `^^^path`, content lines verbatim,
 * then `^^^end` (or `^^^delete` right after the header), and the prose around the blocks.
 * @module
 */

/** What starts a header line. */
export const HEADER_MARK = "^^^";
const END_LINE = /^\^\^\^end\s*$/;
const DELETE_LINE = /^\^\^\^delete\s*$/;

/** One item of a reply (lines 1-based): a file block, a `^^^` with no name, or a stray marker. */
export type ReplyItem =
  | {
    readonly kind: "block";
    readonly line: number;
    readonly path: string;
    readonly deletes: boolean;
    readonly content: string;
    readonly closed: boolean;
    readonly lastLine: number;
  }
  | { readonly kind: "empty-header"; readonly line: number }
  | { readonly kind: "stray"; readonly line: number; readonly text: string };

/** Whether `line` opens a file block: `^^^` and a file name on the same line. Never throws. */
export function isBlockHeader(line: string): boolean {
  return line.startsWith(HEADER_MARK) && !END_LINE.test(line) && !DELETE_LINE.test(line) &&
    line.slice(HEADER_MARK.length).trim() !== "";
}

/** The item that starts at `lines[index]` (0-based), or `undefined` for prose. Never throws. */
export function itemAt(lines: readonly string[], index: number): ReplyItem | undefined {
  const line = lines[index];
  const lineNumber = index + 1;
  if (line === undefined || !line.startsWith(HEADER_MARK)) return undefined; // prose, fences, blank lines
  if (END_LINE.test(line) || DELETE_LINE.test(line)) {
    return { kind: "stray", line: lineNumber, text: line.trimEnd() };
  }
  const path = line.slice(HEADER_MARK.length).trimEnd();
  if (path.trim() === "") return { kind: "empty-header", line: lineNumber };
  const block = { kind: "block", line: lineNumber, path } as const;
  const next = index + 1;
  if (next < lines.length && DELETE_LINE.test(lines[next])) {
    return { ...block, deletes: true, content: "", closed: true, lastLine: next + 1 };
  }
  let end = next;
  while (end < lines.length && !END_LINE.test(lines[end])) end++;
  const content = lines.slice(next, end).map((contentLine) => `${contentLine}\n`).join("");
  const closed = end < lines.length;
  return { ...block, deletes: false, content, closed, lastLine: closed ? end + 1 : end };
}

/** `reply` with each CRLF made LF: the text blocks are read from. Never throws. */
export function withLineFeeds(reply: string): string {
  return reply.includes("\r\n") ? reply.replaceAll("\r\n", "\n") : reply;
}

/** A reply's lines (CRLF made LF) and items, as {@link itemAt} reads them. Never throws. */
export function scanBlocks(reply: string): { lines: string[]; items: ReplyItem[] } {
  const lines = withLineFeeds(reply).split("\n");
  const items: ReplyItem[] = [];
  for (let index = 0; index < lines.length;) {
    const item = itemAt(lines, index);
    if (item !== undefined) items.push(item);
    index = item?.kind === "block" ? item.lastLine : index + 1;
  }
  return { lines, items };
}

/** `text` with each file block's content replaced by the line `note` returns. Never throws. */
export function outlineBlocks(
  text: string,
  note: (lines: number, characters: number) => string,
): string {
  const pieces = text.split(/(?<=\n)/); // the lines, each with its line end
  const out: string[] = [];
  let next = 0;
  for (const item of scanBlocks(text).items) {
    const end = item.kind === "block" && item.closed ? item.lastLine - 1 : pieces.length; // `^^^end`
    if (item.kind !== "block" || item.deletes || end <= item.line) continue;
    const content = pieces.slice(item.line, end);
    const characters = content.reduce((sum, piece) => sum + piece.length, 0);
    const newline = item.closed || text.endsWith("\n") ? "" : "\n";
    out.push(...pieces.slice(next, item.line), `${newline}${note(content.length, characters)}\n`);
    next = end;
  }
  return out.concat(pieces.slice(next)).join("");
}

// Models wrap blocks in markdown fences.
const FENCE = /^\s*(```+|~~~+)[\w.+-]*\s*$/;

/**
 * The lines of `text` outside every file block and marker line, without fence lines, blank
 * runs squeezed and ends trimmed (control characters kept: the console escapes them). Never throws.
 */
export function replyProse(text: string): string[] {
  const { lines, items } = scanBlocks(text);
  const prose: string[] = [];
  const add = (line: string) => {
    if (FENCE.test(line)) return;
    const trimmed = line.trimEnd();
    if (trimmed === "" && (prose.length === 0 || prose.at(-1) === "")) return;
    prose.push(trimmed);
  };
  let next = 0;
  for (const item of items) {
    for (; next < item.line - 1; next++) add(lines[next]);
    next = item.kind === "block" ? item.lastLine : item.line;
  }
  for (; next < lines.length; next++) add(lines[next]);
  while (prose.at(-1) === "") prose.pop();
  return prose;
}
