/**
 * The transactional applier: carries out the file operations of a reply
 * (already parsed, and their paths already checked by the path guard) all or
 * nothing (SPEC.md decision 8).
 *
 * - Every write goes to a temporary sibling, created exclusively, then is
 *   renamed over the destination: a reader sees the old file or the new one,
 *   never half of it, and a rename never follows a link at the destination.
 * - A replaced file keeps its permission mode; missing parent folders are
 *   created one by one.
 * - Before anything at a path changes, what is needed to undo it is kept in
 *   memory (the original bytes and mode, or the fact that the file or folder
 *   did not exist).
 * - If any step fails, every change already made is undone in reverse order,
 *   temporary files are removed, and an {@link ApplyError} says which path
 *   failed and whether the undo was complete.
 * - Defence in depth: right before a file is replaced, created or removed,
 *   its parent folders and the file itself are checked again with `lstat`; a
 *   symbolic link anywhere there fails the operation instead of being followed.
 *
 * All file system calls go through {@link ApplyFileSystem}, so tests can make
 * any single call fail.
 *
 * @module
 */

import { CodeCommitError, messageOf } from "../errors/errors.ts";
import {
  denoFileSystem,
  type EntryInfo,
  type FileSystem,
  under,
} from "../file_system/file_system.ts";
import { checkRealFolder, lstatStep, parentFolder } from "../file_system/real_folders.ts";
import { FileStepError, step } from "../file_system/step.ts";
import { removeIfPresent, writeAtomically } from "../file_system/write_atomically.ts";
import type { FileOperation } from "../reply/operations.ts";
import { plural } from "../text/plural.ts";

/** What `lstat` reports about a path, as far as the applier needs it. */
export type ApplyFileInfo = EntryInfo;

/**
 * The file system calls the applier makes (`lib/file_system/`'s
 * `FileSystem`). Paths are absolute or relative to the current directory, as
 * given to {@link applyOperations}'s `root`. Every method rejects with the
 * platform's error (for example `Deno.errors.NotFound`) when the call fails.
 * The mutating calls are `writeNewFile`, `rename`, `remove` and `mkdir`.
 */
export type ApplyFileSystem = FileSystem;

export { denoFileSystem };

/** One file a reply changed. */
export interface AppliedChange {
  /** The operation's path, relative to the project root, `/`-separated. */
  readonly path: string;
  /** `created`: the file did not exist; `replaced`: it did; `deleted`: it was removed. */
  readonly kind: "created" | "replaced" | "deleted";
}

/** What {@link applyOperations} did. */
export interface ApplyResult {
  /** The files changed, in the order of the operations (a delete of a missing file is absent). */
  readonly changes: AppliedChange[];
  /** Operations that changed nothing (deleting a file that does not exist), one sentence each. */
  readonly warnings: string[];
}

/** Options of {@link applyOperations}. */
export interface ApplyOptions {
  /** The file system to work on; {@link denoFileSystem} by default. Tests inject faults here. */
  readonly fs?: ApplyFileSystem;
}

/**
 * A reply could not be applied. By the time it is thrown every change already
 * made has been undone, except the paths in {@link ApplyError.notRestored}.
 * Exit status 1.
 */
export class ApplyError extends CodeCommitError {
  /** The path of the operation that failed (relative, as in the reply). */
  readonly path: string;
  /**
   * Paths the rollback could not put back (folders end with `/`, leftover
   * temporary files are listed too); empty when the project is exactly as before.
   */
  readonly notRestored: readonly string[];

  /** Makes the error; `message` is the whole user-facing line. */
  constructor(
    message: string,
    path: string,
    notRestored: readonly string[] = [],
    options?: ErrorOptions,
  ) {
    super(message, undefined, options);
    this.name = "ApplyError";
    this.path = path;
    this.notRestored = notRestored;
  }
}

/**
 * Applies `operations` to the project at `root`, all or nothing: writes each
 * file atomically (temporary sibling, then rename), keeps the mode of replaced
 * files, creates missing parent folders, and removes deleted files. Paths must
 * be relative and `/`-separated (the path guard has checked them).
 *
 * Deleting a file that does not exist changes nothing and adds a warning.
 *
 * Throws {@link ApplyError} when an operation cannot be carried out (an
 * operating-system error, a symbolic link or folder in the way, a path that is
 * not relative): every change already made is first rolled back, and the
 * error names the failing path, the cause, and any path the rollback could
 * not restore.
 */
