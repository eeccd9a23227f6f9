/**
 * Every folder code-commit writes into is, from the top, a real folder, not a symbolic link (a link
 * could send the write anywhere); missing ones may be created, one by one.
 * @module
 */

import { type EntryInfo, type FileSystem, under } from "./file_system.ts";
import { isMissing } from "./lstat.ts";
import { FileStepError } from "./file_step_error.ts";

/** What the folder check found. */
export type FolderCheck =
  | { readonly ok: true; readonly created: readonly string[] }
  | {
    readonly ok: false;
    /** The first folder from the top that is not a real folder. */
    readonly folder: string;
    readonly found: "missing" | "symlink" | "not-folder";
    readonly created: readonly string[];
  };

/** `lstat`s `path` (relative to `root`); `undefined` when nothing is there. @throws {FileStepError} */
export async function lstatStep(
  fs: Pick<FileSystem, "lstat">,
  root: string,
  path: string,
): Promise<EntryInfo | undefined> {
  try {
    return await fs.lstat(under(root, path));
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw new FileStepError(`checking "${path}"`, error);
  }
}

/**
 * Checks that `folder` (relative to `root`, trusted) and every folder above are real folders, from
 * the top, up to the first that is not. With `create`, a missing one is made and checked again
 * (one another process made meanwhile is not counted as created).
 * @throws {FileStepError} when a folder cannot be inspected or created.
 */
export async function checkRealFolder(
  fs: Pick<FileSystem, "lstat" | "mkdir">,
  root: string,
  folder: string,
  options: { readonly create?: boolean } = {},
): Promise<FolderCheck> {
  const created: string[] = [];
  if (folder === "") return { ok: true, created };
  const segments = folder.split("/");
  for (let depth = 1; depth <= segments.length; depth++) {
    const current = segments.slice(0, depth).join("/");
    let info = await lstatStep(fs, root, current);
    if (info === undefined) {
      if (!options.create) return { ok: false, folder: current, found: "missing", created };
      try {
        await fs.mkdir(under(root, current));
        created.push(current);
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) {
          throw new FileStepError(`creating the folder "${current}"`, error);
        }
      }
      info = await lstatStep(fs, root, current);
      if (info === undefined) return { ok: false, folder: current, found: "missing", created };
    }
    if (info.isSymlink) return { ok: false, folder: current, found: "symlink", created };
    if (!info.isDirectory) return { ok: false, folder: current, found: "not-folder", created };
  }
  return { ok: true, created };
}

/** The folder that holds the relative `path`: `""` for a top-level name. Never throws. */
export function parentFolder(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}
