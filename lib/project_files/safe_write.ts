/**
 * Writing a project file the tool itself makes (`--init`'s files, the code
 * rollup): atomically, and never through a symbolic link.
 *
 * - Every folder on the way (relative to the project root) must be a real
 *   folder: a symbolic link or a file there is refused, never followed.
 *   Missing folders are created (only with `createFolders`).
 * - The file itself must be absent or a regular file: a link, a folder or a
 *   special file there is refused.
 * - The text goes to a new temporary sibling (`createNew`, so it never
 *   follows a link planted there), which is then renamed into place (or,
 *   for {@link writeNewFile}, hard-linked, which fails rather than replace a
 *   file that appeared meanwhile). A reader sees the old file or the new one,
 *   never half of one; a failed write leaves nothing behind.
 *
 * A local stand-in: `lib/file_system/` (branch fs-rules) brings the tool's one
 * `writeAtomically` and real-folder check; once it lands, these two functions
 * become thin calls to it.
 *
 * @module
 */

import { join } from "node:path";
import { CodeCommitError, messageOf } from "../errors/errors.ts";
import { describeSpecial, lstatOrUndefined } from "../guard/entry_kinds.ts";

/** Options of a write. */
export interface SafeWriteOptions {
  /** Permission bits of a new file (default 0o644; a replaced file keeps its own). */
  readonly mode?: number;
  /** Create missing folders on the way (default false: a missing folder is an error). */
  readonly createFolders?: boolean;
}

/**
 * Writes `text` to `path` (relative to `root`, `/`-separated) atomically,
 * replacing the file if it exists (its permission bits are kept).
 *
 * @throws {CodeCommitError} naming the path when a folder on the way or the
 * file itself is a symbolic link or not what it must be, or the write fails.
 */
export async function writeFileAtomically(
  root: string,
  path: string,
  text: string,
  options: SafeWriteOptions = {},
): Promise<void> {
  await checkFolders(root, path, options.createFolders ?? false);
  const existing = await checkTarget(root, path);
  const temporary = existing !== undefined && existing.mode !== null
    ? await writeTemporary(root, path, text, existing.mode & 0o7777, true)
    : await writeTemporary(root, path, text, options.mode ?? 0o644, false);
  try {
    await Deno.rename(temporary, join(root, path));
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw new CodeCommitError(`cannot write ${path}: ${messageOf(error)}`, undefined, {
      cause: error,
    });
  }
}

/**
 * Writes `text` to `path` (relative to `root`) only if nothing is there:
 * returns false, writing nothing, when anything (a file, a folder, a link)
 * already has that name, even one that appears while the file is written.
 *
 * @throws {CodeCommitError} naming the path when a folder on the way is a
 * symbolic link or not a folder, or the write fails.
 */
export async function writeNewFile(
  root: string,
  path: string,
  text: string,
  options: SafeWriteOptions = {},
): Promise<boolean> {
  await checkFolders(root, path, options.createFolders ?? false);
  if (await lstatOrUndefined(join(root, path)) !== undefined) return false;
  const temporary = await writeTemporary(root, path, text, options.mode ?? 0o644, false);
  try {
    // link(2) never replaces an existing entry: a file that appeared meanwhile is kept.
    await Deno.link(temporary, join(root, path));
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return false;
    throw new CodeCommitError(`cannot write ${path}: ${messageOf(error)}`, undefined, {
      cause: error,
    });
  } finally {
    await Deno.remove(temporary).catch(() => {});
  }
}

/**
 * Makes the folder `path` (relative to `root`) if it is missing, and every
 * missing folder above it; returns true when it made the folder itself.
 *
 * @throws {CodeCommitError} when something on the way, or `path` itself, is
 * a symbolic link or not a folder.
 */
export async function ensureRealFolder(root: string, path: string): Promise<boolean> {
  await checkFolders(root, `${path}/x`, true, false);
  const info = await lstatOrUndefined(join(root, path));
  if (info !== undefined) {
    refuseUnlessFolder(path, info);
    return false;
  }
  try {
    await Deno.mkdir(join(root, path));
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) {
      refuseUnlessFolder(path, await Deno.lstat(join(root, path)));
      return false;
    }
    throw new CodeCommitError(`cannot create ${path}/: ${messageOf(error)}`);
  }
}

/** Checks (and with `create`, makes) every folder above `path`; with `last`, its parent too. */
async function checkFolders(
  root: string,
  path: string,
  create: boolean,
  last = true,
): Promise<void> {
  const segments = path.split("/");
  const count = last ? segments.length - 1 : segments.length - 2;
  for (let depth = 1; depth <= count; depth++) {
    const folder = segments.slice(0, depth).join("/");
    const info = await lstatOrUndefined(join(root, folder));
    if (info !== undefined) {
      refuseUnlessFolder(folder, info);
      continue;
    }
    if (!create) {
      throw new CodeCommitError(`cannot write ${path}: the folder ${folder}/ does not exist`);
    }
    await Deno.mkdir(join(root, folder)).catch((error) => {
      if (!(error instanceof Deno.errors.AlreadyExists)) {
        throw new CodeCommitError(`cannot create ${folder}/: ${messageOf(error)}`);
      }
    });
    refuseUnlessFolder(folder, await Deno.lstat(join(root, folder)));
  }
}

function refuseUnlessFolder(folder: string, info: Deno.FileInfo): void {
  if (info.isSymlink) {
    throw new CodeCommitError(
      `${folder} is a symbolic link; code-commit writes only into real folders: replace it with a folder`,
    );
  }
  if (!info.isDirectory) {
    throw new CodeCommitError(`${folder} is not a folder: move it away`);
  }
}

/** The file's info when it is a regular file, undefined when absent; throws for anything else. */
async function checkTarget(root: string, path: string): Promise<Deno.FileInfo | undefined> {
  const info = await lstatOrUndefined(join(root, path));
  if (info === undefined || info.isFile) return info;
  const what = info.isSymlink
    ? "a symbolic link"
    : info.isDirectory
    ? "a folder"
    : describeSpecial(info);
  throw new CodeCommitError(
    `${path} is ${what}; code-commit writes it only as a regular file: move it away`,
  );
}

/**
 * Writes a new temporary sibling of `path` and returns its absolute path. The
 * umask applies to `mode`, unless `exact` (a replaced file keeps its bits).
 */
async function writeTemporary(
  root: string,
  path: string,
  text: string,
  mode: number,
  exact: boolean,
): Promise<string> {
  const slash = path.lastIndexOf("/");
  const folder = slash === -1 ? "" : path.slice(0, slash);
  const name = path.slice(slash + 1);
  const temporary = join(root, folder, `.${name}.${crypto.randomUUID().slice(0, 8)}.tmp`);
  try {
    await Deno.writeTextFile(temporary, text, { createNew: true, mode });
    if (exact) await Deno.chmod(temporary, mode);
    return temporary;
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw new CodeCommitError(`cannot write ${path}: ${messageOf(error)}`, undefined, {
      cause: error,
    });
  }
}
