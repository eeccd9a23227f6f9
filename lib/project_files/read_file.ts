/**
 * Reads one project file for a prompt, only if the guard lets it be read, it has one name (a hard
 * link's other name may be outside the project) and it is text of a sensible size. Nothing the
 * guard refuses is ever opened.
 *
 * @module
 */

import { READ_LIMITS } from "../file_system/read_limits.ts";
import { guardRead } from "../guard/guard.ts";
import type { IgnoreRules } from "../guard/ignore_rules.ts";
import { normalizeProjectPath } from "../guard/path_syntax.ts";
import { formatBytes } from "../text/sizes.ts";
import { type ProjectFileProblem, readProjectBytes } from "./project_bytes.ts";

/** The largest file pasted into a prompt (about 250k tokens); a larger one is withheld unread. */
const MAX_FILE_BYTES: number = READ_LIMITS.projectFile.bytes;

/**
 * A file read, or why not: `withheld` when it may be named with a note (too large, binary), not
 * when the path was refused or could not be read (a prompt must not name it).
 */
export type ReadOutcome =
  | { readonly ok: true; readonly path: string; readonly text: string }
  | {
    readonly ok: false;
    readonly path: string;
    readonly reason: string;
    readonly withheld: boolean;
  };

/**
 * Reads `path` as UTF-8 text (invalid bytes as U+FFFD) once `guardRead` accepts it; refused or
 * withheld otherwise, the reason saying why. The `path` returned is normalized, unless refused.
 *
 * @throws {CodeCommitError} only when the ignore rules cannot be read.
 */
export async function readProjectFile(
  root: string,
  path: string,
  rules: IgnoreRules,
): Promise<ReadOutcome> {
  const refused = await guardRead(root, path, rules);
  if (refused !== undefined) return { ok: false, path, reason: refused, withheld: false };
  const normalized = normalizeProjectPath(path);
  const read = await readProjectBytes(root, normalized);
  if (read.ok) return { ok: true, path: normalized, text: new TextDecoder().decode(read.bytes) };
  const withheld = read.problem.kind === "binary" || read.problem.kind === "too-large";
  return { ok: false, path: normalized, reason: reasonOf(read.problem), withheld };
}

/** Why `problem` kept a file out of a prompt. */
function reasonOf(problem: ProjectFileProblem): string {
  switch (problem.kind) {
    case "missing":
      return "no longer exists";
    case "binary":
      return "is a binary file (it holds NUL bytes)";
    case "too-large":
      return problem.size === undefined
        ? `grew past ${formatBytes(MAX_FILE_BYTES)} while it was read`
        : `is ${formatBytes(problem.size)}, more than the ${
          formatBytes(MAX_FILE_BYTES)
        } a file may have in a prompt`;
    case "hard-link":
      return "has more than one hard link (another name of the same file may be outside the " +
        "project), so it is not sent to the model";
    case "symbolic-link":
    case "folder":
    case "special":
      return "is no longer a regular file";
    case "changed":
      return "changed while it was being read";
    case "open-timeout":
      return "could not be read: it did not open in time (a fifo put in its place?)";
    case "unreadable":
      return `could not be read: ${problem.message}`;
  }
}
