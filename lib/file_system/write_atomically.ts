/**
 * The one atomic write: a temporary sibling created exclusively (never an existing file, never
 * through a link), renamed over the destination (a rename never follows a link there).
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
  readonly mode?: number;
  /**
   * The temporary files made and not yet renamed or removed: one leaves only once removed, never for
   * not being found (a folder on its way may be swapped for a link for a moment).
   */
  readonly temporaries?: Set<string>;
  /** Flush the file before the rename and its folder after it: the write survives a power cut. */
  readonly sync?: boolean;
  /** The temporary name, drawn beforehand (the applier journals it): never another. */
  readonly name?: string;
  readonly onCreated?: OnCreated;
  /** Runs right before the rename; if it throws, the destination is left as it was. */
  readonly beforeRename?: () => Promise<void>;
}

const NAME_ATTEMPTS = 3;

/**
 * Writes `data` to a new temporary sibling of `path` (relative to `root`), returns its path; a name
 * taken is someone else's file: never touched. On failure it is removed, unless `onCreated` threw.
 * @throws {FileStepError} naming the temporary file; what `onCreated` throws.
 */
export async function writeTemporary(
  fs: WriteFileSystem,
  root: string,
  path: string,
  data: Uint8Array,
  options: WriteOptions = {},
): Promise<string> {
  const temporaries = options.temporaries ?? new Set<string>();
  const name = path.slice(path.lastIndexOf("/") + 1);
  for (let attempt = 1;; attempt++) {
    const temporary = under(parentFolder(path), options.name ?? temporaryName(name));
    const refusal: { error?: unknown } = {};
    let made = false;
    const onCreated: OnCreated = async (identity) => {
      made = true;
      temporaries.add(temporary);
      try {
        await options.onCreated?.(identity);
      } catch (error) {
        refusal.error = error;
        throw error;
      }
    };
    try {
      await fs.writeNewFile(under(root, temporary), data, options.mode, onCreated);
      if (!made) temporaries.add(temporary); // a file system that does not report the creation
      if (options.sync) syncPathSync(under(root, temporary));
      return temporary;
    } catch (error) {
      if ("error" in refusal) throw refusal.error; // the caller removes it, wherever it landed
      if (made) {
        await removeQuietly(fs, root, temporary, temporaries);
      } else if (!(error instanceof Deno.errors.AlreadyExists)) {
        // Not reported as made: removed if there, never tracked (it may never have been made).
        await removeQuietly(fs, root, temporary, new Set([temporary]));
      } else if (attempt < NAME_ATTEMPTS && options.name === undefined) {
        continue;
      }
      throw new FileStepError(`writing the temporary file "${temporary}"`, error);
    }
  }
}

/**
 * Writes `data` to `path` (relative to `root`, its folders there) atomically.
 * @throws {FileStepError} naming the step that failed, or what `beforeRename` throws.
 */
export async function writeAtomically(
  fs: WriteFileSystem,
  root: string,
  path: string,
  data: Uint8Array,
  options: WriteOptions = {},
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
    await step(
      `syncing the folder of "${path}"`,
      () => Promise.try(() => syncPathSync(under(root, parentFolder(path)))),
    );
  }
}

/** Flushes the file or folder at `path` to disk (`fsync`). @throws the file system's error. */
export function syncPathSync(path: string): void {
  using file = Deno.openSync(path, { read: true });
  file.syncSync();
}

/** The atomic write streamed, synchronous (the journal's copies); `folder` is trusted unchecked. */
export class AtomicFileWriter {
  #temporary: string | undefined;
  #file: Deno.FsFile | undefined;
  /** Bytes appended. */
  size = 0;

  /** A writer of `folder/name`; nothing is created before the first piece. */
  constructor(private readonly folder: string, private readonly name: string) {}

  /** Appends `data`. @throws the file system's error. */
  append(data: Uint8Array): void {
    if (data.length === 0) return;
    if (this.#file === undefined) {
      this.#temporary = under(this.folder, temporaryName(this.name));
      this.#file = Deno.openSync(this.#temporary, { write: true, createNew: true });
    }
    let rest = data;
    while (rest.length > 0) rest = rest.subarray(this.#file.writeSync(rest));
    this.size += data.length;
  }

  /**
   * Flushes and renames the file over the destination (not its folder: the caller's last synced
   * write does); nothing without pieces. @throws the file system's error; see {@link abandon}.
   */
  commit(): void {
    if (this.#file === undefined) return;
    this.#file.syncSync();
    this.#file.close();
    this.#file = undefined;
    Deno.renameSync(this.#temporary!, under(this.folder, this.name));
    this.#temporary = undefined;
  }

  /** Closes and removes the temporary file, if any. Never throws. */
  abandon(): void {
    try {
      this.#file?.close();
    } catch {
      // closed already
    }
    try {
      if (this.#temporary !== undefined) Deno.removeSync(this.#temporary);
    } catch {
      // gone already
    }
    this.#file = undefined;
    this.#temporary = undefined;
  }
}

/**
 * Removes the file or empty folder at `path` (relative to `root`), if there, only through real
 * folders: through a link it could hit a file outside.
 * @throws {FileStepError} when a folder above is a link or cannot be inspected; the removal's error.
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
  await fs.remove(under(root, path)).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
}

/** Removes `temporary` through real folders only; forgets it once removed. */
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
    // Left in `temporaries`.
  }
}
