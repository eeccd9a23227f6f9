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
    /**
     * The content: every content line followed by a newline (`""` for a
     * delete, or a block with no content line).
     */
    readonly content: string;
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
  /** The reply, CRLF normalised to LF. */
  readonly text: string;
  /** Its lines (made when first asked for: a large reply has many). */
  readonly lines: readonly string[];
  /** Its blocks and marker lines outside blocks, in line order. */
  readonly items: readonly ReplyItem[];
  /**
   * Where each item stands in `text`, in the order of `items`: from the
   * start of its first line to just past its last line's newline (or the
   * end of the text).
   */
  readonly spans: readonly { readonly start: number; readonly end: number }[];
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
      content: "",
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
    content.push(`${contentLine}\n`);
  }
  return {
    kind: "block",
    line: lineNumber,
    path,
    deletes: false,
    content: content.join(""),
    closed,
    lastLine: next,
  };
}

/**
 * `reply` with each CRLF line end made a line feed: the text the blocks are
 * read from, every path and content of a block is a part of it. Never throws.
 */
export function withLineFeeds(reply: string): string {
  return reply.includes("\r\n") ? reply.replaceAll("\r\n", "\n") : reply;
}

/**
 * Scans a reply into its blocks and stray marker lines, exactly as
 * {@link itemAt} reads them line by line, without splitting the reply into
 * lines: only marker lines (`^^^` at the start of a line) are looked at,
 * found with `indexOf`, and a block's content is one slice of the reply (a
 * 20 MB reply scans in milliseconds). Prose is not an item. Never throws.
 */
export function scanBlocks(reply: string): ReplyScan {
  const text = withLineFeeds(reply);
  const items: ReplyItem[] = [];
  const spans: { start: number; end: number }[] = [];
  /** The end of the line that starts at `start`: its newline, or the end of the text. */
  const lineEnd = (start: number) => {
    const end = text.indexOf("\n", start);
    return end < 0 ? text.length : end;
  };
  /** The start of the next marker line at or after `from` (a line start), or -1. */
  const nextMarker = (from: number) => {
    if (text.startsWith(HEADER_MARK, from)) return from;
    const found = text.indexOf(NEWLINE_MARK, from);
    return found < 0 ? -1 : found + 1;
  };
  let position = 0; // the start of a line
  let line = 1; // its number
  for (;;) {
    const start = nextMarker(position);
    if (start < 0) break;
    line += newlines(text, position, start);
    const end = lineEnd(start);
    const marker = text.slice(start, end);
    if (END_LINE.test(marker) || DELETE_LINE.test(marker)) {
      items.push({ kind: "stray", line, text: marker.trimEnd() });
    } else if (marker.slice(HEADER_MARK.length).trim() === "") {
      items.push({ kind: "empty-header", line });
    } else {
      const path = marker.slice(HEADER_MARK.length).trimEnd();
      const block = scanBlock(text, path, line, end, nextMarker, lineEnd);
      items.push(block.item);
      spans.push({ start, end: block.end });
      if (block.end >= text.length) break;
      position = block.end;
      line = block.item.lastLine + 1;
      continue;
    }
    spans.push({ start, end: Math.min(end + 1, text.length) });
    if (end >= text.length) break;
    position = end + 1;
    line++;
  }
  let lines: string[] | undefined;
  return {
    text,
    get lines() {
      return lines ??= text.split("\n");
    },
    items,
    spans,
  };
}

/** A file block of a reply. */
type BlockItem = Extract<ReplyItem, { readonly kind: "block" }>;

/** `\n^^^`: where a marker line starts after another line. */
const NEWLINE_MARK = `\n${HEADER_MARK}`;

/** The newlines in `text` from `from` up to `to`. */
function newlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf("\n", from); at >= 0 && at < to; at = text.indexOf("\n", at + 1)) {
    count++;
  }
  return count;
}

/**
 * The block whose header (line `line`, path `path`) ends at `headerEnd`:
 * a delete, a block closed by its `^^^end` line, or one the text ends in.
 * `end` is where what follows it starts.
 */
function scanBlock(
  text: string,
  path: string,
  line: number,
  headerEnd: number,
  nextMarker: (from: number) => number,
  lineEnd: (start: number) => number,
): { item: BlockItem; end: number } {
  const block = { kind: "block", line, path } as const;
  if (headerEnd >= text.length) {
    // The header is the last line: a block with no line after it, not closed.
    return {
      item: { ...block, deletes: false, content: "", closed: false, lastLine: line },
      end: text.length,
    };
  }
  const contentStart = headerEnd + 1;
  const nextEnd = lineEnd(contentStart);
  if (DELETE_LINE.test(text.slice(contentStart, nextEnd))) {
    return {
      item: { ...block, deletes: true, content: "", closed: true, lastLine: line + 1 },
      end: Math.min(nextEnd + 1, text.length),
    };
  }
  // Every line up to the first `^^^end` line is content: only marker lines can end it.
  for (let candidate = nextMarker(contentStart); candidate >= 0;) {
    const candidateEnd = lineEnd(candidate);
    if (END_LINE.test(text.slice(candidate, candidateEnd))) {
      return {
        item: {
          ...block,
          deletes: false,
          content: text.slice(contentStart, candidate),
          closed: true,
          lastLine: line + 1 + newlines(text, contentStart, candidate),
        },
        end: Math.min(candidateEnd + 1, text.length),
      };
    }
    if (candidateEnd >= text.length) break;
    candidate = nextMarker(candidateEnd + 1);
  }
  // Not closed: the block runs to the last line.
  const rest = text.slice(contentStart);
  return {
    item: {
      ...block,
      deletes: false,
      content: `${rest}\n`,
      closed: false,
      lastLine: line + 1 + newlines(text, contentStart, text.length),
    },
    end: text.length,
  };
}

/**
 * `text` with the content of every file block replaced by the one line
 * `note(lines, characters)` returns: header lines, `^^^end` and `^^^delete`
 * lines and everything outside the blocks are kept as they are (line ends
 * too). For a log that must not hold a very large reply twice. Never throws.
 */
export function outlineBlocks(
  text: string,
  note: (lines: number, characters: number) => string,
): string {
  const out: string[] = [];
  let inside = false;
  let lines = 0;
  let characters = 0;
  let start = 0;
  let first = false;
  while (start < text.length) {
    const newline = text.indexOf("\n", start);
    const end = newline < 0 ? text.length : newline + 1;
    // Only a line that starts with `^` can open or close a block: the others of a block are
    // counted without making a string of each (a 20 MB reply has 300,000 of them).
    if (inside && text.charCodeAt(start) !== 0x5e /* ^ */) {
      lines++;
      characters += end - start;
      first = false;
      if (newline < 0) break;
      start = end;
      continue;
    }
    const line = text.slice(start, newline < 0 ? text.length : newline);
    if (!inside) {
      out.push(text.slice(start, end));
      if (isBlockHeader(line)) {
        inside = true;
        first = true;
        lines = 0;
        characters = 0;
      }
    } else if (END_LINE.test(line) || (first && DELETE_LINE.test(line))) {
      if (lines > 0) out.push(`${note(lines, characters)}\n`);
      out.push(text.slice(start, end));
      inside = false;
    } else {
      lines++;
      characters += end - start;
      first = false;
    }
    if (newline < 0) break;
    start = end;
  }
  if (inside && lines > 0) {
    out.push(`${text.endsWith("\n") ? "" : "\n"}${note(lines, characters)}\n`);
  }
  return out.join("");
}
