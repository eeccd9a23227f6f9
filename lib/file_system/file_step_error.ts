/**
 * One failed step of a file-system job, said the way a user can act on: what
 * was being done, to which path, and the operating system's error
 * (`renaming "a.tmp" to "a" failed: Permission denied`).
 *
 * @module
 */

import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";

/**
 * A step of a file-system job failed, or was refused (a symbolic link in the
 * way). Its message says what the step was and, when there is one, the
 * operating system's error, which is also its `cause`. Exit status 3
 * (`EXIT.setup`): the project or the machine needs fixing, not the query.
 */
export class FileStepError extends CodeCommitError {
  /** Makes the error of the step described by `what` (`creating the folder "src"`). */
  constructor(what: string, cause?: unknown) {
    super(cause === undefined ? what : `${what} failed: ${messageOf(cause)}`, EXIT.setup, {
      cause,
    });
    this.name = "FileStepError";
  }
}

/**
 * Runs `action`, turning its failure into a {@link FileStepError} that says
 * what it was doing; a `FileStepError` thrown inside passes through as it is.
 */
export async function step<T>(what: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof FileStepError) throw error;
    throw new FileStepError(what, error);
  }
}
