/**
 * Writing a file the tool itself makes (`--init`'s files, the rollup): every folder on the way a
 * real folder (a link or file there refused, never followed), the file absent or regular, the text
 * renamed into place from a temporary sibling, so a reader never sees half of it.
 *
 * @module
 */

import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { denoFileSystem, under } from "../file_system/file_system.ts";
import { describeEntry, lstatOrUndefined } from "../file_system/lstat.ts";
import { checkRealFolder, parentFolder } from "../file_system/real_folders.ts";
import { writeAtomically } from "../file_system/write_atomically.ts";

/** A new file's permission bits (a replaced one keeps its own); whether to make missing folders. */
export interface SafeWriteOptions {
  readonly mode?: number;
  readonly createFolders?: boolean;
}

const encoder = new TextEncoder();

/**
 * Writes `text` to `path` atomically, replacing the file if it exists (keeping its mode).
 *
 * @throws {CodeCommitError} naming the path when something on the way is a link or not what it
 * must be, or the write fails.
 */
export async function writeFileAtomically(
  root: string,
  path: string,
  text: string,
  options: SafeWriteOptions = {},
): Promise<void> {
  await checkFolders(root, parentFolder(path), options.createFolders ?? false, path);
  const existing = await checkTarget(root, path);
  const mode = typeof existing?.mode === "number" ? existing.mode & 0o7777 : options.mode;
  await writeAtomically(denoFileSystem, root, path, encoder.encode(text), {
    mode,
    // Checked again right before the rename: nothing but a regular file is ever replaced.
    beforeRename: async () => void await checkTarget(root, path),
  });
}

/**
 * Writes `text` to `path` only if nothing is there (checked at the start and before the rename);
 * false, writing nothing, otherwise.
 *
 * @throws {CodeCommitError} naming the path when a folder on the way is a link or not a folder,
 * or the write fails.
 */
export async function writeNewFile(
  root: string,
  path: string,
  text: string,
  options: SafeWriteOptions = {},
): Promise<boolean> {
  await checkFolders(root, parentFolder(path), options.createFolders ?? false, path);
  if (await lstatOrUndefined(under(root, path)) !== undefined) return false;
  let appeared = false;
  try {
    await writeAtomically(denoFileSystem, root, path, encoder.encode(text), {
      mode: options.mode,
      beforeRename: async () => {
        if (await lstatOrUndefined(under(root, path)) === undefined) return;
        appeared = true;
        throw new CodeCommitError(`${path} appeared while it was being written`, EXIT.safety);
      },
    });
  } catch (error) {
    if (appeared) return false;
    throw error;
  }
  return true;
}

/**
 * Makes the folder `path` and every missing one above it; true when it made `path` itself.
 *
 * @throws {CodeCommitError} when something on the way, or `path`, is a link or not a folder.
 */
export async function ensureRealFolder(root: string, path: string): Promise<boolean> {
  return (await checkFolders(root, path, true, path)).includes(path);
}

/** Checks (and with `create`, makes) `folder` and every folder above it; the folders it made. */
async function checkFolders(
  root: string,
  folder: string,
  create: boolean,
  path: string,
): Promise<readonly string[]> {
  const check = await checkRealFolder(denoFileSystem, root, folder, { create });
  if (check.ok) return check.created;
  const message = check.found === "missing"
    ? `cannot write ${path}: the folder ${check.folder}/ does not exist`
    : check.found === "symlink"
    ? `${check.folder} is a symbolic link; code-commit writes only into real folders: replace it with a folder`
    : `${check.folder} is not a folder: move it away`;
  throw new CodeCommitError(message, EXIT.setup);
}

/** The file's info when it is a regular file, undefined when absent; throws for anything else. */
async function checkTarget(root: string, path: string): Promise<Deno.FileInfo | undefined> {
  const info = await lstatOrUndefined(under(root, path));
  if (info === undefined || info.isFile) return info;
  throw new CodeCommitError(
    `${path} is ${describeEntry(info)}; code-commit writes it only as a regular file: move it away`,
    EXIT.setup,
  );
}
