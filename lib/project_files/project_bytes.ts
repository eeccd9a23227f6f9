/**
 * The bytes of one project file, read the one way every file that goes to a model is: bounded,
 * never through a final link, one name only, at most 1 MiB, never binary.
 *
 * @module
 */

import { messageOf } from "../errors/errors.ts";
import { FileReadError, readBounded } from "../file_system/bounded_read.ts";
import { READ_LIMITS } from "../file_system/read_limits.ts";
import { under } from "../file_system/file_system.ts";

/**
 * Why a project file's bytes could not be used: the one classification the prompts and the
 * rollup share. `too-large` has no `size` when the file grew past the limit as it was read.
 */
export type ProjectFileProblem =
  | { readonly kind: "missing" | "symbolic-link" | "folder" | "special" }
  | { readonly kind: "hard-link" | "changed" | "open-timeout" | "binary" }
  | { readonly kind: "too-large"; readonly size?: number }
  | { readonly kind: "unreadable"; readonly message: string };

/**
 * Reads the project file `path` (allowed by the caller, whose check found every folder on the way
 * real: only the last part is refused as a link) with the bounded read, at most 1 MiB. Its bytes,
 * or the problem that kept them out (a NUL byte makes it `binary`). Never throws.
 */
export async function readProjectBytes(
  root: string,
  path: string,
): Promise<
  | { readonly ok: true; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly problem: ProjectFileProblem }
> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readBounded(under(root, path), {
      limit: READ_LIMITS.projectFile,
      followSymlink: false,
      refuseHardLinks: true,
      name: path,
    });
  } catch (error) {
    return { ok: false, problem: problemOf(error) };
  }
  if (bytes === undefined) return { ok: false, problem: { kind: "missing" } };
  if (bytes.includes(0)) return { ok: false, problem: { kind: "binary" } };
  return { ok: true, bytes };
}

/** The problem a bounded read's `error` stands for. */
function problemOf(error: unknown): ProjectFileProblem {
  if (!(error instanceof FileReadError)) return { kind: "unreadable", message: messageOf(error) };
  switch (error.problem) {
    case "symlink":
      return { kind: "symbolic-link" };
    case "too-large":
      return { kind: "too-large", size: error.size };
    case "unreadable":
      return { kind: "unreadable", message: messageOf(error.cause ?? error) };
    default:
      return { kind: error.problem };
  }
}
