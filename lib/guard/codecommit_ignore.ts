/**
 * `.codecommitignore`: a root file in gitignore syntax whose matches stay out of every prompt
 * though git tracks them, matched as git matches one ignore file (`ignore_patterns.ts`).
 *
 * @module
 */

import { FileReadError, readBounded } from "../file_system/bounded_read.ts";
import { READ_LIMITS } from "../file_system/read_limits.ts";
import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { type IgnorePatterns, parseIgnorePatterns } from "./ignore_patterns.ts";

/** The file's name, at the project root. */
export const CODECOMMIT_IGNORE_FILE = ".codecommitignore";

/** The rules of a project's `.codecommitignore` (none when it has none). */
export class CodeCommitIgnore {
  private constructor(private readonly patterns: IgnorePatterns) {}

  /** The rules of `text`, read as a `.gitignore` at the project root. Never throws. */
  static parse(text: string): CodeCommitIgnore {
    return new CodeCommitIgnore(parseIgnorePatterns(text));
  }

  /** No rules: nothing is left out. */
  static readonly NONE: CodeCommitIgnore = CodeCommitIgnore.parse("");

  /**
   * Reads `.codecommitignore` at `root` (none when missing), never through a link.
   *
   * @throws {CodeCommitError} (exit `EXIT.setup`) when it is not a regular file, too large or unreadable.
   */
  static async load(root: string): Promise<CodeCommitIgnore> {
    const bytes = await readBounded(`${root}/${CODECOMMIT_IGNORE_FILE}`, {
      limit: READ_LIMITS.ignoreRules,
      followSymlink: false,
      name: CODECOMMIT_IGNORE_FILE,
    }).catch((error) => {
      if (error instanceof FileReadError) throw new CodeCommitError(error.message, EXIT.setup);
      throw error;
    });
    if (bytes === undefined) return CodeCommitIgnore.NONE;
    return CodeCommitIgnore.parse(new TextDecoder().decode(bytes));
  }

  /** Whether `path` stays out of prompts: it or a folder above it matches. Never throws. */
  excludes(path: string, isFolder = false): boolean {
    return this.patterns.ignores(path, isFolder);
  }
}
