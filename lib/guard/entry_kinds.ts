/**
 * What kind of entry a project path names, by `lstat` (never following a link), cached: a reply of
 * thousands of files costs one `lstat` per folder. A snapshot: the applier checks again as it writes.
 *
 * @module
 */

import { lstatSyncOrUndefined } from "../file_system/lstat.ts";
import { under } from "../file_system/file_system.ts";
import { parentFolder } from "../file_system/real_folders.ts";

/** An entry's kind: `missing` when nothing is there; `special` for a fifo, socket or device. */
export type EntryKind = "file" | "folder" | "symlink" | "special" | "missing";

/** The kind of entry `info` (an `lstat` result or a folder entry; none: missing). Never throws. */
export function kindOf(
  info: Pick<Deno.FileInfo, "isSymlink" | "isDirectory" | "isFile"> | undefined,
): EntryKind {
  if (info === undefined) return "missing";
  if (info.isSymlink) return "symlink";
  if (info.isDirectory) return "folder";
  if (info.isFile) return "file";
  return "special";
}

/** A synchronous cache of `lstat` results for paths relative to the project `root`. */
export class EntryKinds {
  readonly #infos = new Map<string, Deno.FileInfo | undefined>();
  /** The error each path that could not be looked at gave (thrown again at each ask). */
  readonly #failures = new Map<string, unknown>();
  readonly #kinds = new Map<string, EntryKind>();
  readonly #realFolders = new Map<string, boolean>();

  constructor(readonly root: string) {}

  /** The `lstat` info of `relativePath` (`""` the root), or undefined. Throws the same error each ask. */
  info(relativePath: string): Deno.FileInfo | undefined {
    if (this.#failures.has(relativePath)) throw this.#failures.get(relativePath);
    return this.#infos.getOrInsertComputed(relativePath, () => {
      try {
        return lstatSyncOrUndefined(under(this.root, relativePath));
      } catch (error) {
        this.#failures.set(relativePath, error);
        throw error;
      }
    });
  }

  /** The kind of entry at `relativePath`. Throws as `info` does. */
  kind(relativePath: string): EntryKind {
    return this.#kinds.get(relativePath) ?? kindOf(this.info(relativePath));
  }

  /** Records that `relativeFolder`, just listed, is a real folder, and the kind of its entry `name`. */
  noteListed(relativeFolder: string, name: string, kind: EntryKind): void {
    this.#realFolders.getOrInsert(relativeFolder, true);
    const path = relativeFolder === "" ? name : `${relativeFolder}/${name}`;
    if (!this.#kinds.has(path) && !this.#infos.has(path)) this.#kinds.set(path, kind);
  }

  /** Whether `relativeFolder` and every folder above it are real folders (the root is trusted). */
  isRealFolder(relativeFolder: string): boolean {
    if (relativeFolder === "") return true;
    return this.#realFolders.getOrInsertComputed(relativeFolder, () => {
      return this.isRealFolder(parentFolder(relativeFolder)) &&
        this.kind(relativeFolder) === "folder";
    });
  }
}
