/**
 * The codebase the context builder hands to the next agent: the files the
 * preprocessing LLM asked for, each read only if the path guard allows it,
 * as `--- path ---` blocks (seed 004).
 *
 * @module
 */

import type { IgnoreRules } from "../guard/ignore_rules.ts";
import { readProjectFile } from "./read_file.ts";
import { fileBlock } from "./summary.ts";

/** A requested path that was not read, and why. */
export interface DroppedPath {
  /** The path as the reply wrote it. */
  readonly path: string;
  /** Why it was not read. */
  readonly reason: string;
}

/** The codebase, and the requests that were dropped. */
export interface AssembledCodebase {
  /** The `--- path ---` blocks, in the order the reply listed the paths. */
  readonly text: string;
  /** The paths included (normalized: no leading `./`). */
  readonly included: readonly string[];
  /** The paths refused or missing, never read. */
  readonly dropped: readonly DroppedPath[];
}

/**
 * Reads each of `paths` (relative to `root`) with `readProjectFile`, sharing
 * `rules`, and joins the files read into `--- path ---` blocks. A path the
 * guard refuses (ignored, protected, traversal, link, missing, ...), a binary
 * or oversized file lands in `dropped` and is never pasted. A path that names
 * a file already included (`./a` after `a`) is included once.
 *
 * @throws {CodeCommitError} only when the ignore rules cannot be read.
 */
export async function assembleCodebase(
  root: string,
  paths: readonly string[],
  rules: IgnoreRules,
): Promise<AssembledCodebase> {
  const blocks: string[] = [];
  const included: string[] = [];
  const dropped: DroppedPath[] = [];
  for (const path of paths) {
    const outcome = await readProjectFile(root, path, rules);
    if (!outcome.ok) {
      dropped.push({ path, reason: outcome.reason });
      continue;
    }
    if (included.includes(outcome.path)) continue;
    included.push(outcome.path);
    blocks.push(fileBlock(outcome.path, outcome.text));
  }
  return { text: blocks.join(""), included, dropped };
}
