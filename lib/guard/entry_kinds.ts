/**
 * What kind of entry a project path names, found with `lstat` (never following
 * a symbolic link) and cached, so that a reply of thousands of files costs one
 * `lstat` per folder rather than one per folder per file. What the guard
 * concludes is a snapshot: the applier checks again as it writes.
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
    let found: Deno.FileInfo | undefined;
    try {
      found = lstatSyncOrUndefined(under(this.root, relativePath));
    } catch (error) {
      this.#failures.set(relativePath, error);
      throw error;
    }
    this.#infos.set(relativePath, found);
    return found;
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
