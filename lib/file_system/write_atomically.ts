/**
 * The one atomic write: the data goes to a temporary sibling of the
 * destination, created exclusively (never an existing file, never through a
 * link at its own name), then the sibling is renamed over the destination,
 * so a reader sees the old file or the new one, never half of one, and a
 * rename never follows a link at the destination. On failure the temporary
 * file is removed, only through real folders.
 *
 * The two phases are separate functions ({@link writeTemporary}, then a
 * rename), so that a caller writing many temporary files before the first
 * rename can be given the first one alone.
 *
 * With `sync`, the file is flushed to disk before the rename and its folder
 * after it, so the write survives a power cut (the apply journal's
 * records). Data that comes a piece at a time and must not be held whole
 * in memory (the journal's copies of files) goes through
 * {@link AtomicFileWriter}, the same write streamed.
 *
 * @module
 */

import { type FileSystem, type OnCreated, under } from "./file_system.ts";
import { checkRealFolder, parentFolder } from "./real_folders.ts";
import { FileStepError, step } from "./file_step_error.ts";
import { temporaryName } from "./temporary_name.ts";

/** The calls the atomic write makes. */
export type WriteFileSystem = Pick<
  FileSystem,
  "lstat" | "mkdir" | "writeNewFile" | "rename" | "remove"
>;

/** Options of {@link writeTemporary} and {@link writeAtomically}. */
export interface WriteOptions {
  /** The permission bits of the new file; by default the file system's (0o666 less the umask). */
  readonly mode?: number;
  /**
   * The temporary files made and not yet renamed or removed, relative to the
   * root: each is added the moment it is created (before a byte is written
   * to it) and deleted only once a rename or removal of it succeeded, never
   * because it was not found (a folder on its way may be swapped for a link,
   * or moved aside, for a moment). What is left in it after a failure could
   * not be removed (the caller may try again or report it).
   */
  readonly temporaries?: Set<string>;
  /**
   * Flush the new file to disk before the rename, and its folder after it
   * (`fsync`): the write then survives a power cut. The flush opens the
   * file by its name, outside the `FileSystem` interface.
   */
  readonly sync?: boolean;
}

/** Options of {@link writeTemporary}. */
export interface WriteTemporaryOptions extends WriteOptions {
  /**
   * The temporary file's name, drawn beforehand with {@link temporaryName}
   * (the applier records it in its journal before creating it); taken
   * already, the write fails instead of drawing another.
   */
  readonly name?: string;
  /** Called with the new file's identity before anything is written to it (see `OnCreated`). */
  readonly onCreated?: OnCreated;
}

/** Options of {@link writeAtomically}. */
export interface WriteAtomicallyOptions extends WriteOptions {
  /** The temporary file's name (see {@link WriteTemporaryOptions.name}); by default a fresh one. */
  readonly name?: string;
  /**
   * Runs once the temporary file is written, right before the rename (the
   * applier checks the destination again there); if it throws, the
   * destination is left as it was.
   */
  readonly beforeRename?: () => Promise<void>;
}

/** How many times a temporary name is drawn when one is taken already. */
const NAME_ATTEMPTS = 3;

/**
 * Writes `data` to a new temporary sibling of `path` (relative to `root`,
 * `/`-separated), created exclusively (a name already taken is someone
 * else's file: never touched, another name is drawn, unless `name` was
 * given). Returns the sibling's path, relative to `root`. On failure the
 * sibling, if it was made, is removed through real folders (else it stays
 * in `temporaries`), except when `onCreated` threw: then it stays in
 * `temporaries` for the caller, who knows where it may have landed.
 *
 * @throws {FileStepError} `writing the temporary file "<path>" failed: …`;
 * what `onCreated` throws, as it is.
 */
export async function writeTemporary(
  fs: WriteFileSystem,
  root: string,
  path: string,
  data: Uint8Array,
  options: WriteTemporaryOptions = {},
): Promise<string> {
  const temporaries = options.temporaries ?? new Set<string>();
  const folder = parentFolder(path);
  const name = path.slice(folder === "" ? 0 : folder.length + 1);
  for (let attempt = 1;; attempt++) {
    const drawn = options.name ?? temporaryName(name);
    const temporary = folder === "" ? drawn : `${folder}/${drawn}`;
    const refusal: { error?: unknown } = {};
    let made = false;
    const check = options.onCreated;
    const onCreated: OnCreated = async (identity) => {
      made = true;
      temporaries.add(temporary);
      try {
        await check?.(identity);
      } catch (error) {
        refusal.error = error;
        throw error;
      }
    };
    try {
      await fs.writeNewFile(under(root, temporary), data, options.mode, onCreated);
      if (!made) temporaries.add(temporary); // a file system that does not report the creation
      if (options.sync) await syncPath(under(root, temporary));
      return temporary;
    } catch (error) {
      if ("error" in refusal) throw refusal.error; // the caller removes it, wherever it landed
      if (made) {
        await removeQuietly(fs, root, temporary, temporaries);
      } else if (!(error instanceof Deno.errors.AlreadyExists)) {
        // Not reported as made (a file system that does not say): removed if
        // it is there, and never tracked (it may never have been made).
        await removeQuietly(fs, root, temporary, new Set([temporary]));
      } else if (
        error instanceof Deno.errors.AlreadyExists && attempt < NAME_ATTEMPTS &&
        options.name === undefined
      ) {
        continue; // someone else's file: never touched, another name drawn
      }
      throw new FileStepError(`writing the temporary file "${temporary}"`, error);
    }
  }
}

