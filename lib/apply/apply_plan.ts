/**
 * The plan of an apply, which reads only: folders checked once (never a
 * link), what each path holds read into the journal, and each write's
 * temporary name and intended state.
 *
 * @module
 */

import { under } from "../file_system/file_system.ts";
import { parentFolder } from "../file_system/real_folders.ts";
import { FileStepError, step } from "../file_system/file_step_error.ts";
import type { ApplyOperation } from "./apply.ts";
import type { ApplyRun, Expected, PlannedChange } from "./apply_state.ts";
import { refuseNonFile, temporarySibling } from "./apply_state.ts";
import { contentHash } from "./content_hash.ts";
import type { ApplyRecorder } from "./journal_recorder.ts";
import type { IntendedState } from "./journal_store.ts";

/** What a path holds after the operations planned so far (its mode, where known). */
interface Planned {
  readonly expected: Expected;
  readonly mode: number | undefined;
}

/**
 * Checks every path and reads what it holds into the journal, adding one
 * change per operation to `changes` (on a failure, its length is the index
 * of the operation that failed).
 */
export async function planChanges(
  run: ApplyRun,
  operations: readonly ApplyOperation[],
  changes: PlannedChange[],
  recorder: ApplyRecorder,
): Promise<void> {
  const state = new Map<string, Planned>();
  for (const operation of operations) {
    changes.push(await planOne(run, operation, state, recorder));
  }
}

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
    await recorder.add(path, null);
    return { expected: { kind: "missing" }, mode: undefined };
  }
  refuseNonFile(path, info);
  const data = await step(
    `reading "${path}" (to keep a copy for rollback)`,
    () => run.fs.readFile(under(run.root, path)),
  );
  const mode = info.mode === null ? undefined : info.mode & 0o7777;
  await recorder.add(path, { data, mode: mode ?? null });
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
export function intendedStates(changes: readonly PlannedChange[]): Map<string, IntendedState[]> {
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
