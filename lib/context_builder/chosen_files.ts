/**
 * The codebase the context builder hands on: the chosen files the path guard allows.
 * @module
 */

import { CODECOMMIT_IGNORE_FILE, CodeCommitIgnore } from "../guard/codecommit_ignore.ts";
import type { IgnoreRules } from "../guard/ignore_rules.ts";
import { normalizeProjectPath } from "../guard/path_syntax.ts";
import { blockOf } from "../project_files/file_block.ts";
import { readProjectFile } from "../project_files/read_file.ts";

/**
 * Reads each of `paths` and joins the files read into `--- path ---` blocks (`text`, in the
 * list's order): `included` names them, `dropped` the requests not provided and why. A path the
 * guard refuses is never named in the text; a binary or oversized file's block is a one-line
 * note; a file is included once; a path `exclude` matches is dropped unread.
 * @throws {CodeCommitError} only when the ignore rules cannot be read.
 */
export async function assembleChosenFiles(
  root: string,
  paths: readonly string[],
  rules: IgnoreRules,
  exclude: CodeCommitIgnore = CodeCommitIgnore.NONE,
): Promise<{ text: string; included: string[]; dropped: { path: string; reason: string }[] }> {
  const blocks: string[] = [];
  const included: string[] = [];
  const dropped: { path: string; reason: string }[] = [];
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