/**
 * Writes `data` to `path` (relative to `root`, `/`-separated) atomically:
 * {@link writeTemporary}, then `beforeRename`, then a rename over `path`.
 * The folders on the way must exist (see `checkRealFolder`). On failure the
 * temporary file is removed and `path` is as it was.
 *
 * @throws {FileStepError} naming the step that failed (`writing the
 * temporary file …`, `renaming … to …`), or what `beforeRename` throws.
 */
export async function writeAtomically(
  fs: WriteFileSystem,
  root: string,
  path: string,
  data: Uint8Array,
  options: WriteAtomicallyOptions = {},
): Promise<void> {
  const temporaries = options.temporaries ?? new Set<string>();
  const temporary = await writeTemporary(fs, root, path, data, { ...options, temporaries });
  try {
    await options.beforeRename?.();
    await step(
      `renaming "${temporary}" to "${path}"`,
      () => fs.rename(under(root, temporary), under(root, path)),
    );
    temporaries.delete(temporary);
  } catch (error) {
    await removeQuietly(fs, root, temporary, temporaries);
    throw error;
  }
  if (options.sync) {
    await step(`syncing the folder of "${path}"`, () => syncPath(under(root, parentFolder(path))));
  }
}

/**
 * Flushes the file or folder at `path` to disk (`fsync`, through an open
 * for reading: the flush is the file's, whichever descriptor asks).
 *
 * @throws the file system's error.
 */
function syncPath(path: string): Promise<void> {
  try {
    syncPathSync(path);
    return Promise.resolve();
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * {@link syncPath}, synchronous: flushes the file or folder at `path` to disk.
 *
 * @throws the file system's error.
 */
export function syncPathSync(path: string): void {
  const file = Deno.openSync(path, { read: true });
  try {
    file.syncSync();
  } finally {
    file.close();
  }
}

/**
 * The atomic write streamed, synchronous: pieces are appended to a
 * temporary sibling of `folder/name` (named by {@link temporaryName},
 * created exclusively on the first piece) as they come, so that they are
 * never held together in memory; {@link AtomicFileWriter.commit} flushes it
 * to disk and renames it over the destination; {@link
 * AtomicFileWriter.abandon} removes it. `folder` is the writer's own (the
 * apply journal's): the folders above it are not checked.
 */
export class AtomicFileWriter {
  readonly #folder: string;
  readonly #name: string;
  #temporary: string | undefined;
  #file: Deno.FsFile | undefined;
  /** How many bytes were appended. */
  size = 0;

  /** A writer of `folder/name`; nothing is created before the first piece. */
  constructor(folder: string, name: string) {
    this.#folder = folder;
    this.#name = name;
  }

  /**
   * Appends `data`.
   *
   * @throws the file system's error (the temporary file cannot be made or written).
   */
  append(data: Uint8Array): void {
    if (data.length === 0) return;
    if (this.#file === undefined) {
      this.#temporary = under(this.#folder, temporaryName(this.#name));
      this.#file = Deno.openSync(this.#temporary, { write: true, createNew: true });
    }
    let rest = data;
    while (rest.length > 0) rest = rest.subarray(this.#file.writeSync(rest));
    this.size += data.length;
  }

  /**
   * Flushes the file to disk, closes it and renames it over the
   * destination; nothing when no piece was appended. The folder itself is
   * not flushed (the caller's last synced write does it).
   *
   * @throws the file system's error; the temporary file is then left for {@link abandon}.
   */
  commit(): void {
    if (this.#file === undefined) return;
    this.#file.syncSync();
    this.#file.close();
    this.#file = undefined;
    Deno.renameSync(this.#temporary!, under(this.#folder, this.#name));
    this.#temporary = undefined;
  }

  /** Closes and removes the temporary file, if any. Never throws. */
  abandon(): void {
    try {
      this.#file?.close();
    } catch {
      // closed already
    }
    this.#file = undefined;
    if (this.#temporary !== undefined) {
      try {
        Deno.removeSync(this.#temporary);
      } catch {
        // gone already
      }
      this.#temporary = undefined;
    }
  }
}

/**
 * Removes the file or empty folder at `path` (relative to `root`) unless it
 * is gone already, and only when every folder above it is a real folder:
 * removing through a symbolic link could hit a file outside the project.
 *
 * @throws {FileStepError} when a folder above it is a symbolic link or
 * cannot be inspected; the file system's own error when the removal fails
 * (a folder that is not empty, say).
 */
export async function removeIfPresent(
  fs: WriteFileSystem,
  root: string,
  path: string,
): Promise<void> {
  const folders = await checkRealFolder(fs, root, parentFolder(path));
  if (!folders.ok) {
    if (folders.found !== "symlink") return; // nothing can be there
    throw new FileStepError(
      `"${folders.folder}" is a symbolic link; code-commit never writes through a link`,
    );
  }
  try {
    await fs.remove(under(root, path));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/**
 * Removes the temporary file `temporary`, made by this write, through real
 * folders only, and forgets it once the removal succeeded. Not found is not
 * removed: a folder on its way may have been swapped for a link, or moved
 * aside, for a moment, and the file be elsewhere. Whatever is not removed
 * stays in `temporaries` for the caller to try again or report. Never throws.
 */
async function removeQuietly(
  fs: WriteFileSystem,
  root: string,
  temporary: string,
  temporaries: Set<string>,
): Promise<void> {
  try {
    const folders = await checkRealFolder(fs, root, parentFolder(temporary));
    if (!folders.ok) return;
    await fs.remove(under(root, temporary));
    temporaries.delete(temporary);
  } catch {
    // Left in `temporaries` for the caller to try again or report.
  }
}
