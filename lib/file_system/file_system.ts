/**
 * The file-system calls the shared file jobs make (the folder check, the
 * atomic write), as an interface a caller can replace: the applier injects
 * faults through it in its tests. {@link denoFileSystem} is the real one.
 *
 * @module
 */

import { readBounded } from "./bounded_read.ts";
import { READ_LIMITS } from "./read_limits.ts";

/** What `lstat` reports about a path, as far as the file jobs need it. */
export interface EntryInfo {
  /** A regular file. */
  readonly isFile: boolean;
  /** A folder (false for a link to a folder). */
  readonly isDirectory: boolean;
  /** A symbolic link (`lstat` does not follow it). */
  readonly isSymlink: boolean;
  /** The mode bits, file type included, or null where the platform has none (Windows). */
  readonly mode: number | null;
}

/**
 * The file-system calls of the file jobs. Paths are absolute, or relative to
 * the current directory. Every method rejects with the platform's error (for
 * example `Deno.errors.NotFound`) when the call fails. The mutating calls are
 * `writeNewFile`, `rename`, `remove` and `mkdir`.
 */
export interface FileSystem {
  /** Describes `path` without following a final symbolic link; rejects with `NotFound` if absent. */
  lstat(path: string): Promise<EntryInfo>;
  /**
   * Returns the whole content of the regular file at `path` (a final
   * symbolic link is not followed), at most `READ_LIMITS.replacedFile`
   * bytes; rejects with `NotFound` if absent, and with a `FileReadError`
   * for anything but a regular file, or a larger one.
   */
  readFile(path: string): Promise<Uint8Array>;
  /**
   * Creates the file `path`, which must not exist yet (rejects with
   * `AlreadyExists` otherwise), writes `data` to it and, when `mode` is
   * given, sets exactly those permission bits.
   */
  writeNewFile(path: string, data: Uint8Array, mode?: number): Promise<void>;
  /** Renames `from` to `to`, atomically replacing a file at `to`. */
  rename(from: string, to: string): Promise<void>;
  /** Removes a file or an empty folder (never recursively). */
  remove(path: string): Promise<void>;
  /** Creates one folder whose parent exists (never recursively). */
  mkdir(path: string): Promise<void>;
}

/** The {@link FileSystem} on Deno's own file APIs; needs read and write permission. */
export const denoFileSystem: FileSystem = {
  lstat: (path) => Deno.lstat(path),
  readFile: async (path) => {
    const data = await readBounded(path, { limit: READ_LIMITS.replacedFile, followSymlink: false });
    if (data === undefined) throw new Deno.errors.NotFound(`${path} does not exist`);
    return data;
  },
  writeNewFile: (path, data, mode) =>
    Deno.writeFile(
      path,
      data,
      mode === undefined ? { createNew: true } : { createNew: true, mode },
    ),
  rename: (from, to) => Deno.rename(from, to),
  remove: (path) => Deno.remove(path),
  mkdir: (path) => Deno.mkdir(path),
};

/** `relative` (`/`-separated, `""` for the root itself) joined to `root`. Never throws. */
export function under(root: string, relative: string): string {
  if (relative === "") return root;
  if (root === "") return relative;
  return root.endsWith("/") ? `${root}${relative}` : `${root}/${relative}`;
}
