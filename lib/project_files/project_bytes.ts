/**
 * The bytes of one project file, read the one way every project file that
 * goes to a model is read (the context builder's codebase and summary, an
 * auto-workflow task's codebase, the rollup): with the bounded read, never
 * through a final symbolic link, only with one name, at most 1 MiB, never
 * a binary file; and the one classification of what kept a file out, which
 * the prompts and the rollup each put in their own words.
 *
 * @module
 */

import { messageOf } from "../errors/errors.ts";
import { FileReadError, readBounded } from "../file_system/bounded_read.ts";
import { READ_LIMITS } from "../file_system/read_limits.ts";
import { under } from "../file_system/file_system.ts";

/**
 * Why a project file's bytes could not be used, as the bounded read and the
 * NUL check classify it: the one classification the prompts and the rollup
 * share (each names the kinds its own way).
 */
export type ProjectFileProblem =
  | {
    /** No longer there (`missing`), or no longer a regular file (`symbolic-link`, `folder`, `special`). */
    readonly kind: "missing" | "symbolic-link" | "folder" | "special";
  }
  | {
    /**
     * More than one hard link (`hard-link`), something else opened than
     * the file checked (`changed`), an open that did not finish in time
     * (`open-timeout`), or a NUL byte in it (`binary`).
     */
    readonly kind: "hard-link" | "changed" | "open-timeout" | "binary";
  }
  | {
    /** Larger than the limit. */
    readonly kind: "too-large";
    /** The size it reported; undefined when it grew past the limit as it was read. */
    readonly size?: number;
  }
  | {
    /** The operating system refused the read. */
    readonly kind: "unreadable";
    /** Why, from the operating system. */
    readonly message: string;
  };

/**
 * Reads the project file `path` (relative to `root`, normalized, already
 * allowed by the caller, whose check must also have found every folder on
 * the way a real folder: this read refuses a link only as the last part of
 * the path) with the bounded read the prompts and the rollup use: never
 * through a final symbolic link, only with one name, at most
 * `READ_LIMITS.projectFile` (1 MiB). Its bytes, or the
 * {@link ProjectFileProblem} that kept them out (a file holding a NUL byte
 * is `binary`). Never throws.
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

/** The problem a bounded read's `error` stands for. Never throws. */
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
