/**
 * What kind of entry a project path names, found with `lstat` (never following
 * a symbolic link) and cached, so that a reply of thousands of files costs one
 * `lstat` per folder rather than one per folder per file.
 *
 * A reply often makes many new folders side by side (`src/a/`, `src/b/`, …
 * in an existing `src/`): each would cost an `lstat` that fails, and Deno
 * makes an error object for each (15–35 µs, against 4 µs for one that
 * succeeds). Once an entry of a small folder turned out missing (two of a
 * larger one), that folder is listed, and a name its listing lacks is known missing
 * without an `lstat`, where the listing cannot be wrong about it:
 * - the name is ASCII, every name in the listing is ASCII, and none of them
 *   equals it once ASCII letters are compared without regard to case. A
 *   case-insensitive file system (macOS, Windows, ext4's casefold folders)
 *   finds `PART0` for `part0`; a listed non-ASCII name could fold or
 *   normalize onto an ASCII one (the Kelvin sign onto `k`, HFS+'s ignored
 *   code points): then the `lstat` answers, as before;
 * - not on Windows, where a listing shows neither the reserved device names
 *   (`nul`, `con`) nor short names, which `lstat` finds. (The names no
 *   listing shows anywhere, short names like `BUILD~1.SH` and names ending
 *   in `.` or white space, are refused by the syntax check before any look.)
 * The listing and the `lstat` it stands for resolve the folder the same
 * way, and both are snapshots: what the guard concludes must still hold
 * when the applier writes, which checks again as it writes.
 *
 * @module
 */

import { lstatSyncOrUndefined } from "../file_system/lstat.ts";
import { under } from "../file_system/file_system.ts";

/**
 * The kind of a directory entry, as `lstat` sees it: `missing` when nothing is
 * there (or a parent is not a folder); `special` for a fifo, socket or device.
 */
export type EntryKind = "file" | "folder" | "symlink" | "special" | "missing";

/** Returns the kind of entry `info` describes. Never throws. */
export function kindOf(info: Deno.FileInfo): EntryKind {
  if (info.isSymlink) return "symlink";
  if (info.isDirectory) return "folder";
  if (info.isFile) return "file";
  return "special";
}

/**
 * A folder is listed at its first missing entry when its `lstat` size is at
 * most this (one block: about a hundred names on ext4; a listing costs
 * about 12 µs and 1.2 µs a name), at its second up to
 * {@link MAX_LISTED_FOLDER_BYTES}, and never when larger.
 */
const SMALL_FOLDER_BYTES = 4 * 1024;
/** See {@link SMALL_FOLDER_BYTES}. */
const MAX_LISTED_FOLDER_BYTES = 16 * 1024;
/** A listing is abandoned past this many names (a file system whose folder sizes say little). */
const MAX_LISTED_NAMES = 1024;

// deno-lint-ignore no-control-regex -- the whole ASCII range, controls included
const ASCII = /^[\x00-\x7f]*$/;

/**
 * A cache of `lstat` results for paths relative to one project root.
 * Synchronous: a reply of thousands of paths would otherwise wait a thread
 * hop, or at least a promise, for each.
 */
export class EntryKinds {
  /** The project root the relative paths are resolved against. */
  readonly root: string;
  /** What each path looked at holds: its info, or undefined when nothing is there. */
  readonly #infos = new Map<string, Deno.FileInfo | undefined>();
  /** The error each path that could not be looked at gave (thrown again at each ask). */
  readonly #failures = new Map<string, unknown>();
  /** The sizes of the folders found, for the choice to list one. */
  readonly #folderSizes = new Map<string, number>();
  /** How many entries of each folder turned out missing. */
  readonly #misses = new Map<string, number>();
  /**
   * Each listed folder's names, lower-cased; null where no listing can tell
   * an absence (it holds a non-ASCII name, could not be read, or is too large).
   */
  readonly #listings = new Map<string, Set<string> | null>();
  readonly #kinds = new Map<string, EntryKind>();
  readonly #realFolders = new Map<string, boolean>();

  /** Makes an empty cache for the project at `root`. Never throws. */
  constructor(root: string) {
    this.root = root;
  }

