/**
 * The one read of a file for the rollup, decoded as strict UTF-8.
 * @module
 */

import { readProjectBytes } from "../project_files/project_bytes.ts";

/** Why a file git would list is not in the rollup. */
export type LeftOutKind =
  | "binary"
  | "not-utf8"
  | "too-large"
  | "symbolic-link"
  | "hard-link"
  | "special"
  | "protected"
  | "refused-name"
  | "ignored-by-case"
  | "unreadable";

/** What reading one file gave: its text, or why it is left out (`missing`: nothing to say). */
export type RollupFileOutcome = string | { readonly kind: LeftOutKind | "missing" };

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Reads one file for the rollup: its text, or why it is left out. Never throws. */
async function readRollupFile(root: string, path: string): Promise<RollupFileOutcome> {
  const read = await readProjectBytes(root, path);
  if (!read.ok) {
    const { kind } = read.problem;
    if (kind === "folder") return { kind: "missing" }; // git lists it as no file
    return { kind: kind === "changed" || kind === "open-timeout" ? "unreadable" : kind };
  }
  try {
    return decoder.decode(read.bytes);
  } catch {
    return { kind: "not-utf8" };
  }
}

/** How many files are read at once: each open waits on a thread, the reads themselves do not. */
const READ_CONCURRENCY = 16;

/** Reads `paths` (relative to `root`) for the rollup, a few at a time, in order. Never throws. */
export async function readRollupFiles(
  root: string,
  paths: readonly string[],
): Promise<RollupFileOutcome[]> {
  const outcomes: RollupFileOutcome[] = [];
  for (let start = 0; start < paths.length; start += READ_CONCURRENCY) {
    const batch = paths.slice(start, start + READ_CONCURRENCY);
    outcomes.push(...await Promise.all(batch.map((path) => readRollupFile(root, path))));
  }
  return outcomes;
}
