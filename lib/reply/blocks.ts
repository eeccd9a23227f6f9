/**
 * The `^^^` file-block syntax of an LLM reply, in one place: a header line
 * `^^^path`, content lines kept verbatim up to a line that is exactly
 * `^^^end` (trailing white space allowed), or `^^^delete` on the line right
 * after the header. The reply parser and the auto workflow's status reader
 * (which must not count a tag written inside a file) scan replies with
 * {@link scanBlocks}; the consistency report's formatter, which walks lines
 * itself, steps over a block with {@link itemAt} and keeps it as it is.
 * No other module restates these markers.
 *
 * @module
 */

/** What starts a header line. */
export const HEADER_MARK = "^^^";
const END_LINE = /^\^\^\^end\s*$/;
const DELETE_LINE = /^\^\^\^delete\s*$/;

/** One item of a reply, in line order (line numbers are 1-based). */
export type ReplyItem =
  | {
    /** A file block. */
    readonly kind: "block";
    /** The line of its header. */
    readonly line: number;
    /** The path as written (trailing white space trimmed). */
    readonly path: string;
    /** A `^^^delete` block. */
    readonly deletes: boolean;
    /** The content lines (none for a delete). */
    readonly content: readonly string[];
    /** False when the reply ended before the block's `^^^end` line. */
    readonly closed: boolean;
    /** The last line that belongs to the block. */
    readonly lastLine: number;
  }
  | {
    /** `^^^` with no file name: not a block. */
    readonly kind: "empty-header";
    /** Its line. */
    readonly line: number;
  }
  | {
    /** `^^^end` or `^^^delete` outside any block. */
    readonly kind: "stray";
    /** Its line. */
    readonly line: number;
    /** The line, trailing white space trimmed. */
    readonly text: string;
  };

/** A reply, scanned. */
export interface ReplyScan {
  /** The reply's lines, CRLF normalised to LF. */
  readonly lines: readonly string[];
  /** Its blocks and marker lines outside blocks, in line order. */
  readonly items: readonly ReplyItem[];
}

/**
 * Whether `line` opens a file block: `^^^` and a file name on the same line
 * (not `^^^end` nor `^^^delete`, which only close or follow a header).
 * Never throws.
 */
export function isBlockHeader(line: string): boolean {
  return line.startsWith(HEADER_MARK) && !END_LINE.test(line) && !DELETE_LINE.test(line) &&
    line.slice(HEADER_MARK.length).trim() !== "";
}

/**
 * The item that starts at `lines[index]` (0-based; lines already split, CRLF
 * or not, trailing white space or not), or `undefined` when that line is
 * prose. A block runs to its `^^^end` line, or is the header and its
 * `^^^delete` line, or runs to the last line when it is not closed. Lets a
 * reader that walks lines itself (the consistency report's formatter) step
 * over a block exactly as {@link scanBlocks} does. Never throws.
 */
export function itemAt(lines: readonly string[], index: number): ReplyItem | undefined {
  const line = lines[index];
  const lineNumber = index + 1;
  if (line === undefined || !line.startsWith(HEADER_MARK)) return undefined; // prose, fences, blank lines
  if (END_LINE.test(line) || DELETE_LINE.test(line)) {
    return { kind: "stray", line: lineNumber, text: line.trimEnd() };
  }
  const path = line.slice(HEADER_MARK.length).trimEnd();
  if (path.trim() === "") return { kind: "empty-header", line: lineNumber };
  let next = index + 1;
  if (next < lines.length && DELETE_LINE.test(lines[next])) {
    return {
      kind: "block",
      line: lineNumber,
      path,
      deletes: true,
      content: [],
      closed: true,
      lastLine: next + 1,
    };
  }
  const content: string[] = [];
  let closed = false;
  while (next < lines.length) {
    const contentLine = lines[next++];
    if (END_LINE.test(contentLine)) {
      closed = true;
      break;
    }
    content.push(contentLine);
  }
  return { kind: "block", line: lineNumber, path, deletes: false, content, closed, lastLine: next };
}

/** Scans a reply into its blocks and stray marker lines. Prose is not an item. Never throws. */
export function scanBlocks(text: string): ReplyScan {
  const lines = text.replaceAll("\r\n", "\n").split("\n");
  const items: ReplyItem[] = [];
  let index = 0;
  while (index < lines.length) {
    const item = itemAt(lines, index);
    if (item === undefined) {
      index++;
      continue;
    }
    items.push(item);
    index = item.kind === "block" ? item.lastLine : item.line;
  }
  return { lines, items };
}
