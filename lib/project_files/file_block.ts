/**
 * The `--- path ---` block a project file takes in a prompt, and what it shows for a file that was
 * read, withheld or refused: decided once for every workflow. Pure.
 *
 * @module
 */

import type { ReadOutcome } from "./read_file.ts";

/**
 * `--- path ---`, then `text`, ending with a newline (none for an empty file). `path` must be one
 * the walk lists or the guard accepted: those hold no line break, so no file forges a block.
 */
export function fileBlock(path: string, text: string): string {
  return `--- ${path} ---\n${text}${text === "" || text.endsWith("\n") ? "" : "\n"}`;
}

/**
 * The block for one file read with `readProjectFile`: its {@link fileBlock}; for a withheld file a
 * one-line note instead of the content; undefined for a refused one (its path must not appear).
 */
export function blockOf(outcome: ReadOutcome): string | undefined {
  if (outcome.ok) return fileBlock(outcome.path, outcome.text);
  if (!outcome.withheld) return undefined;
  return fileBlock(outcome.path, `(its content is not shown: it ${outcome.reason})`);
}
