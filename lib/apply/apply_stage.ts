/**
 * The staging and commit of an apply: folders, then exclusive temporary
 * siblings, checked right after each is created; then the renames and
 * deletes, in the reply's order, each checked again first.
 *
 * @module
 */

import { type FileIdentity, under } from "../file_system/file_system.ts";
import { parentFolder } from "../file_system/real_folders.ts";
import { FileStepError, step } from "../file_system/file_step_error.ts";
import { writeTemporary } from "../file_system/write_atomically.ts";
import { countLines } from "../text/diff.ts";
import type { ApplyRun, PlannedChange } from "./apply_state.ts";
import { EncodeBuffer, isKnown, knownIno, refuseNonFile, sameFile } from "./apply_state.ts";
import type { FileState, PostState } from "./journal_store.ts";

/** Makes the planned folders from the top, each checked right after it is made. */
export async function makeFolders(run: ApplyRun, changes: readonly PlannedChange[]): Promise<void> {
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
 * Writes every temporary file, at most `parallelism` at once; on the first
 * failure no more are started, and it is thrown once those in flight finish.
 */
export async function writeTemporaries(
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
        await writeOneTemporary(run, change, buffer);
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

/** Writes one change's temporary file (its text encoded into `buffer`). */
async function writeOneTemporary(
  run: ApplyRun,
  change: PlannedChange,
  buffer: EncodeBuffer,
): Promise<void> {
  const data = buffer.bytes((change.operation as { content: string | Uint8Array }).content);
  const name = change.temporary!.slice(change.folder === "" ? 0 : change.folder.length + 1);
  try {
    await writeTemporary(run.fs, run.root, change.operation.path, data, {
      name,
      mode: change.mode,
      temporaries: run.temporaries,
      onCreated: (identity) => checkCreated(run, change, identity),
    });
  } catch (error) {
    throw await run.explain(change.folder, error);
  }
  const created = change.created?.mode;
  const mode = change.mode ?? (typeof created === "number" ? created & 0o7777 : null);
  change.after = { mode, size: data.length, hash: change.hash!, lines: countLines(data) };
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
export async function commitChange(run: ApplyRun, change: PlannedChange): Promise<void> {
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
  await checkExpected(run, change);
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

/** Checks that `change`'s path holds what the plan expects (nothing, or the same regular file). */
async function checkExpected(run: ApplyRun, change: PlannedChange): Promise<void> {
  const { path } = change.operation;
  const info = await run.lstat(path);
  const { expected } = change;
  const raced = (what: string) =>
    new FileStepError(`"${path}" ${what} while the reply was being applied`);
  if (info === null) {
    if (expected.kind === "missing") return;
    throw raced("vanished");
  }
  refuseNonFile(path, info);
  if (expected.kind === "missing") throw raced("was created by another process");
  if (knownIno(expected) && isKnown(info.ino) && expected.ino !== info.ino) {
    throw raced("was replaced by another process");
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
