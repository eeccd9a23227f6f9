/**
 * The `^^^` file-block syntax of an LLM reply, in one place: a header line
 * `^^^path`, content lines kept verbatim up to a line that is exactly
 * `^^^end` (trailing white space allowed), or `^^^delete` on the line right
 * after the header. Both the reply parser and the auto workflow's status
 * reader (which must not count a tag written inside a file) scan replies
 * with {@link scanBlocks}.
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

/** Scans a reply into its blocks and stray marker lines. Prose is not an item. Never throws. */
export function scanBlocks(text: string): ReplyScan {
  const lines = text.replaceAll("\r\n", "\n").split("\n");
  const items: ReplyItem[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index];
    const lineNumber = ++index;
    if (!line.startsWith(HEADER_MARK)) continue; // prose, fences, blank lines
    if (END_LINE.test(line) || DELETE_LINE.test(line)) {
      items.push({ kind: "stray", line: lineNumber, text: line.trimEnd() });
      continue;
    }
    const path = line.slice(HEADER_MARK.length).trimEnd();
    if (path.trim() === "") {
      items.push({ kind: "empty-header", line: lineNumber });
      continue;
    }
    if (index < lines.length && DELETE_LINE.test(lines[index])) {
      index++;
      items.push({
        kind: "block",
        line: lineNumber,
        path,
        deletes: true,
        content: [],
        closed: true,
        lastLine: index,
      });
      continue;
    }
    const content: string[] = [];
    let closed = false;
    while (index < lines.length) {
      const contentLine = lines[index++];
      if (END_LINE.test(contentLine)) {
        closed = true;
        break;
      }
      content.push(contentLine);
    }
    items.push({
      kind: "block",
      line: lineNumber,
      path,
      deletes: false,
      content,
      closed,
      lastLine: index,
    });
  }
  return { lines, items };
}
