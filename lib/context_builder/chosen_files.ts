/**
 * The codebase the context builder hands to the next agent: the files the
 * preprocessing LLM asked for, each read only if the path guard allows it,
 * as `--- path ---` blocks.
 *
 * @module
 */

import { CODECOMMIT_IGNORE_FILE, CodeCommitIgnore } from "../guard/codecommit_ignore.ts";
import type { IgnoreRules } from "../guard/ignore_rules.ts";
import { normalizeProjectPath } from "../guard/path_syntax.ts";
import { blockOf } from "../project_files/file_block.ts";
import { readProjectFile } from "../project_files/read_file.ts";

/** A requested path that was not read, and why. */
export interface DroppedPath {
  /** The path as the reply wrote it. */
  readonly path: string;
  /** Why it was not read. */
  readonly reason: string;
}

/** The codebase made of the files the model chose, and the requests that were dropped. */
export interface ChosenFiles {
  /** The `--- path ---` blocks, in the order the reply listed the paths. */
  readonly text: string;
  /** The paths included with their content (normalized: no leading `./`). */
  readonly included: readonly string[];
  /** The paths whose content was not provided: refused, missing, or withheld (binary, too large). */
  readonly dropped: readonly DroppedPath[];
}

/**
 * Reads each of `paths` (relative to `root`) with `readProjectFile`, sharing
 * `rules`, and joins the files read into `--- path ---` blocks (`blockOf`).
 * A path the guard refuses (ignored, protected, traversal, link, missing,
 * ...) lands in `dropped` and is never named in the text. A binary or
 * oversized file lands in `dropped` too, and its block holds a one-line note
 * instead of its content. A path that names a file already included (`./a`
 * after `a`) is included once. A path `exclude` (the project's
 * `.codecommitignore`) matches is dropped without being read.
 *
 * @throws {CodeCommitError} only when the ignore rules cannot be read.
 */
export async function assembleChosenFiles(
  root: string,
  paths: readonly string[],
  rules: IgnoreRules,
  exclude: CodeCommitIgnore = CodeCommitIgnore.NONE,
): Promise<ChosenFiles> {
  const blocks: string[] = [];
  const included: string[] = [];
  const dropped: DroppedPath[] = [];
  const shown = new Set<string>();
  for (const path of paths) {
    if (exclude.excludes(normalizeProjectPath(path))) {
      dropped.push({ path, reason: `${CODECOMMIT_IGNORE_FILE} leaves it out of every prompt` });
      continue;
    }
    const outcome = await readProjectFile(root, path, rules);
    if (shown.has(outcome.path)) continue;
    if (outcome.ok) included.push(outcome.path);
    else dropped.push({ path, reason: outcome.reason });
    const block = blockOf(outcome);
    if (block === undefined) continue;
    shown.add(outcome.path);
    blocks.push(block);
  }
  return { text: blocks.join(""), included, dropped };
}
