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
  /** The inode number, where the file system reports one (a real `lstat` does on Linux and macOS). */
  readonly ino?: number | null;
  /** The device the entry is on, where the file system reports it. */
  readonly dev?: number;
}

/**
 * Which file a new file turned out to be, from `fstat` of the descriptor
 * that created it: its device and inode.
 */
export interface FileIdentity {
  /** The device. */
  readonly dev: number;
  /** The inode number, or null where the platform has none. */
  readonly ino: number | null;
  /** The mode bits the file was created with, file type included; null where there are none. */
  readonly mode: number | null;
}

/**
 * Called once a new file exists, before any byte is written to it, with its
 * identity; `undefined` when Deno refuses to `fstat` it, which it does for a
 * file it finds outside the folders it may read (created through a symbolic
 * link that leads out of the project: Deno looks up where by the name, so
 * a folder swapped back and forth can hide it), or when `fstat` fails. It is
 * called for every file made, so the caller knows exactly which it made. If
 * it throws, nothing is written and the empty file stays for the caller to
 * remove.
 */
export type OnCreated = (identity: FileIdentity | undefined) => void | Promise<void>;

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
   * given, sets exactly those permission bits. With `onCreated`, the new
   * file's identity is handed to it before anything is written (see
   * {@link OnCreated}); what it throws, the call rejects with. `data` is
   * the caller's again once the call settles (an apply reuses the buffer
   * for its next file): keep no view of it.
   */
  writeNewFile(
    path: string,
    data: Uint8Array,
    mode?: number,
    onCreated?: OnCreated,
  ): Promise<void>;
  /** Renames `from` to `to`, atomically replacing a file at `to`. */
  rename(from: string, to: string): Promise<void>;
  /** Removes a file or an empty folder (never recursively). */
  remove(path: string): Promise<void>;
  /** Creates one folder whose parent exists (never recursively). */
  mkdir(path: string): Promise<void>;
  /**
   * The absolute path `path` leads to, every symbolic link on the way
   * resolved; rejects with `NotFound` when it leads nowhere.
   */
  realPath(path: string): Promise<string>;
}

/**
 * The {@link FileSystem} on Deno's own file APIs; needs read and write
 * permission. `lstat` and `realPath` are synchronous calls inside (they
 * never wait on what a path names, and a thread hop per call is most of
 * their cost), as are the identity check and the mode of a new file.
 */
export const denoFileSystem: FileSystem = {
  lstat: (path) => settle(() => Deno.lstatSync(path)),
  readFile: async (path) => {
    const data = await readBounded(path, { limit: READ_LIMITS.replacedFile, followSymlink: false });
    if (data === undefined) throw new Deno.errors.NotFound(`${path} does not exist`);
    return data;
  },
  writeNewFile: (path, data, mode, onCreated) =>
    onCreated === undefined
      ? Deno.writeFile(
        path,
        data,
        mode === undefined ? { createNew: true } : { createNew: true, mode },
      )
      : writeNewFileChecked(path, data, mode, onCreated),
  rename: (from, to) => Deno.rename(from, to),
  remove: (path) => Deno.remove(path),
  mkdir: (path) => Deno.mkdir(path),
  realPath: (path) => settle(() => Deno.realPathSync(path)),
};

/** The result of a synchronous call as a promise: resolved with its value, or rejected with what it threw. */
function settle<T>(call: () => T): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Creates `path` exclusively, hands its identity to `onCreated` before
 * writing, sets `mode` exactly (the open applies the umask), then writes.
 *
 * Once the open succeeded `onCreated` is always called (with `undefined`
 * when the identity cannot be had), so a caller knows which files it made.
 * The mode is set through a descriptor, never by the name: the name may
 * lead elsewhere by then (a folder swapped for a link, or a link put in the
 * file's place), and `chmod` by name follows links. Deno's `FsFile` has no
 * `chmod` (2.9.6), so the file is opened a second time with `node:fs`
 * (`O_NOFOLLOW`), and that descriptor is used only when `fstat` shows it is
 * the very file just made.
 */
async function writeNewFileChecked(
  path: string,
  data: Uint8Array,
  mode: number | undefined,
  onCreated: OnCreated,
): Promise<void> {
  const file = await Deno.open(path, { createNew: true, write: true, mode });
  try {
    let identity: FileIdentity | undefined;
    try {
      const info = file.statSync();
      identity = { dev: info.dev, ino: info.ino, mode: info.mode };
    } catch {
      // NotCapable (Deno found the new file outside the folders it may read), or
      // fstat failed: the identity is unknown, and onCreated is told so.
    }
    await onCreated(identity);
    const made = identity?.mode;
    if (mode !== undefined && typeof made === "number" && (made & 0o7777) !== mode) {
      await chmodMadeFile(path, identity!, mode);
    }
    let rest = data;
    while (rest.length > 0) rest = rest.subarray(await file.write(rest));
  } finally {
    file.close();
  }
}

/**
 * Sets the permission bits of the file just made at `path`, through a
 * descriptor that `fstat` shows is that file (`identity`). `node:fs` is
 * loaded only here, when the umask changed a mode: it starts Deno's Node
 * layer, which no ordinary run pays for.
 *
 * @throws {Error} when the name leads to another file now; the file system's error.
 */
async function chmodMadeFile(path: string, identity: FileIdentity, mode: number): Promise<void> {
  const { closeSync, constants, fchmodSync, fstatSync, openSync } = await import("node:fs");
  const fd = openSync(path, constants.O_WRONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const info = fstatSync(fd);
    if (info.dev !== identity.dev || (identity.ino !== null && info.ino !== identity.ino)) {
      throw new Error(`"${path}" leads to another file than the one just made`);
    }
    fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}

/** `relative` (`/`-separated, `""` for the root itself) joined to `root`. Never throws. */
export function under(root: string, relative: string): string {
  if (relative === "") return root;
  if (root === "") return relative;
  return root.endsWith("/") ? `${root}${relative}` : `${root}/${relative}`;
}
