/**
 * What is at a path, found with `lstat`, and how a message names it.
 * @module
 */

import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";

/** `lstat`s `absolutePath`; `undefined` when nothing is there. @throws {CodeCommitError} naming it. */
export function lstatOrUndefined(absolutePath: string): Promise<Deno.FileInfo | undefined> {
  return Promise.try(() => lstatSyncOrUndefined(absolutePath));
}

/** {@link lstatOrUndefined}, synchronous (`lstat` never blocks; walks call this thousands of times). */
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

/** Whether `error` says nothing is at a path: `NotFound`, or `NotADirectory` (a parent is a file). */
export function isMissing(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory;
}

/** Names what is at a path for a message, from its `lstat` info ("a folder", ...). Never throws. */
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
