/**
 * The transactional applier: a reply's operations all or nothing, recorded
 * in the journal and synced before the first write (so even a killed process
 * is rolled back), through plan, stage and commit; any failure rolls back.
 *
 * @module
 */

import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import {
  denoFileSystem,
  type FileIdentity,
  type FileSystem,
  under,
} from "../file_system/file_system.ts";
import { parentFolder } from "../file_system/real_folders.ts";
import { FileStepError, step } from "../file_system/file_step_error.ts";
import { writeTemporary } from "../file_system/write_atomically.ts";
import { checkPathSyntax } from "../guard/path_syntax.ts";
import { nameSome } from "../text/change_list.ts";
import { countLines } from "../text/diff.ts";
import { plural } from "../text/plural.ts";
import {
  ApplyRun,
  EncodeBuffer,
  type Expected,
  isKnown,
  knownIno,
  type PlannedChange,
  refuseNonFile,
  rollBack,
  type RollbackFailure,
  sameFile,
  temporarySibling,
} from "./apply_state.ts";
import { contentHash } from "./content_hash.ts";
import { type ApplyJournal, type ApplyRecorder, memoryJournal } from "./journal.ts";
import type { FileState, IntendedState, PostState } from "./journal_store.ts";

/** The file system calls the applier makes; each rejects with the platform's error. */
export type ApplyFileSystem = FileSystem;

export { denoFileSystem };

/** One operation: a reply's, or a write with bytes and exact mode (as `--undo` restores). */
export type ApplyOperation =
  | {
    readonly kind: "write";
    readonly path: string;
    readonly content: string | Uint8Array;
    /** By default a replaced file keeps its mode, a new one gets the file system's. */
    readonly mode?: number;
  }
  | { readonly kind: "delete"; readonly path: string };

/** One file a reply changed. */
export interface AppliedChange {
  readonly path: string;
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
  /** {@link denoFileSystem} by default. Tests inject faults here. */
  readonly fs?: ApplyFileSystem;
  /** Where the apply is recorded before it writes; by default in memory (this process only). */
  readonly journal?: ApplyJournal;
  /** How many temporary files are written at once (default {@link WRITES_IN_FLIGHT}). */
  readonly parallelism?: number;
  /** The temporary file each write goes through; recovery passes names it can find again. */
  readonly temporaryName?: (path: string) => string;
}

/** Enough writes at once to keep the disk busy, few enough that the bytes in flight stay small. */
const WRITES_IN_FLIGHT = 16;

/**
 * A reply could not be applied: every change made is undone, except the
 * paths in {@link ApplyError.notRestored}. Exit status 3 (`EXIT.setup`).
 */
export class ApplyError extends CodeCommitError {
  /** `path` is the failed operation's; `notRestored`, what the rollback left (folders end `/`). */
  constructor(
    message: string,
    readonly path: string,
    readonly notRestored: readonly string[] = [],
    options?: ErrorOptions,
  ) {
    super(message, EXIT.setup, options);
    this.name = "ApplyError";
  }
}

/**
 * Applies `operations` to the project at `root`, all or nothing: each file
 * written atomically (temporary sibling, then rename), replaced files keep
 * their mode, missing folders are made. Deleting a missing file only warns.
 *
 * @throws {ApplyError} when an operation cannot be carried out (a system
 * error, a link or folder in the way, a bad path, a journal that cannot be
 * written), once every change made is rolled back.
 */
