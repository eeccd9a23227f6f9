/**
 * The transactional applier: carries out the file operations of a reply
 * (already parsed, and their paths already checked by the path guard) all or
 * nothing (every operation is made or none is), in phases, each in a module
 * of its own, sharing the state of the apply (`apply_state.ts`):
 *
 * 1. **Plan** (`apply_plan.ts`, reads only): each parent folder is checked
 *    once per apply (real folders, never a link; the missing ones are to
 *    be made), and what each path holds is read: its bytes and mode, or
 *    that nothing is there. A temporary name is drawn for each file to
 *    write.
 * 2. **Journal**: all of it, and the state each operation means to leave
 *    its path in (mode, size, hash of the bytes), is recorded in the
 *    journal and synced (`journal_recorder.ts`) before anything is
 *    written, so that even a killed process is rolled back at the next
 *    start, and only over states the apply itself could have left.
 * 3. **Stage** (`apply_stage.ts`): the folders, from the top, then the
 *    temporary files: each write goes to a temporary sibling, created
 *    exclusively, several at a time. Right after each is created, before a
 *    byte is written to it, its folder is checked again: the real path
 *    must still be the folder checked, inside the project, and the new file
 *    (its device and inode, from its open descriptor) must be the one at
 *    its name, with the folder checked right before and right after that
 *    look.
 * 4. **Commit** (`apply_commit.ts`): the renames and deletes, in the
 *    reply's order, each right after its folder, its temporary file and its
 *    destination are checked again. Every temporary file exists before the
 *    first rename.
 * 5. **Complete**: the journal records the state each path was left in.
 *
 * If any step fails, the apply is rolled back (`apply_rollback.ts`): every
 * temporary file is removed (a file that landed outside the project through
 * a folder swapped for a link is removed through that link, by the exact
 * name it was made with), every change made is undone from the journal's
 * pre-images, in reverse order, the folders made are removed, and an
 * {@link ApplyError} says which path failed and whether the undo was
 * complete.
 *
 * After a folder was found swapped, nothing is decided by absence: a file
 * this apply made (a temporary file, or a new file renamed into place)
 * counts as removed only once a removal of it succeeded, by its unique
 * name or once the file at its path is that very file (device and inode).
 * A name not found only means that the look went elsewhere (the folder was
 * a link, or moved aside, at that moment); the cleanup keeps trying.
 *
 * What remains a race: Deno has no `openat`, so every call goes through
 * the folder's name again, and looks before and after a call narrow the
 * window without closing it. A process that swaps a folder for a link
 * and back between two looks (twice within microseconds, unless this
 * process is descheduled there) can still make a check pass for a file
 * that landed outside, a rename or removal after its check go through the
 * link, or a replaced file be restored through it.
 *
 * All file system calls go through {@link ApplyFileSystem}, so tests can make
 * any single call fail.
 *
 * @module
 */

import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import { denoFileSystem, type EntryInfo, type FileSystem } from "../file_system/file_system.ts";
import { checkPathSyntax } from "../guard/path_syntax.ts";
import { nameSome } from "../text/change_list.ts";
import { plural } from "../text/plural.ts";
import { commitChange, postStates } from "./apply_commit.ts";
import { intendedStates, planChanges } from "./apply_plan.ts";
import { rollBack, type RollbackFailure } from "./apply_rollback.ts";
import { makeFolders, writeTemporaries } from "./apply_stage.ts";
import { ApplyRun, type PlannedChange } from "./apply_state.ts";
import { type ApplyJournal, type ApplyRecorder, memoryJournal } from "./journal_recorder.ts";

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

/**
 * One operation the applier carries out: a reply's `FileOperation`, or a
 * write with bytes and exact permission bits (as `--undo` restores a file).
 */
export type ApplyOperation =
  | {
    readonly kind: "write";
    /** Relative, `/`-separated. */
    readonly path: string;
    /** The new content. */
    readonly content: string | Uint8Array;
    /** The permission bits; by default a replaced file keeps its own, a new one gets the file system's. */
    readonly mode?: number;
  }
  | { readonly kind: "delete"; readonly path: string };

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
  /**
   * Where the apply is recorded before it writes; by default a journal in
   * memory (a rollback in this process only). Workflows pass the run's
   * journal on disk.
   */
  readonly journal?: ApplyJournal;
  /** How many temporary files are written at once (default {@link WRITES_IN_FLIGHT}). */
  readonly parallelism?: number;
  /** A recorder already begun (by `--undo`, which records its own apply); `journal` is then unused. */
  readonly recorder?: ApplyRecorder;
  /**
   * The temporary file (relative) each write goes through; by default a
   * fresh name. Recovery passes names the next recovery can find again.
   */
  readonly temporaryName?: (path: string) => string;
}

/**
 * How many temporary files are written at once by default: enough to keep
 * the disk busy while each write waits, few enough that the bytes in flight
 * stay small.
 */
