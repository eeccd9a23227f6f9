/**
 * The consistency report's text: the five section headings alone on their lines in the prompt's
 * exact spelling (so a program can split it), however the model decorated them, and prose wrapped
 * to 80 columns.
 * @module
 */
import { HEADER_MARK, isBlockHeader, itemAt } from "../../reply/blocks.ts";

/** The five section headings, in the order and the spelling of the system prompt. */
export const REPORT_HEADINGS = [
  "User Specification Self Consistency",
  "Implementation Consistency with User Specification",
  "Errors and Mistakes within the User Specification",
  "Errors and Mistakes within the Implementation",
  "Suggestions and Other Important Commentary",
] as const;

/** One of the five section headings. */
export type ReportHeading = typeof REPORT_HEADINGS[number];

const REPORT_WIDTH = 80;

/** Decoration a heading line may start with: markdown heading marks, emphasis, numbering. */
const LEADING_DECORATION = new RegExp(
  "^(?:" + [
    "#{1,6}\\s*",
    "\\*\\*",
    "__",
    "[*_](?=\\S)",
    "section\\s+\\d{1,2}\\s*[:.)-]?\\s*",
    "part\\s+\\d{1,2}\\s*[:.)-]?\\s*",
    "\\(?(?:\\d{1,2}|[ivx]{1,4}|[a-e])[.)]\\s*",
    "\\d{1,2}\\s*[:\u2013\u2014-]\\s*",
  ].join("|") + ")",
  "i",
);

/** Each heading as a pattern: its words separated by spaces, hyphens or underscores, any case. */
const HEADING_PATTERNS = REPORT_HEADINGS.map((heading) => ({
  heading,
  pattern: new RegExp(`^${heading.split(" ").join("[\\s_-]+")}`, "i"),
}));

/** What may follow a heading alone on its line: closing emphasis, a colon, closing `#`s. */
const HEADING_END = /^\s*(?:\*\*|__|\*|_)?\s*:?\s*(?:\*\*|__|\*|_)?\s*#*\s*$/;

/** A heading followed by text on the same line: a separator, then the text. */
const HEADING_WITH_TEXT =
  /^\s*(?:(?:\*\*|__)\s*:?|:\s*(?:\*\*|__)?|\s+[\u2013\u2014-]\s+|\s*\.\s*(?:\*\*|__))\s*(\S.*)$/;

/**
 * The heading `line` starts with, however decorated (`## 1. Self-Consistency:`), and any text after
 * it on the line; prose merely starting with a heading's words, without a separator, is none.
 */
function matchHeading(line: string): { heading: ReportHeading; rest: string } | undefined {
  let text = line.trim();
  for (let guard = 0; guard < 8; guard++) {
    const decoration = LEADING_DECORATION.exec(text);
    if (decoration === null || decoration[0] === "") break;
    text = text.slice(decoration[0].length);
  }
  for (const { heading, pattern } of HEADING_PATTERNS) {
    const found = pattern.exec(text);
    if (found === null) continue;
    const after = text.slice(found[0].length);
    if (HEADING_END.test(after)) return { heading, rest: "" };
    const withText = HEADING_WITH_TEXT.exec(after);
    if (withText !== null) return { heading, rest: withText[1].trim() };
  }
  return undefined;
}

/** A formatted report, and the headings the reply lacks. */
export interface FormattedReport {
  readonly text: string;
  readonly missing: readonly ReportHeading[];
}