export async function applyOperations(
  root: string,
  operations: readonly ApplyOperation[],
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  for (const operation of operations) {
    // The guard's syntax check, on the form it hands on (without `./`); a name too long is left
    // to the file system, whose error rolls the apply back.
    const problem = operation.path.startsWith("./")
      ? "starts with `./`, which the path guard removes first"
      : checkPathSyntax(operation.path, { lengths: false });
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
  let recorder: ApplyRecorder;
  try {
    recorder = await (options.journal ?? memoryJournal()).begin();
  } catch (error) {
    throw refusal(error, "");
  }
  const planned: PlannedChange[] = [];
  const state = new Map<string, Planned>();
  run.identity = recorder.identity;
  try {
    for (const operation of operations) {
      planned.push(await planOne(run, operation, state, recorder));
    }
  } catch (error) {
    await recorder.discard();
    throw applyError(operations[planned.length], error, [], false);
  }
  const warnings = planned.filter((change) => change.kind === "none").map((change) =>
    `"${change.operation.path}" was to be deleted but does not exist; nothing to delete`
  );
  if (warnings.length === planned.length) {
    // Nothing to change: nothing is recorded, so the last run's undo stays.
    await recorder.discard();
    return { changes: [], warnings };
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
    throw refusal(error, "; nothing was changed");
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
  const changes = planned.flatMap(({ operation, kind }) =>
    kind === "none" ? [] : [{ path: operation.path, kind }]
  );
  return { changes, warnings };
}

/** The error for a journal that could not record the apply (`tail` ends the message). */
function refusal(error: unknown, tail: string): ApplyError {
  return new ApplyError(`refusing to apply the reply: ${messageOf(error)}${tail}`, "", [], {
    cause: error,
  });
}

/** Builds the error for a failed operation after its rollback. */
function applyError(
  operation: ApplyOperation,
  error: unknown,
  failures: readonly RollbackFailure[],
  kept: boolean,
): ApplyError {
  const list = nameSome(failures.map((failure) => `"${failure.path}" (${failure.reason})`), {
    separator: "; ",
  });
  const after = failures.length === 0
    ? "Every change already made by this reply was rolled back: the project is exactly as it " +
      "was before. Fix the cause above and run code-commit again."
    : `Rolling back failed for ${plural(failures.length, "path")}, which may be left ` +
      `changed, missing or extra: ${list}. Every other change was rolled back. ` +
      (kept
        ? "The journal keeps what they held: the next start of code-commit (any command, " +
          "once the disk takes writes again) restores them first; or check them (git " +
          "status, git diff) and restore them by hand."
        : "Check these paths (git status, git diff) and restore them by hand.");
  return new ApplyError(
    `could not ${operation.kind} "${operation.path}": ${messageOf(error)}. ${after}`,
    operation.path,
    failures.map((failure) => failure.path),
    { cause: error },
  );
}

/** What a path holds after the operations planned so far (its mode, where known). */
interface Planned {
  readonly expected: Expected;
  readonly mode: number | undefined;
}

/** Plans one operation (reads only): checks its path and reads what it holds into the journal. */
async function planOne(
  run: ApplyRun,
  operation: ApplyOperation,
  state: Map<string, Planned>,
  recorder: ApplyRecorder,
): Promise<PlannedChange> {
  const { path } = operation;
  const folder = parentFolder(path);
  if (run.folders.get(path)?.kind === "planned") {
    throw new FileStepError(`"${path}" is a folder this reply creates; a reply writes files`);
  }
  // Nothing can be in a folder this reply makes: no look there.
  const reachable = await planFolder(run, folder, operation.kind === "write") &&
    run.folders.get(folder)?.kind !== "planned";
  const planned = state.get(path) ?? await readOriginal(run, path, reachable, recorder);

  const { expected } = planned;
  if (operation.kind === "delete") {
    state.set(path, { expected: { kind: "missing" }, mode: undefined });
    return { operation, folder, kind: expected.kind === "missing" ? "none" : "deleted", expected };
  }
  const temporary = run.temporaryName?.(path) ?? temporarySibling(path);
  const mode = operation.mode ?? planned.mode;
  state.set(path, { expected: { kind: "ours" }, mode });
  const kind = expected.kind === "missing" ? "created" : "replaced";
  const data = run.scratch.bytes(operation.content);
  return {
    operation,
    folder,
    kind,
    expected,
    temporary,
    mode,
    size: data.length,
    hash: contentHash(data),
  };
}

/** Reads what `path` holds now into the journal (nothing when not `reachable`). */
async function readOriginal(
  run: ApplyRun,
  path: string,
  reachable: boolean,
  recorder: ApplyRecorder,
): Promise<Planned> {
  const info = reachable ? await run.lstat(path) : null;
  if (info === null) {
    recorder.add(path, null);
    return { expected: { kind: "missing" }, mode: undefined };
  }
  refuseNonFile(path, info);
  const data = await step(
    `reading "${path}" (to keep a copy for rollback)`,
    () => run.fs.readFile(under(run.root, path)),
  );
  const mode = info.mode === null ? undefined : info.mode & 0o7777;
  recorder.add(path, { data, mode: mode ?? null });
  return { expected: { kind: "file", ino: info.ino }, mode };
}

/**
 * Checks `folder` and those above it, each once per apply: a real folder
 * (remembered with its identity), or missing (with `create`: to be made).
 * False when one is missing or a file and none is to be made.
 *
 * @throws {FileStepError} on a link, or (with `create`) a file where a folder must be.
 */
async function planFolder(run: ApplyRun, folder: string, create: boolean): Promise<boolean> {
  if (run.folders.has(folder)) return true;
  const segments = folder.split("/");
  for (let depth = 1; depth <= segments.length; depth++) {
    const current = segments.slice(0, depth).join("/");
    if (run.folders.has(current)) continue;
    const info = await run.lstat(current);
    if (info === null) {
      if (!create) return false;
      for (let rest = depth; rest <= segments.length; rest++) {
        const planned = segments.slice(0, rest).join("/");
        run.folders.set(planned, { kind: "planned" });
        run.toCreate.push(planned);
      }
      return true;
    }
    if (info.isSymlink) {
      throw new FileStepError(
        `"${current}" is a symbolic link; code-commit never writes through a link`,
      );
    }
    if (!info.isDirectory) {
      if (!create) return false;
      throw new FileStepError(`"${current}" is a file, not a folder`);
    }
    run.folders.set(current, { kind: "real", dev: info.dev, ino: info.ino });
  }
  return true;
}

/**
 * Every state the changes leave each path in, in order, for the journal:
 * recovery tells a state the apply could have left from a change made since.
 */
function intendedStates(changes: readonly PlannedChange[]): Map<string, IntendedState[]> {
  const states = new Map<string, IntendedState[]>();
  for (const change of changes) {
    if (change.kind === "none") continue;
    const { path } = change.operation;
    const state: IntendedState = change.size === undefined
      ? null
      : { mode: change.mode ?? null, size: change.size, hash: change.hash! };
    states.set(path, [...states.get(path) ?? [], state]);
  }
  return states;
}

/** Stages the planned folders from the top, each checked right after it is made. */
async function makeFolders(run: ApplyRun, changes: readonly PlannedChange[]): Promise<void> {
  for (const folder of run.toCreate) {
    run.culprit = changes.find((change) =>
      change.folder === folder || change.folder.startsWith(`${folder}/`)
    );
    await run.checkFolder(parentFolder(folder));
    try {
      await run.fs.mkdir(under(run.root, folder));
      run.created.push(folder);
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) {
        throw new FileStepError(`creating the folder "${folder}"`, error);
      }
      // Another process made it meanwhile: checked below, never removed.
    }
    const info = await run.lstat(folder);
    try {
      if (info === null || info.isSymlink || !info.isDirectory) {
        throw await run.swapError(parentFolder(folder), "was swapped for another folder");
      }
      run.folders.set(folder, { kind: "real", dev: info.dev, ino: info.ino });
      await run.checkFolder(folder);
    } catch (error) {
      if (run.created.at(-1) === folder) run.strays.add(folder);
      throw error;
    }
  }
}

/**
 * Stages every temporary file (exclusively made), at most `parallelism` at once; after
 * a failure no more are started, and it is thrown once those in flight finish.
 */
async function writeTemporaries(
  run: ApplyRun,
  writes: readonly PlannedChange[],
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    // A buffer per worker, reused: a 20 MB reply is not 20 MB of buffers the allocator keeps.
    const buffer = new EncodeBuffer();
    while (failure === undefined && next < writes.length) {
      const change = writes[next++];
      try {
        const data = buffer.bytes((change.operation as { content: string | Uint8Array }).content);
        await writeTemporary(run.fs, run.root, change.operation.path, data, {
          name: change.temporary!.slice(change.folder === "" ? 0 : change.folder.length + 1),
          mode: change.mode,
          temporaries: run.temporaries,
          onCreated: (identity) => checkCreated(run, change, identity),
        }).catch(async (error) => {
          throw await run.explain(change.folder, error);
        });
        const created = change.created?.mode;
        const mode = change.mode ?? (typeof created === "number" ? created & 0o7777 : null);
        change.after = { mode, size: data.length, hash: change.hash!, lines: countLines(data) };
      } catch (error) {
        if (failure === undefined) {
          failure = { error };
          run.culprit = change;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(run.parallelism, writes.length) }, worker));
  if (failure !== undefined) throw failure.error;
}

/**
 * Checks a temporary file right after it was created: Deno could `fstat` it
 * (so it is inside the folders it may read), and the file at its name is the
 * one made, with its folder the one checked right before and after that
 * look. Not a proof without `openat`; the cleanup does not rely on it (it
 * removes every file made by its exact name, wherever it is).
 *
 * @throws {SwapError} otherwise.
 */
async function checkCreated(
  run: ApplyRun,
  change: PlannedChange,
  identity: FileIdentity | undefined,
): Promise<void> {
  const temporary = change.temporary!;
  if (identity === undefined) {
    throw await run.swapError(change.folder, "was swapped for a symbolic link");
  }
  run.identities.set(temporary, identity);
  change.created = identity;
  await run.checkFolder(change.folder);
  const info = await run.lstat(temporary);
  if (info === null || !info.isFile || !sameFile(info, identity)) {
    throw await run.swapError(change.folder, "was swapped for another folder");
  }
  await run.checkFolder(change.folder);
}

/** Carries out one change, after checking its folder, its temporary file and its path again. */
async function commitChange(run: ApplyRun, change: PlannedChange): Promise<void> {
  if (change.kind === "none") return;
  const { path } = change.operation;
  const { temporary } = change;
  // The folder's real path, then the identity of the file in it (temporary, or deleted).
  await run.checkFolder(change.folder, temporary === undefined && !knownIno(change.expected));
  if (temporary !== undefined) {
    const info = await run.lstat(temporary);
    if (info === null || !info.isFile || !sameFile(info, change.created)) {
      throw new FileStepError(
        `the temporary file "${temporary}" was removed or replaced before it was renamed`,
      );
    }
  }
  // What the path holds now must be what the plan expects (nothing, or the same regular file).
  const info = await run.lstat(path);
  const { expected } = change;
  const raced = (what: string) =>
    new FileStepError(`"${path}" ${what} while the reply was being applied`);
  if (info === null && expected.kind !== "missing") throw raced("vanished");
  if (info !== null) {
    refuseNonFile(path, info);
    if (expected.kind === "missing") throw raced("was created by another process");
    if (knownIno(expected) && isKnown(info.ino) && expected.ino !== info.ino) {
      throw raced("was replaced by another process");
    }
  }
  try {
    if (temporary !== undefined) {
      await step(
        `renaming "${temporary}" to "${path}"`,
        () => run.fs.rename(under(run.root, temporary), under(run.root, path)),
      );
      run.temporaries.delete(temporary);
    } else {
      await step(`removing "${path}"`, () => run.fs.remove(under(run.root, path)));
    }
  } catch (error) {
    throw await run.explain(change.folder, error);
  }
  run.done.push(change);
}

/** The state each path touched was left in, the last change of each deciding. */
function postStates(changes: readonly PlannedChange[]): PostState[] {
  const last = new Map<string, FileState>();
  for (const change of changes) {
    const written = change.kind === "created" || change.kind === "replaced";
    last.set(change.operation.path, written ? change.after ?? null : null);
  }
  return [...last].map(([path, after]) => ({ path, after }));
}