export async function applyOperations(
  root: string,
  operations: readonly FileOperation[],
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  for (const operation of operations) {
    const problem = relativePathProblem(operation.path);
    if (problem !== null) {
      throw new ApplyError(
        `refusing to apply the reply: the path "${operation.path}" ${problem}; ` +
          `nothing was changed`,
        operation.path,
      );
    }
  }

  const transaction = new Transaction(root, options.fs ?? denoFileSystem);
  const changes: AppliedChange[] = [];
  const warnings: string[] = [];
  for (const operation of operations) {
    try {
      if (operation.kind === "write") {
        changes.push(await transaction.write(operation.path, operation.content));
      } else {
        const change = await transaction.delete(operation.path);
        if (change === null) {
          warnings.push(
            `"${operation.path}" was to be deleted but does not exist; nothing to delete`,
          );
        } else {
          changes.push(change);
        }
      }
    } catch (error) {
      const failures = await transaction.rollback();
      throw applyError(operation, error, failures);
    }
  }
  return { changes, warnings };
}

/** Why `path` is not a plain relative `/`-separated path, or null if it is one. */
function relativePathProblem(path: string): string | null {
  if (path === "") return "is empty";
  if (path.includes("\0")) return "contains a NUL character";
  if (path.startsWith("/")) return "is absolute";
  const bad = path.split("/").find((segment) =>
    segment === "" || segment === "." || segment === ".."
  );
  if (bad !== undefined) {
    return bad === "" ? "has an empty segment" : `has a "${bad}" segment`;
  }
  return null;
}

/** An undo-path that could not be restored, and why. */
interface RollbackFailure {
  readonly path: string;
  readonly reason: string;
}

/** Builds the error for a failed operation after its rollback. */
function applyError(
  operation: FileOperation,
  error: unknown,
  failures: readonly RollbackFailure[],
): ApplyError {
  const verb = operation.kind === "write" ? "write" : "delete";
  const head = `could not ${verb} "${operation.path}": ${messageOf(error)}`;
  if (failures.length === 0) {
    return new ApplyError(
      `${head}. Every change already made by this reply was rolled back: the project is ` +
        `exactly as it was before. Fix the cause above and run code-commit again.`,
      operation.path,
      [],
      { cause: error },
    );
  }
  const list = failures.map((failure) => `"${failure.path}" (${failure.reason})`).join("; ");
  return new ApplyError(
    `${head}. Rolling back failed for ${plural(failures.length, "path")}, which may be left ` +
      `changed, missing or extra: ${list}. Every other change was rolled back. Check these ` +
      `paths (git status, git diff) and restore them by hand.`,
    operation.path,
    failures.map((failure) => failure.path),
    { cause: error },
  );
}

/** The original state of a file: what a rollback writes back. */
interface Original {
  readonly data: Uint8Array;
  readonly mode: number | null;
}

/** One change made, with what undoes it. */
type UndoEntry =
  | { readonly kind: "folder"; readonly path: string }
  | { readonly kind: "write"; readonly path: string; readonly before: Original | null }
  | { readonly kind: "delete"; readonly path: string; readonly before: Original };

const encoder = new TextEncoder();

/** The changes made so far and how to undo them. */
class Transaction {
  readonly #root: string;
  readonly #fs: ApplyFileSystem;
  /** Changes made, oldest first. */
  #undo: UndoEntry[] = [];
  /** Temporary files that may exist (relative paths). */
  readonly #temporaries = new Set<string>();

  constructor(root: string, fs: ApplyFileSystem) {
    this.#root = root;
    this.#fs = fs;
  }

