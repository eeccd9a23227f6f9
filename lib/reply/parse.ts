/**
 * The reply parser: turns the text of an LLM reply into the file
 * operations it asks for, or into the reason it cannot be applied. It does no
 * I/O and checks no path (the path guard does that afterwards).
 *
 * The syntax:
 *
 * ```text
 * ^^^src/main.rs        a header: "^^^" then the path on the same line
 * fn main() {}          content lines, kept verbatim
 * ^^^end                closes the block
 *
 * ^^^src/old.rs
 * ^^^delete             right after a header: delete the file
 *
 * ^^^src/empty.rs
 * ^^^end                right after a header: create or truncate an empty file
 * ```
 *
 * Further rules:
 * - CRLF line ends are normalised to LF before anything else.
 * - Trailing white space is trimmed from a header's path and allowed after
 *   `^^^end` and `^^^delete`; leading white space is kept (the guard refuses it).
 * - Inside a block every line is content until a line that is `^^^end` (plus
 *   optional trailing white space): a line such as `^^^other.ts` or an
 *   indented `  ^^^end` is content.
 * - Text outside blocks (prose, markdown code fences) is ignored; a stray
 *   `^^^end` or `^^^delete` outside a block is ignored with a warning.
 * - Each content line ends with a newline, so a file's content ends with a
 *   newline unless the block has no content line at all.
 * - A path that has several blocks gets only its last one (with a warning),
 *   placed where that last block stands in the reply.
 * - A header whose path is wrapped the way models write paths in prose — in
 *   backticks, quotes or `**` (`` ^^^`src/a.ts` ``, `^^^**src/a.ts**`) —
 *   means the bare path, with a warning; the guard then checks the bare path.
 * - A block whose content opens with a markdown fence line (```` ``` ````,
 *   ```` ```js ````, `~~~`) and whose first closing fence is its last line
 *   (the way models wrap a whole file) has both fence lines dropped, with a
 *   warning naming the file; a fence anywhere else is content.
 * - A block cut off by the end of the reply is an error: the reply was
 *   probably truncated and none of it may be applied.
 *
 * @module
 */

import { scanBlocks } from "./blocks.ts";
import type { FileOperation } from "./operations.ts";

/** What {@link parseReply} returns: the operations and warnings, or why the reply is unusable. */
export type ParseResult =
  | {
    readonly ok: true;
    /** One operation per path, in the order of each path's last block. */
    readonly operations: FileOperation[];
    /** Things that were ignored or overridden, one sentence each, naming the line or path. */
    readonly warnings: string[];
  }
  | {
    readonly ok: false;
    /** Why the reply cannot be applied, naming the line or file at fault. */
    readonly reason: string;
  };

/** An operation together with the line its header is on. */
interface ParsedBlock {
  readonly operation: FileOperation;
  readonly line: number;
}

/**
 * Parses the text of an LLM reply into the file operations it asks for.
 *
 * Never throws: a reply that cannot be applied (a header without a file name,
 * a block with no closing `^^^end`) gives `{ ok: false, reason }`, whose
 * message names the line or file at fault. A reply without any block is fine:
 * `{ ok: true, operations: [] }`.
 */
export function parseReply(text: string): ParseResult {
  const blocks: ParsedBlock[] = [];
  const warnings: string[] = [];
  for (const item of scanBlocks(text).items) {
    if (item.kind === "stray") {
      warnings.push(
        `line ${item.line}: "${item.text}" outside any file block was ignored ` +
          `(a block starts with "^^^" and the file's path)`,
      );
      continue;
    }
    if (item.kind === "empty-header") {
      return {
        ok: false,
        reason: `line ${item.line}: "^^^" is not followed by a file name; ` +
          `a block must start with "^^^" and the file's path on the same line, ` +
          `e.g. "^^^src/main.rs"`,
      };
    }
    const { line } = item;
    const path = unwrapPath(item.path);
    if (path !== item.path) {
      warnings.push(
        `line ${line}: the path ${JSON.stringify(item.path)} is wrapped in ${
          describeWrapping(item.path)
        }; it was read as ${JSON.stringify(path)}`,
      );
    }
    if (!item.closed) {
      return {
        ok: false,
        reason: `the reply was probably truncated: the block for "${path}" ` +
          `(starting at line ${line}) has no closing "^^^end" line; ` +
          `nothing from this reply can be applied — ask the model for the complete reply again`,
      };
    }
    let content = item.content;
    const fence = item.deletes ? undefined : fencedContent(content);
    if (fence !== undefined) {
      content = fence.inner;
      warnings.push(
        `line ${line}: the content of "${path}" was wrapped in a markdown fence ` +
          `(${JSON.stringify(fence.open)} … ${JSON.stringify(fence.close)}); ` +
          `the two fence lines were dropped, they are not part of the file`,
      );
    }
    blocks.push({
      operation: item.deletes ? { kind: "delete", path } : { kind: "write", path, content },
      line,
    });
  }

  return { ok: true, operations: lastBlockPerPath(blocks, warnings), warnings };
}

