/**
 * What kind of entry a project path names, found with `lstat` (never following
 * a symbolic link) and cached, so that a reply of thousands of files costs one
 * `lstat` per folder rather than one per folder per file.
 *
 * @module
 */

import { join } from "node:path";
import { CodeCommitError, messageOf } from "../errors/errors.ts";

/**
 * The kind of a directory entry, as `lstat` sees it: `missing` when nothing is
 * there (or a parent is not a folder); `special` for a fifo, socket or device.
 */
export type EntryKind = "file" | "folder" | "symlink" | "special" | "missing";

/** Describes a special file (fifo, socket, device) for a message. Never throws. */
export function describeSpecial(info: Deno.FileInfo): string {
  if (info.isFifo) return "a fifo (named pipe)";
  if (info.isSocket) return "a socket";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  return "neither a file nor a folder";
}

/** Returns the kind of entry `info` describes. Never throws. */
export function kindOf(info: Deno.FileInfo): EntryKind {
  if (info.isSymlink) return "symlink";
  if (info.isDirectory) return "folder";
  if (info.isFile) return "file";
  return "special";
}

/**
 * `lstat`s `absolutePath` and returns its info, or `undefined` when nothing is
 * there (NotFound, or a parent that is not a folder). Throws a
 * `CodeCommitError` naming the path for any other error (permission denied,
 * a symbolic-link loop in a parent, ...).
 */
export async function lstatOrUndefined(absolutePath: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.lstat(absolutePath);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return undefined;
    }
    throw new CodeCommitError(`cannot inspect ${absolutePath}: ${messageOf(error)}`, undefined, {
      cause: error,
    });
  }
}

/** A cache of `lstat` results for paths relative to one project root. */
export class EntryKinds {
  /** The project root the relative paths are resolved against. */
  readonly root: string;
  readonly #infos = new Map<string, Promise<Deno.FileInfo | undefined>>();
  readonly #realFolders = new Map<string, Promise<boolean>>();

  /** Makes an empty cache for the project at `root`. Never throws. */
  constructor(root: string) {
    this.root = root;
  }

  /**
   * The `lstat` info of `relativePath` (`""` is the root), or `undefined` when
   * nothing is there. Rejects with a `CodeCommitError` as `lstatOrUndefined` does.
   */
  info(relativePath: string): Promise<Deno.FileInfo | undefined> {
    let info = this.#infos.get(relativePath);
    if (info === undefined) {
      info = lstatOrUndefined(join(this.root, relativePath));
      this.#infos.set(relativePath, info);
    }
    return info;
  }

  /** The kind of entry at `relativePath`. Rejects as `info` does. */
  async kind(relativePath: string): Promise<EntryKind> {
    const info = await this.info(relativePath);
    return info === undefined ? "missing" : kindOf(info);
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