  /** `lstat`, or null when nothing is at `path`. */
  async #lstat(path: string): Promise<ApplyFileInfo | null> {
    return (await lstatStep(this.#fs, this.#root, path)) ?? null;
  }

  /**
   * Checks the parent folders of `path`, from the top (`checkRealFolder`).
   * With `create`, makes the missing ones (recording each); without,
   * returns false if one is missing or is not a folder. Throws on a
   * symbolic link.
   */
  async #parents(path: string, create: boolean): Promise<boolean> {
    const check = await checkRealFolder(this.#fs, this.#root, parentFolder(path), {
      create,
      onCreated: (folder) => this.#undo.push({ kind: "folder", path: folder }),
    });
    if (check.ok) return true;
    if (check.found === "symlink") {
      throw new FileStepError(
        `"${check.folder}" is a symbolic link; code-commit never writes through a link`,
      );
    }
    if (!create) return false;
    if (check.found === "missing") {
      throw new FileStepError(`the folder "${check.folder}" vanished as it was made`);
    }
    throw new FileStepError(`"${check.folder}" is a file, not a folder`);
  }

  /** Reads what a rollback needs to restore `path`; null when it does not exist. */
  async #original(path: string): Promise<Original | null> {
    const info = await this.#lstat(path);
    if (info === null) return null;
    this.#refuseNonFile(path, info);
    const data = await step(
      `reading "${path}" (to keep a copy for rollback)`,
      () => this.#fs.readFile(under(this.#root, path)),
    );
    return { data, mode: info.mode };
  }

  /** Throws unless `info` describes a regular file. */
  #refuseNonFile(path: string, info: ApplyFileInfo): void {
    if (info.isSymlink) {
      throw new FileStepError(
        `"${path}" is a symbolic link; code-commit never writes through a link`,
      );
    }
    if (info.isDirectory) {
      throw new FileStepError(`"${path}" is a folder; a reply can only replace or delete files`);
    }
    if (!info.isFile) {
      throw new FileStepError(`"${path}" is not a regular file (a device, socket or pipe)`);
    }
  }

  /** Checks again, right before a change, that no parent folder of `path` nor `path` is a link. */
  async #recheck(path: string): Promise<void> {
    if (!await this.#parents(path, false)) {
      throw new FileStepError(`a parent folder of "${path}" disappeared or is no longer a folder`);
    }
    const info = await this.#lstat(path);
    if (info !== null) this.#refuseNonFile(path, info);
  }

  /** Writes `data` (with `mode`) to `path` atomically, checking `path` again right before the rename. */
  async #replace(path: string, data: Uint8Array, mode: number | null): Promise<void> {
    await writeAtomically(this.#fs, this.#root, path, data, {
      mode: mode === null ? undefined : mode & 0o7777,
      temporaries: this.#temporaries,
      beforeRename: () => this.#recheck(path),
    });
  }

  /** Creates or replaces the file at `path` with `content`. */
  async write(path: string, content: string): Promise<AppliedChange> {
    await this.#parents(path, true);
    const before = await this.#original(path);
    await this.#replace(path, encoder.encode(content), before?.mode ?? null);
    this.#undo.push({ kind: "write", path, before });
    return { path, kind: before === null ? "created" : "replaced" };
  }

  /** Removes the file at `path`; returns null (no change) when it does not exist. */
  async delete(path: string): Promise<AppliedChange | null> {
    if (!await this.#parents(path, false)) return null;
    const before = await this.#original(path);
    if (before === null) return null;
    await this.#recheck(path);
    await step(`removing "${path}"`, () => this.#fs.remove(under(this.#root, path)));
    this.#undo.push({ kind: "delete", path, before });
    return { path, kind: "deleted" };
  }

  /** Removes the file or empty folder at `path` unless it is gone (`removeIfPresent`). */
  #removeIfPresent(path: string): Promise<void> {
    return removeIfPresent(this.#fs, this.#root, path);
  }

  /** Removes every temporary file that may exist; returns those that could not be removed. */
  async #removeTemporaries(): Promise<RollbackFailure[]> {
    const failures: RollbackFailure[] = [];
    for (const temporary of this.#temporaries) {
      try {
        await this.#removeIfPresent(temporary);
        this.#temporaries.delete(temporary);
      } catch (error) {
        failures.push({ path: temporary, reason: messageOf(error) });
      }
    }
    return failures;
  }

  /**
   * Undoes every change made, newest first, and removes the temporary files.
   * Never throws: returns the paths that could not be restored.
   */
  async rollback(): Promise<RollbackFailure[]> {
    // Temporaries first: one left in a folder this reply created would keep
    // that folder from being removed.
    const failures = await this.#removeTemporaries();
    const undo = this.#undo.reverse();
    this.#undo = [];
    for (const entry of undo) {
      try {
        if (entry.kind === "folder" || entry.before === null) {
          await this.#removeIfPresent(entry.path);
        } else {
          await this.#replace(entry.path, entry.before.data, entry.before.mode);
        }
      } catch (error) {
        failures.push({
          path: entry.kind === "folder" ? `${entry.path}/` : entry.path,
          reason: messageOf(error),
        });
        // A temporary file of a failed restore must not stay behind (nor keep
        // a folder of this reply from being removed).
        failures.push(...await this.#removeTemporaries());
      }
    }
    // A temporary file that resisted removal twice is listed once.
    const unique = new Map<string, RollbackFailure>();
    for (const failure of failures) {
      if (!unique.has(failure.path)) unique.set(failure.path, failure);
    }
    return [...unique.values()];
  }
}
