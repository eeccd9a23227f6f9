/**
 * Reads one project file for a prompt (the context builder's codebase and
 * summary, an auto-workflow task's codebase), only if the path guard lets it
 * be read (`guardRead`: no ignored file, no protected folder, no traversal,
 * no symbolic link anywhere along the path), only if it has one name (a hard
 * link's other name may be outside the project), and only if it is text of
 * a sensible size. What cannot be read is refused with a reason; nothing the
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

/**
 * The largest file pasted into a prompt: 1 MiB (`READ_LIMITS.projectFile`),
 * about a quarter of a million tokens. A larger file is withheld: its
 * content is never read (see {@link ReadOutcome}).
 */
const MAX_FILE_BYTES: number = READ_LIMITS.projectFile.bytes;

/**
 * A file read, or why it was not. `withheld` tells the two kinds of
 * failure apart: `true` when the guard let the file be read and it is a
 * regular file, but its content cannot go into a prompt (larger than
 * {@link MAX_FILE_BYTES}, or binary), so a prompt may name it with a note;
 * `false` when the path itself was refused or could not be read (the guard
 * refused it, it is missing, it changed meanwhile), so a prompt must not
 * name it.
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
 * Reads the file `path` (relative to `root`, as an LLM or the summary names
 * it) as UTF-8 text, after `guardRead` accepts it, with `rules` shared
 * across calls, with the bounded read (`lib/file_system/bounded_read.ts`).
 * Refused, without reading: what the guard refuses, a file with more than
 * one hard link (another name of it may be outside the project), a file
 * that changed into something else between the check and the read;
 * withheld, without reading its content: a file larger than
 * {@link MAX_FILE_BYTES}; withheld after reading: a binary file (one holding
 * a NUL byte). Invalid UTF-8 is decoded with U+FFFD replacement characters.
 * The returned `path` has no leading `./` (except for a path the guard
 * refused, which is returned as given).
 *
 * Never throws for a file that cannot be read (the reason says why).
 *
 * @throws {CodeCommitError} only when the ignore rules cannot be read.
 */
export async function readProjectFile(
  root: string,
  path: string,
  rules: IgnoreRules,
): Promise<ReadOutcome> {
  const refused = await guardRead(root, path, rules);
  if (refused !== undefined) return refusedNow(path, refused);
  const normalized = normalizeProjectPath(path);
  const read = await readProjectBytes(root, normalized);
  if (read.ok) return { ok: true, path: normalized, text: new TextDecoder().decode(read.bytes) };
  return outcomeOf(normalized, read.problem);
}

/** The outcome of a read of `path` that `problem` kept out. Never throws. */
function outcomeOf(path: string, problem: ProjectFileProblem): ReadOutcome {
  switch (problem.kind) {
    case "missing":
      return refusedNow(path, "no longer exists");
    case "binary":
      return withheld(path, "is a binary file (it holds NUL bytes)");
    case "too-large":
      return withheld(
        path,
        problem.size === undefined
          ? `grew past ${formatBytes(MAX_FILE_BYTES)} while it was read`
          : `is ${formatBytes(problem.size)}, more than the ${
            formatBytes(MAX_FILE_BYTES)
          } a file may have in a prompt`,
      );
    case "hard-link":
      return refusedNow(
        path,
        "has more than one hard link (another name of the same file may be outside the " +
          "project), so it is not sent to the model",
      );
    case "symbolic-link":
    case "folder":
    case "special":
      return refusedNow(path, "is no longer a regular file");
    case "changed":
      return refusedNow(path, "changed while it was being read");
    case "open-timeout":
      return refusedNow(
        path,
        "could not be read: it did not open in time (a fifo put in its place?)",
      );
    case "unreadable":
      return refusedNow(path, `could not be read: ${problem.message}`);
  }
}

function refusedNow(path: string, reason: string): ReadOutcome {
  return { ok: false, path, reason, withheld: false };
}

function withheld(path: string, reason: string): ReadOutcome {
  return { ok: false, path, reason, withheld: true };
}