const WRITES_IN_FLIGHT = 16;

/**
 * A reply could not be applied. By the time it is thrown every change already
 * made has been undone, except the paths in {@link ApplyError.notRestored}.
 * Exit status 3 (`EXIT.setup`): the project refused the write.
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
    super(message, EXIT.setup, options);
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
 * not relative, a journal that cannot be written): every change already made
 * is first rolled back, and the error names the failing path, the cause, and
 * any path the rollback could not restore.
 */
export async function applyOperations(
  root: string,
  operations: readonly ApplyOperation[],
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  for (const operation of operations) {
    const problem = appliedPathProblem(operation.path);
    if (problem !== undefined) {
      throw new ApplyError(
        `refusing to apply the reply: the path "${operation.path}" ${problem}; ` +
          `nothing was changed`,
        operation.path,
      );
    }
  }
  if (operations.length === 0) return { changes: [], warnings: [] };
  const run = new ApplyRun(
    root,
    options.fs ?? denoFileSystem,
    Math.max(1, options.parallelism ?? WRITES_IN_FLIGHT),
    options.temporaryName,
  );
  return await runApply(
    run,
    operations,
    options.recorder ?? await beginRecord(options.journal),
  );
}

/** Begins the journal's record, as an {@link ApplyError} when it cannot. */
async function beginRecord(journal: ApplyJournal | undefined): Promise<ApplyRecorder> {
  try {
    return await (journal ?? memoryJournal()).begin();
  } catch (error) {
    throw new ApplyError(
      `refusing to apply the reply: ${messageOf(error)}`,
      "",
      [],
      { cause: error },
    );
  }
}

/**
 * Why `path` is not a path the applier takes, or undefined if it is one:
 * the path guard's syntax check (`checkPathSyntax`), on the form the guard
 * hands on, without the one leading `./` the guard allows. A name or path
 * too long for the file system is left to it: its error fails the apply,
 * which is rolled back. Never throws.
 */
function appliedPathProblem(path: string): string | undefined {
  if (path.startsWith("./")) return "starts with `./`, which the path guard removes first";
  return checkPathSyntax(path, { lengths: false });
}

/** Builds the error for a failed operation after its rollback. */
function applyError(
  operation: ApplyOperation,
  error: unknown,
  failures: readonly RollbackFailure[],
  kept: boolean,
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
  const list = nameSome(failures.map((failure) => `"${failure.path}" (${failure.reason})`), {
    separator: "; ",
  });
  return new ApplyError(
    `${head}. Rolling back failed for ${plural(failures.length, "path")}, which may be left ` +
      `changed, missing or extra: ${list}. Every other change was rolled back. ` +
      (kept
        ? "The journal keeps what they held: the next start of code-commit (any command, " +
          "once the disk takes writes again) restores them first; or check them (git " +
          "status, git diff) and restore them by hand."
        : "Check these paths (git status, git diff) and restore them by hand."),
    operation.path,
    failures.map((failure) => failure.path),
    { cause: error },
  );
}

/**
 * Carries out one apply through its phases; once the journal holds its
 * plan, a failure of any phase rolls back what was done.
 *
 * @throws {ApplyError} when a phase fails.
 */
async function runApply(
  run: ApplyRun,
  operations: readonly ApplyOperation[],
  recorder: ApplyRecorder,
): Promise<ApplyResult> {
  const planned: PlannedChange[] = [];
  run.identity = recorder.identity;
  try {
    await planChanges(run, operations, planned, recorder);
  } catch (error) {
    await recorder.discard();
    throw applyError(operations[planned.length], error, [], false);
  }
  const writes = planned.filter((change) => change.temporary !== undefined);
  try {
    await recorder.commit({
      folders: run.toCreate,
      temporaries: writes.map((change) => change.temporary!),
      intended: intendedStates(planned),
    });
  } catch (error) {
    await recorder.discard();
    throw new ApplyError(
      `refusing to apply the reply: ${messageOf(error)}; nothing was changed`,
      "",
      [],
      { cause: error },
    );
  }

  try {
    await makeFolders(run, planned);
    await writeTemporaries(run, writes);
    for (const change of planned) {
      run.culprit = change;
      await commitChange(run, change);
    }
    run.culprit = planned.at(-1);
    await recorder.complete(postStates(planned));
  } catch (error) {
    const failures = await rollBack(run, recorder);
    if (failures.length === 0) await recorder.discard();
    const operation = run.culprit?.operation ?? operations[0];
    throw applyError(operation, error, failures, recorder.identity !== undefined);
  }
  const warnings = planned.filter((change) => change.kind === "none").map((change) =>
    `"${change.operation.path}" was to be deleted but does not exist; nothing to delete`
  );
  const changes: AppliedChange[] = [];
  for (const change of planned) {
    if (change.kind !== "none") changes.push({ path: change.operation.path, kind: change.kind });
  }
  return { changes, warnings };
}
