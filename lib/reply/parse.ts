/**
 * The reply parser: the file operations an LLM reply asks for (its syntax is in `blocks.ts`), or
 * why it cannot be applied. No I/O, no path checks (the path guard does them).
 * @module
 */
import { scanBlocks } from "./blocks.ts";
import type { FileOperation } from "./operations.ts";

/** One operation per path with warnings, or why the reply cannot be applied. */
export type ParseResult =
  | { readonly ok: true; readonly operations: FileOperation[]; readonly warnings: string[] }
  | { readonly ok: false; readonly reason: string };

type ParsedBlock = { operation: FileOperation; line: number };

/** Parses an LLM reply into the file operations it asks for. Never throws. */
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
      const reason = `line ${item.line}: "^^^" is not followed by a file name; ` +
        `a block must start with "^^^" and the file's path on the same line, e.g. "^^^src/main.rs"`;
      return { ok: false, reason };
    }
    const { line } = item;
    const { inner: path, names } = unwrapPath(item.path);
    if (names.length > 0) {
      warnings.push(
        `line ${line}: the path ${JSON.stringify(item.path)} is wrapped in ` +
          `${names.join(" and ")}; it was read as ${JSON.stringify(path)}`,
      );
    }
    if (!item.closed) {
      const reason = `the reply was probably truncated: the block for "${path}" ` +
        `(starting at line ${line}) has no closing "^^^end" line; ` +
        `nothing from this reply can be applied — ask the model for the complete reply again`;
      return { ok: false, reason };
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

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})([^\n]*)$/;

/** When `content` is one markdown fenced code block, first line to last: its inside and fences. */
function fencedContent(
  content: string,
): { inner: string; open: string; close: string } | undefined {
  const lines = content.split("\n"); // the last is empty
  const match = FENCE_OPEN.exec(lines[0]);
  if (match === null) return undefined;
  const [, marks, info] = match;
  if (marks[0] === "`" && info.includes("`")) return undefined;
  const closing = new RegExp(`^ {0,3}${marks[0] === "`" ? "`" : "~"}{${marks.length},}[ \\t]*$`);
  const close = lines.findIndex((line, index) => index > 0 && closing.test(line));
  if (close < 0 || close !== lines.length - 2) return undefined;
  const inner = lines.slice(1, close).map((line) => `${line}\n`).join("");
  return { inner, open: lines[0], close: lines[close] };
}

// Longest first.
const WRAPPERS = { "**": "**", "`": "backticks", '"': "double quotes", "'": "single quotes" };

/** `path` unwrapped of backticks, quotes and `**` (nested too), and their names. Never throws. */
export function unwrapPath(path: string): { inner: string; names: string[] } {
  const names: string[] = [];
  let inner = path;
  for (;;) {
    const wrapper = (Object.keys(WRAPPERS) as (keyof typeof WRAPPERS)[]).find((mark) =>
      inner.length > 2 * mark.length && inner.startsWith(mark) && inner.endsWith(mark)
    );
    if (wrapper === undefined) return { inner, names };
    names.push(WRAPPERS[wrapper]);
    inner = inner.slice(wrapper.length, -wrapper.length);
  }
}

// Keeps the last block of each path, where it stands, warning for each path with more.
function lastBlockPerPath(blocks: readonly ParsedBlock[], warnings: string[]): FileOperation[] {
  const byPath = Map.groupBy(blocks, (block) => block.operation.path);
  for (const [path, seen] of byPath) {
    if (seen.length < 2) continue;
    const lines = seen.map((block) => block.line);
    warnings.push(
      `"${path}" has ${seen.length} blocks (lines ${lines.join(", ")}); ` +
        `only the last one, at line ${lines.at(-1)}, is used`,
    );
  }
  return blocks.filter((block) => byPath.get(block.operation.path)!.at(-1) === block)
    .map((block) => block.operation);
}