const FENCE = /^\s*(```|~~~)/;
const UNDERLINE = /^\s*(?:=+|-+)\s*$/;
const RULE = /^\s*(?:[-*_]\s*){3,}$/;
const LIST_ITEM = /^(\s*)([-+*]|\d{1,3}[.)])\s+(\S.*)$/;

/**
 * Formats a reply as the report: each heading alone on its line between blank lines, prose
 * paragraphs and list items re-wrapped, one blank line at most in a row. Code blocks, `^^^` blocks,
 * indented lines, tables, quotes, other headings and rules stay as they are. Idempotent; never
 * throws.
 */
export function formatReport(reply: string): FormattedReport {
  const lines = reply.replace(/\r\n?/g, "\n").split("\n").map((line) => line.trimEnd());
  const out: string[] = [];
  const seen = new Set<ReportHeading>();
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) out.push(...wrap(paragraph.join(" "), "", ""));
    paragraph = [];
  };
  const blank = () => {
    flush();
    if (out.length > 0 && out[out.length - 1] !== "") out.push("");
  };

  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];

    const block = itemAt(lines, index);
    if (block?.kind === "block") {
      // A file block, read exactly as the reply parser reads it, is kept as it is.
      flush();
      out.push(...lines.slice(index, block.lastLine));
      index = block.lastLine - 1;
      continue;
    }

    const fenceMark = FENCE.exec(line)?.[1];
    if (fenceMark !== undefined) {
      flush();
      out.push(line);
      while (index + 1 < lines.length) {
        index++;
        out.push(lines[index]);
        if (FENCE.exec(lines[index])?.[1] === fenceMark) break;
      }
      continue;
    }

    if (line.trim() === "") {
      blank();
      continue;
    }

    const heading = matchHeading(line);
    if (heading !== undefined) {
      blank();
      out.push(heading.heading, "");
      seen.add(heading.heading);
      if (heading.rest !== "") paragraph.push(heading.rest);
      else if (index + 1 < lines.length && UNDERLINE.test(lines[index + 1])) index++;
      continue;
    }

    const item = LIST_ITEM.exec(line);
    if (item !== null && !RULE.test(line)) {
      flush();
      const [, indent, marker, first] = item;
      const words = [first];
      while (index + 1 < lines.length && continuesItem(lines[index + 1], indent.length)) {
        index++;
        words.push(lines[index].trim());
      }
      const prefix = `${indent}${marker} `;
      if (prefix.length > REPORT_WIDTH / 2) out.push(line);
      else out.push(...wrap(words.join(" "), prefix, " ".repeat(prefix.length)));
      continue;
    }

    if (standsAlone(line)) {
      flush();
      out.push(line);
      continue;
    }
    paragraph.push(line.trim());
  }
  flush();
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  while (out.length > 0 && out[0] === "") out.shift();
  return {
    text: out.length === 0 ? "" : `${out.join("\n")}\n`,
    missing: REPORT_HEADINGS.filter((heading) => !seen.has(heading)),
  };
}

/** A line kept as it is, never joined into a paragraph. */
function standsAlone(line: string): boolean {
  return /^\s/.test(line) || /^[|>#]/.test(line) || RULE.test(line) ||
    line.startsWith(HEADER_MARK);
}

/** Whether `line` continues the list item above it (indented deeper, or a lazy continuation). */
function continuesItem(line: string, itemIndent: number): boolean {
  if (line.trim() === "" || LIST_ITEM.test(line) || FENCE.test(line)) return false;
  if (matchHeading(line) !== undefined || RULE.test(line) || isBlockHeader(line)) return false;
  const indent = line.length - line.trimStart().length;
  if (indent > itemIndent) return true;
  return indent === 0 && !standsAlone(line);
}

/** Whether a wrapped line must not start a line of prose: it would read as structure. */
function misreads(line: string): boolean {
  return LIST_ITEM.test(line) || standsAlone(line) || FENCE.test(line) ||
    matchHeading(line) !== undefined;
}

/**
 * Wraps `text` to {@link REPORT_WIDTH} code points, the first line starting with `first`, the
 * others with `rest`; a line that would read as structure takes the last word of the line above
 * with it.
 */
function wrap(text: string, first: string, rest: string): string[] {
  const words = text.split(/\s+/).filter((word) => word !== "").flatMap((word) =>
    cut(word, REPORT_WIDTH - Math.max(width(first), width(rest)))
  );
  const lines: string[][] = [];
  let current: string[] = [];
  let used = 0;
  for (const word of words) {
    const room = REPORT_WIDTH - width(lines.length === 0 ? first : rest);
    const needed = current.length === 0 ? width(word) : used + 1 + width(word);
    if (current.length > 0 && needed > room) {
      lines.push(current);
      current = [word];
      used = width(word);
    } else {
      current.push(word);
      used = needed;
    }
  }
  if (current.length > 0) lines.push(current);

  // Move a word down where a line would misread; bounded, as each move shifts a word.
  for (let pass = 0; pass < words.length; pass++) {
    const bad = lines.findIndex((line, i) =>
      i > 0 && lines[i - 1].length > 1 && misreads(line.join(" "))
    );
    if (bad < 0) break;
    const moved = lines[bad - 1].pop()!;
    lines[bad].unshift(moved);
    for (let i = bad; i < lines.length; i++) {
      while (width(lines[i].join(" ")) > REPORT_WIDTH - width(rest) && lines[i].length > 1) {
        if (i + 1 === lines.length) lines.push([]);
        lines[i + 1].unshift(lines[i].pop()!);
      }
    }
  }
  return lines.map((line, i) => `${i === 0 ? first : rest}${line.join(" ")}`);
}

function cut(word: string, max: number): string[] {
  const points = [...word];
  if (points.length <= max) return [word];
  const pieces: string[] = [];
  for (let i = 0; i < points.length; i += max) pieces.push(points.slice(i, i + max).join(""));
  return pieces;
}

function width(text: string): number {
  return [...text].length;
}
