/**
 * One failed step of a file-system job: what, to which path, and the system's error.
 * @module
 */

import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";

/** A file-system step failed or was refused (a link in the way); exit 3 (`EXIT.setup`). */
export class FileStepError extends CodeCommitError {
  /** Makes the error of the step described by `what` (`creating the folder "src"`). */
  constructor(what: string, cause?: unknown) {
    super(cause === undefined ? what : `${what} failed: ${messageOf(cause)}`, EXIT.setup, {
      cause,
    });
    this.name = "FileStepError";
  }
}

/** Runs `action`, turning its failure into a {@link FileStepError} saying `what` (one thrown inside passes). */
export async function step<T>(what: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof FileStepError) throw error;
    throw new FileStepError(what, error);
  }
}