  /**
   * The `lstat` info of `relativePath` (`""` is the root), or `undefined` when
   * nothing is there. Throws a `CodeCommitError` as `lstatSyncOrUndefined`
   * does, the same error at each ask.
   */
  info(relativePath: string): Deno.FileInfo | undefined {
    const known = this.#infos.get(relativePath);
    if (known !== undefined || this.#infos.has(relativePath)) return known;
    if (this.#failures.has(relativePath)) throw this.#failures.get(relativePath);
    const slash = relativePath.lastIndexOf("/");
    const folder = slash < 0 ? "" : relativePath.slice(0, slash);
    let found: Deno.FileInfo | undefined;
    try {
      if (relativePath !== "" && this.#listedAbsent(folder, relativePath.slice(slash + 1))) {
        found = undefined;
      } else {
        found = lstatSyncOrUndefined(under(this.root, relativePath));
        if (found === undefined) {
          if (relativePath !== "") this.#missed(folder);
        } else if (found.isDirectory) {
          this.#folderSizes.set(relativePath, found.size);
        }
      }
    } catch (error) {
      this.#failures.set(relativePath, error);
      throw error;
    }
    this.#infos.set(relativePath, found);
    return found;
  }

  /** Whether the listing of `folder`, if it was listed, shows that it holds no entry `name`. */
  #listedAbsent(folder: string, name: string): boolean {
    const listing = this.#listings.get(folder);
    if (listing === undefined || listing === null) return false;
    return ASCII.test(name) && !listing.has(name.toLowerCase());
  }

  /** Counts a missing entry of `folder`; lists the folder once it had enough of them. */
  #missed(folder: string): void {
    if (this.#listings.has(folder) || Deno.build.os === "windows") return;
    const misses = (this.#misses.get(folder) ?? 0) + 1;
    this.#misses.set(folder, misses);
    let size = this.#folderSizes.get(folder);
    if (size === undefined) {
      try {
        size = Deno.lstatSync(under(this.root, folder)).size; // the root, or a folder not asked
      } catch {
        return;
      }
    }
    if (size > (misses === 1 ? SMALL_FOLDER_BYTES : MAX_LISTED_FOLDER_BYTES)) return;
    this.#listings.set(folder, listNames(under(this.root, folder)));
  }

  /** The kind of entry at `relativePath`. Throws as `info` does. */
  kind(relativePath: string): EntryKind {
    const known = this.#kinds.get(relativePath);
    if (known !== undefined) return known;
    const info = this.info(relativePath);
    return info === undefined ? "missing" : kindOf(info);
  }

  /**
   * Records what a caller that just read the real folder `relativeFolder`
   * saw there: that it is a real folder (as every folder above it), and the
   * kind of its entry `name` (`missing` when the folder holds none), so
   * that neither needs an `lstat` of its own. A kind already known stays.
   * Never throws.
   */
  noteListed(relativeFolder: string, name: string, kind: EntryKind): void {
    if (!this.#realFolders.has(relativeFolder)) this.#realFolders.set(relativeFolder, true);
    const path = relativeFolder === "" ? name : `${relativeFolder}/${name}`;
    if (!this.#kinds.has(path) && !this.#infos.has(path)) this.#kinds.set(path, kind);
  }

  /**
   * Whether `relativeFolder` (`""` is the root, which is trusted) and every
   * folder above it are real folders, none of them a symbolic link. Throws
   * as `info` does.
   */
  isRealFolder(relativeFolder: string): boolean {
    if (relativeFolder === "") return true;
    let real = this.#realFolders.get(relativeFolder);
    if (real === undefined) {
      const slash = relativeFolder.lastIndexOf("/");
      real = this.isRealFolder(slash < 0 ? "" : relativeFolder.slice(0, slash)) &&
        this.kind(relativeFolder) === "folder";
      this.#realFolders.set(relativeFolder, real);
    }
    return real;
  }
}

/**
 * The names in the folder at `absolutePath`, lower-cased; null when a name
 * is not ASCII, there are more than {@link MAX_LISTED_NAMES}, or the folder
 * cannot be listed. Never throws.
 */
function listNames(absolutePath: string): Set<string> | null {
  const names = new Set<string>();
  try {
    for (const entry of Deno.readDirSync(absolutePath)) {
      if (names.size === MAX_LISTED_NAMES || !ASCII.test(entry.name)) return null;
      names.add(entry.name.toLowerCase());
    }
  } catch {
    return null;
  }
  return names;
}
