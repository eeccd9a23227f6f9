/**
 * The file-system calls of the folder check and the atomic write, as an interface the applier's
 * tests inject faults through; {@link denoFileSystem} is the real one.
 * @module
 */
import { readBounded } from "./bounded_read.ts";
import { READ_LIMITS } from "./read_limits.ts";

/** What `lstat` reports about a path, as far as the file jobs need it. */
export type EntryInfo =
  & Readonly<Pick<Deno.FileInfo, "isFile" | "isDirectory" | "isSymlink" | "mode">>
  & Readonly<Partial<Pick<Deno.FileInfo, "ino" | "dev">>>;

/** Which file a new file turned out to be, from `fstat` of the descriptor that created it. */
export type FileIdentity = Readonly<Pick<Deno.FileInfo, "dev" | "ino" | "mode">>;

/**
 * Told every new file's identity before any byte is written (`undefined` when Deno will not `fstat`
 * it: made through a link out of the project). If it throws, the empty file is the caller's.
 */
export type OnCreated = (identity: FileIdentity | undefined) => void | Promise<void>;

/** The file-system calls of the file jobs; each rejects with the platform's error. */
export interface FileSystem {
  lstat(path: string): Promise<EntryInfo>;
  /** The regular file at `path` (a final link not followed), bounded; else a `FileReadError`. */
  readFile(path: string): Promise<Uint8Array>;
  /**
   * Creates `path` exclusively (else `AlreadyExists`), `onCreated` told before anything is
   * written, sets exactly `mode`, writes `data`. Keep no view of `data`: the caller reuses it.
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
  mkdir(path: string): Promise<void>;
  realPath(path: string): Promise<string>;
}

/** The {@link FileSystem} on Deno's APIs (`lstat` and `realPath` synchronous: they never block). */
export const denoFileSystem: FileSystem = {
  lstat: (path) => Promise.try(() => Deno.lstatSync(path)),
  readFile: async (path) => {
    const data = await readBounded(path, { limit: READ_LIMITS.replacedFile, followSymlink: false });
    if (data === undefined) throw new Deno.errors.NotFound(`${path} does not exist`);
    return data;
  },
  writeNewFile,
  rename: (from, to) => Deno.rename(from, to),
  remove: (path) => Deno.remove(path),
  mkdir: (path) => Deno.mkdir(path),
  realPath: (path) => Promise.try(() => Deno.realPathSync(path)),
};

/**
 * {@link FileSystem.writeNewFile}. The mode (the open applies the umask) is set through a
 * descriptor, never by name: the name may lead elsewhere by then, and `chmod` follows links.
 */
async function writeNewFile(
  path: string,
  data: Uint8Array,
  mode?: number,
  onCreated?: OnCreated,
): Promise<void> {
  const file = await Deno.open(path, { createNew: true, write: true, mode });
  try {
    let identity: FileIdentity | undefined;
    try {
      const info = file.statSync();
      identity = { dev: info.dev, ino: info.ino, mode: info.mode };
    } catch {
      // Unknown (outside the folders Deno may read, or fstat failed): onCreated is told so.
    }
    await onCreated?.(identity);
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
 * Sets the mode of the file just made through an `O_NOFOLLOW` descriptor `fstat` shows is that
 * file (`FsFile` has no `chmod`). `node:fs` is loaded only here: it starts Deno's Node layer.
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
