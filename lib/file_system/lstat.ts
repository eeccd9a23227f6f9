/**
 * What is at a path, found with `lstat` (never following a final symbolic
 * link), and how to name what was found in a message.
 *
 * @module
 */

import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";

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
    if (isMissing(error)) return undefined;
    throw new CodeCommitError(`cannot inspect ${absolutePath}: ${messageOf(error)}`, EXIT.setup, {
      cause: error,
    });
  }
}

/**
 * {@link lstatOrUndefined}, synchronous: one system call, no thread hop and
 * no promise. `lstat` never waits on what the path names (a fifo, a
 * device), so it cannot hang the run; a guard or walk that inspects
 * thousands of paths calls this. Throws as `lstatOrUndefined` rejects.
 */
export function lstatSyncOrUndefined(absolutePath: string): Deno.FileInfo | undefined {
  try {
    return Deno.lstatSync(absolutePath);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw new CodeCommitError(`cannot inspect ${absolutePath}: ${messageOf(error)}`, EXIT.setup, {
      cause: error,
    });
  }
}

/**
 * Whether `error` says that nothing is at a path: `NotFound`, or
 * `NotADirectory` (a parent on the path is a file). Never throws.
 */
export function isMissing(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory;
}

/**
 * Names what is at a path for a message, from its `lstat` info: "a regular
 * file", "a symbolic link", "a folder", or the kind of special file (see
 * {@link describeSpecial}), for a message that says what is there instead
 * of what was wanted. Never throws.
 */
export function describeEntry(info: Deno.FileInfo): string {
  if (info.isSymlink) return "a symbolic link";
  if (info.isDirectory) return "a folder";
  if (info.isFile) return "a regular file";
  return describeSpecial(info);
}

/** Describes a special file (fifo, socket, device) for a message. Never throws. */
export function describeSpecial(info: Deno.FileInfo): string {
  if (info.isFifo) return "a fifo (named pipe)";
  if (info.isSocket) return "a socket";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  return "neither a file nor a folder";
}
