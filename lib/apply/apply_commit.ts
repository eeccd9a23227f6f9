/**
 * The commit of an apply, once every temporary file exists: the renames and
 * deletes, in the reply's order, each checked again first.
 *
 * @module
 */

import { under } from "../file_system/file_system.ts";
import { FileStepError, step } from "../file_system/file_step_error.ts";
import {
  type ApplyRun,
  isKnown,
  knownIno,
  type PlannedChange,
  refuseNonFile,
  sameFile,
} from "./apply_state.ts";
import type { FileState, PostState } from "./journal_store.ts";

/** Carries out one change, after checking its folder, its temporary file and its path again. */
export async function commitChange(run: ApplyRun, change: PlannedChange): Promise<void> {
  if (change.kind === "none") return;
  const { path } = change.operation;
  // The folder's real path, then the identity of the file in it (temporary, or deleted).
  await run.checkFolder(
    change.folder,
    change.temporary === undefined && !knownIno(change.expected),
  );
  if (change.temporary !== undefined) {
    const temporary = await run.lstat(change.temporary);
    if (temporary === null || !temporary.isFile || !sameFile(temporary, change.created)) {
      throw new FileStepError(
        `the temporary file "${change.temporary}" was removed or replaced before it was renamed`,
      );
    }
  }
  await checkExpected(run, change);
  try {
    if (change.temporary !== undefined) {
      const temporary = change.temporary;
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

/** Checks that `change`'s path holds what the plan expects (nothing, or the same regular file). */
async function checkExpected(run: ApplyRun, change: PlannedChange): Promise<void> {
  const { path } = change.operation;
  const info = await run.lstat(path);
  const expected = change.expected;
  if (info === null) {
    if (expected.kind === "missing") return;
    throw new FileStepError(`"${path}" vanished while the reply was being applied`);
  }
  refuseNonFile(path, info);
  if (expected.kind === "missing") {
    throw new FileStepError(
      `"${path}" was created by another process while the reply was being applied`,
    );
  }
  if (
    expected.kind === "file" && isKnown(expected.ino) && isKnown(info.ino) &&
    expected.ino !== info.ino
  ) {
    throw new FileStepError(
      `"${path}" was replaced by another process while the reply was being applied`,
    );
  }
}

/** The state each path touched was left in, the last change of each deciding. */
export function postStates(changes: readonly PlannedChange[]): PostState[] {
  const last = new Map<string, FileState>();
  for (const change of changes) {
    const written = change.kind === "created" || change.kind === "replaced";
    last.set(change.operation.path, written ? change.after ?? null : null);
  }
  return [...last].map(([path, after]) => ({ path, after }));
}