/** A markdown fence's opening line: three or more backticks or tildes, then an info string. */
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})([^\n]*)$/;

/** A block's content without the markdown fence around all of it, and the two fence lines. */
export interface FencedContent {
  /** The content between the fences (each line still ending with a newline). */
  readonly inner: string;
  /** The opening fence line, e.g. "```javascript". */
  readonly open: string;
  /** The closing fence line. */
  readonly close: string;
}

/**
 * When `content` (lines each ending with a newline) is one markdown fenced
 * code block from its first line to its last (the opening fence first, its
 * closing fence last and nowhere before), that block's inside and the two
 * fence lines; otherwise `undefined`. A closing fence is the opening one's
 * character, at least as many times, and nothing else but white space (a
 * backtick fence's info string has no backtick). Never throws.
 */
export function fencedContent(content: string): FencedContent | undefined {
  const firstEnd = content.indexOf("\n");
  if (firstEnd < 0) return undefined;
  const open = content.slice(0, firstEnd);
  const match = FENCE_OPEN.exec(open);
  if (match === null) return undefined;
  const [, marks, info] = match;
  if (marks[0] === "`" && info.includes("`")) return undefined;
  const closing = new RegExp(`^ {0,3}${marks[0] === "`" ? "`" : "~"}{${marks.length},}[ \\t]*$`);
  let start = firstEnd + 1;
  while (start < content.length) {
    const end = content.indexOf("\n", start);
    const line = content.slice(start, end < 0 ? content.length : end);
    if (closing.test(line)) {
      // The first closing fence ends the block: it must be the content's last line.
      const next = end < 0 ? content.length : end + 1;
      if (next !== content.length) return undefined;
      return { inner: content.slice(firstEnd + 1, start), open, close: line };
    }
    if (end < 0) break;
    start = end + 1;
  }
  return undefined;
}

/** Marks a model wraps a path in, each opening and closing it: longest first. */
const WRAPPERS = ["**", "`", '"', "'"] as const;

/**
 * The path inside the wrapping models put around paths in prose (backticks,
 * quotes, `**`, also nested: ``**`a`**``), or the path itself when it is not
 * wrapped (or nothing would be left inside). Never throws.
 */
export function unwrapPath(path: string): string {
  let inner = path;
  for (;;) {
    const wrapper = WRAPPERS.find((mark) =>
      inner.length > 2 * mark.length && inner.startsWith(mark) && inner.endsWith(mark)
    );
    if (wrapper === undefined) return inner;
    inner = inner.slice(wrapper.length, -wrapper.length);
  }
}

/** `backticks`, `** and backticks`: what `path` was wrapped in, outermost first. */
function describeWrapping(path: string): string {
  const names: Record<(typeof WRAPPERS)[number], string> = {
    "**": "**",
    "`": "backticks",
    '"': "double quotes",
    "'": "single quotes",
  };
  const found: string[] = [];
  let inner = path;
  while (unwrapPath(inner) !== inner) {
    const wrapper = WRAPPERS.find((mark) => inner.startsWith(mark) && inner.endsWith(mark))!;
    found.push(names[wrapper]);
    inner = inner.slice(wrapper.length, -wrapper.length);
  }
  return found.join(" and ");
}

/**
 * Keeps only the last block of each path, at the position of that last block,
 * and adds a warning for every path that had more than one.
 */
function lastBlockPerPath(blocks: readonly ParsedBlock[], warnings: string[]): FileOperation[] {
  const linesByPath = new Map<string, number[]>();
  for (const block of blocks) {
    const seen = linesByPath.get(block.operation.path);
    if (seen === undefined) linesByPath.set(block.operation.path, [block.line]);
    else seen.push(block.line);
  }

  const operations: FileOperation[] = [];
  for (const block of blocks) {
    const seen = linesByPath.get(block.operation.path) ?? [];
    if (seen[seen.length - 1] === block.line) operations.push(block.operation);
  }

  for (const [path, seen] of linesByPath) {
    if (seen.length < 2) continue;
    warnings.push(
      `"${path}" has ${seen.length} blocks (lines ${seen.join(", ")}); ` +
        `only the last one, at line ${seen[seen.length - 1]}, is used`,
    );
  }
  return operations;
}
