/**
 * What kind of entry a project path names, found with `lstat` (never following
 * a symbolic link) and cached, so that a reply of thousands of files costs one
 * `lstat` per folder rather than one per folder per file.
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

/** A cache of `lstat` results for paths relative to one project root. */
export class EntryKinds {
  /** The project root the relative paths are resolved against. */
  readonly root: string;
  readonly #infos = new Map<string, Promise<Deno.FileInfo | undefined>>();
  readonly #kinds = new Map<string, EntryKind>();
  readonly #realFolders = new Map<string, Promise<boolean>>();

  /** Makes an empty cache for the project at `root`. Never throws. */
  constructor(root: string) {
    this.root = root;
  }

  /**
   * The `lstat` info of `relativePath` (`""` is the root), or `undefined` when
   * nothing is there. Rejects with a `CodeCommitError` as `lstatSyncOrUndefined` throws.
   */
  info(relativePath: string): Promise<Deno.FileInfo | undefined> {
    let info = this.#infos.get(relativePath);
    if (info === undefined) {
      // Synchronous: a reply of thousands of paths would otherwise wait a thread hop for each.
      try {
        info = Promise.resolve(lstatSyncOrUndefined(under(this.root, relativePath)));
      } catch (error) {
        info = Promise.reject(error);
        info.catch(() => {}); // the caller that asked handles it; a cached copy must not go unhandled
      }
      this.#infos.set(relativePath, info);
    }
    return info;
  }

  /** The kind of entry at `relativePath`. Rejects as `info` does. */
  async kind(relativePath: string): Promise<EntryKind> {
    const known = this.#kinds.get(relativePath);
    if (known !== undefined) return known;
    const info = await this.info(relativePath);
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
    if (!this.#realFolders.has(relativeFolder)) {
      this.#realFolders.set(relativeFolder, Promise.resolve(true));
    }
    const path = relativeFolder === "" ? name : `${relativeFolder}/${name}`;
    if (!this.#kinds.has(path) && !this.#infos.has(path)) this.#kinds.set(path, kind);
  }

  /**
   * Whether `relativeFolder` (`""` is the root, which is trusted) and every
   * folder above it are real folders, none of them a symbolic link. Rejects
   * as `info` does.
   */
  isRealFolder(relativeFolder: string): Promise<boolean> {
    let result = this.#realFolders.get(relativeFolder);
    if (result === undefined) {
      result = (async () => {
        if (relativeFolder === "") return true;
        const slash = relativeFolder.lastIndexOf("/");
        const parent = slash < 0 ? "" : relativeFolder.slice(0, slash);
        if (!(await this.isRealFolder(parent))) return false;
        return (await this.kind(relativeFolder)) === "folder";
      })();
      this.#realFolders.set(relativeFolder, result);
    }
    return result;
  }
}
