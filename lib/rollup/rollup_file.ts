/**
 * Why an entry is left out of the rollup, and the one read of a file for it, as strict UTF-8.
 * @module
 */

import { READ_LIMITS } from "../file_system/read_limits.ts";
import { readProjectBytes } from "../project_files/project_bytes.ts";
import { formatBytes } from "../text/sizes.ts";
import { decodeStrictly } from "../text/utf8.ts";

/** The largest file a rollup holds: the context builder's limit for a file in a prompt (1 MiB). */
const OVER = `over ${formatBytes(READ_LIMITS.projectFile.bytes)}`;

/** Each kind of entry left out of the rollup, and how its summary names one and several. */
export const LEFT_OUT_NAMES = {
  "binary": ["binary file", "binary files"],
  "not-utf8": ["file not in UTF-8", "files not in UTF-8"],
  "too-large": [`file ${OVER}`, `files ${OVER}`],
  "symbolic-link": ["symbolic link", "symbolic links"],
  "hard-link": ["file with more than one hard link", "files with more than one hard link"],
  "special": ["fifo, socket or device", "fifos, sockets or devices"],
  "protected": [
    "tracked file in a folder no prompt may read",
    "tracked files in folders no prompt may read",
  ],
  "refused-name": ["name the path guard refuses", "names the path guard refuses"],
  "ignored-by-case": ["entry ignored once case is folded", "entries ignored once case is folded"],
  "unreadable": ["unreadable entry", "unreadable entries"],
} as const satisfies Record<string, readonly [string, string]>;

/** Why a file git would list is not in the rollup. */
export type LeftOutKind = keyof typeof LEFT_OUT_NAMES;

// Each open waits on a thread, the reads themselves do not.
const READ_CONCURRENCY = 16;

/** Reads `paths` for the rollup, in order: each file's text, or why it stays out. Never throws. */
export async function readRollupFiles(
  root: string,
  paths: readonly string[],
): Promise<(string | { readonly kind: LeftOutKind | "missing" })[]> {
  const readOne = async (path: string) => {
    const read = await readProjectBytes(root, path);
    if (read.ok) return decodeStrictly(read.bytes) ?? { kind: "not-utf8" as const };
    const { kind } = read.problem;
    if (kind === "folder") return { kind: "missing" as const }; // git lists it as no file
    return { kind: kind === "changed" || kind === "open-timeout" ? "unreadable" as const : kind };
  };
  const outcomes = [];
  for (let start = 0; start < paths.length; start += READ_CONCURRENCY) {
    outcomes.push(...await Promise.all(paths.slice(start, start + READ_CONCURRENCY).map(readOne)));
  }
  return outcomes;
}
