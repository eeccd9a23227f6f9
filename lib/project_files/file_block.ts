/**
 * The `--- path ---` block a project file takes in a prompt: the line
 * `--- path ---`, then the file's text, ending with a newline. The context
 * builder's codebase and summary and an auto-workflow task's codebase are
 * made of these blocks; what a block shows for a file that was read, withheld
 * or refused is decided here, once, for both workflows. Pure: no I/O.
 *
 * @module
 */

import type { ReadOutcome } from "./read_file.ts";

/**
 * A full file: `--- path ---`, then `text`, ending with a newline (one is
 * added when `text` does not end with one; an empty file has none).
 * `path` must be one the walk lists or the guard accepted: those hold no
 * line break, so no file can forge a block. Never throws.
 */
export function fileBlock(path: string, text: string): string {
  return `--- ${path} ---\n${text}${text === "" || text.endsWith("\n") ? "" : "\n"}`;
}

/**
 * The block a prompt shows for one file read with `readProjectFile`:
 * - read: its {@link fileBlock};
 * - withheld (larger than `MAX_FILE_BYTES`, or binary): a block that holds a
 *   one-line note saying why instead of the content, so the model knows the
 *   file is there, e.g. `--- logo.png ---` then
 *   `(its content is not shown: it is a binary file (it holds NUL bytes))`;
 * - refused by the guard, missing, or unreadable: `undefined`; the path must
 *   not appear in the prompt (tell the user `outcome.reason` instead).
 *
 * Never throws.
 */
export function blockOf(outcome: ReadOutcome): string | undefined {
  if (outcome.ok) return fileBlock(outcome.path, outcome.text);
  if (!outcome.withheld) return undefined;
  return fileBlock(outcome.path, `(its content is not shown: it ${outcome.reason})`);
}
