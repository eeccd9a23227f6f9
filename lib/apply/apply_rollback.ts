/**
 * The rollback of an apply that failed. After a folder was found swapped,
 * nothing is decided by absence: a file made counts as removed only once a
 * removal of it succeeded, so the cleanup keeps trying a while.
 *
 * @module
 */

import { setTimeout as pause } from "node:timers/promises";
import { messageOf } from "../errors/errors.ts";
import { type EntryInfo, under } from "../file_system/file_system.ts";
import { isMissing } from "../file_system/lstat.ts";
import { parentFolder } from "../file_system/real_folders.ts";
import { FileStepError } from "../file_system/file_step_error.ts";
import { removeIfPresent, writeAtomically } from "../file_system/write_atomically.ts";
import { type ApplyRun, refuseNonFile, sameFile, temporarySibling } from "./apply_state.ts";
import type { ApplyRecorder } from "./journal.ts";
import type { PreImage } from "./journal_store.ts";
import { contentHash, sameBytes } from "./content_hash.ts";

const encoder = new TextEncoder();

/**
 * The temporary sibling through which a rollback of apply `n` of `run`
 * restores `path`: the same in every process, so that the next recovery
 * removes it first should the rollback be killed before its rename. Never throws.
 */
export function rollbackTemporary(run: string, n: number, path: string): string {
  return temporarySibling(path, contentHash(encoder.encode(`rollback\0${run}\0${n}\0${path}`)));
}

/** A path that could not be restored, and why. */
export interface RollbackFailure {
  readonly path: string;
  readonly reason: string;
}

/** How long, after a folder was swapped, the cleanup keeps trying to reach a stray file. */
const STRAY_WAIT_MS = 2_000;

/**
 * Removes every temporary file, puts back every path changed (newest first)
 * from the journal's pre-images, and removes the folders made. Never
 * throws: returns the paths that could not be restored.
 */
export async function rollBack(run: ApplyRun, recorder: ApplyRecorder): Promise<RollbackFailure[]> {
  // Temporaries first: one left in a folder this reply created would keep that folder.
  const strays = await removeTemporaries(run);
  const failures: RollbackFailure[] = [];
  const restored = new Set<string>();
  for (const change of run.done.reverse()) {
    const { path } = change.operation;
    if (restored.has(path)) continue;
    restored.add(path);
    try {
      const before = await recorder.preImage(path);
      if (before === undefined) throw new FileStepError(`no copy of "${path}" was kept`);
      const created = change.created;
      if (before === null && run.swapped && created !== undefined) {
        // Through whatever `path` leads to now (a link too), once the file there is the one made.
        if (!await removeWhenFound(run, path, (info) => info.isFile && sameFile(info, created))) {
          throw new FileStepError(
            `the file this reply created there was not found since a folder on its way was ` +
              `swapped for a symbolic link or moved away: look for it where the link led`,
          );
        }
        continue;
      }
      await persist(run, async () => {
        await restore(run, path, before);
        await confirm(run, parentFolder(path), async () => await holds(run, path, before));
      });
    } catch (error) {
      // One pass: a path that cannot be restored now (a full or read-only disk) is named.
      failures.push({ path, reason: messageOf(error) });
    }
  }
  run.done.length = 0;
  // The temporary files left: those that resisted the first removal (tried again only after a
  // swap, which may be undone by now), and those a restore left.
  failures.push(...strays);
  const known = new Set(run.swapped ? [] : strays.map((stray) => stray.path));
  if ([...run.temporaries].some((temporary) => !known.has(temporary))) {
    failures.push(...await removeTemporaries(run, known));
  }
  for (const folder of [...run.created].reverse()) {
    try {
      if (run.strays.has(folder)) {
        if (!await removeWhenFound(run, folder, (info) => info.isDirectory)) {
          throw new Error("out of reach");
        }
        run.strays.delete(folder);
      } else {
        await persist(run, async () => {
          await removeIfPresent(run.fs, run.root, folder);
          await confirm(run, parentFolder(folder), async () => await run.lstat(folder) === null);
        });
      }
    } catch (error) {
      failures.push({ path: `${folder}/`, reason: messageOf(error) });
    }
  }
  // A temporary file that resisted removal twice is listed once.
  const named = new Set<string>();
  return failures.filter((failure) => !named.has(failure.path) && named.add(failure.path));
}

/** Calls `attempt` (at least once) until it returns true or `ms` pass; whether it did. */
async function keepTrying(ms: number, attempt: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (let round = 0;; round++) {
    if (await attempt()) return true;
    if (Date.now() >= deadline) return false;
    await pause(round < 50 ? 1 : 10);
  }
}

/** Runs `action`, after a swap again for a while on failure (a link may go); throws the last. */
async function persist(run: ApplyRun, action: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + (run.swapped ? STRAY_WAIT_MS : 0);
  for (let round = 0;; round++) {
    try {
      return await action();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
    await pause(round < 50 ? 1 : 10);
  }
}

/**
 * After a folder was found swapped (a removal or rename may have gone
 * elsewhere), checks that `holds()` with `folder` in place right before and
 * right after the look; nothing otherwise.
 *
 * @throws {FileStepError} when it does not hold (yet).
 */
async function confirm(
  run: ApplyRun,
  folder: string,
  holds: () => Promise<boolean>,
): Promise<void> {
  if (!run.swapped) return;
  await run.checkFolder(folder);
  const held = await holds();
  await run.checkFolder(folder);
  if (!held) throw new FileStepError(`"${folder}" keeps changing; trying again`);
}

/** Removes `path` once what is there `is` the entry made; whether it did in {@link STRAY_WAIT_MS}. */
function removeWhenFound(
  run: ApplyRun,
  path: string,
  is: (info: EntryInfo) => boolean,
): Promise<boolean> {
  return keepTrying(STRAY_WAIT_MS, async () => {
    const info = await run.lstat(path).catch(() => null);
    return info !== null && is(info) && await removeFound(run, path);
  });
}

/** Removes `path`: true once removed, false when it was not found. */
async function removeFound(run: ApplyRun, path: string): Promise<boolean> {
  try {
    await run.fs.remove(under(run.root, path));
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

/** Whether `path` holds exactly `before` (its bytes and mode, or nothing). */
async function holds(run: ApplyRun, path: string, before: PreImage): Promise<boolean> {
  const info = await run.lstat(path);
  if (before === null || info === null) return before === null && info === null;
  if (!info.isFile) return false;
  if (before.mode !== null && info.mode !== null && (info.mode & 0o7777) !== before.mode) {
    return false;
  }
  const data = await run.fs.readFile(under(run.root, path));
  return sameBytes(data, before.data);
}

/** Puts `path` back to `before`: its bytes and mode, or nothing. */
async function restore(run: ApplyRun, path: string, before: PreImage): Promise<void> {
  if (before === null) {
    await removeIfPresent(run.fs, run.root, path);
    return;
  }
  // A name the next start's recovery knows, should this process be killed before the rename.
  const temporary = run.identity === undefined
    ? undefined
    : rollbackTemporary(run.identity.run, run.identity.n, path);
  if (temporary !== undefined && await run.lstat(temporary).catch(() => null) !== null) {
    await removeIfPresent(run.fs, run.root, temporary); // left by a rollback stopped before
  }
  await writeAtomically(run.fs, run.root, path, before.data, {
    name: temporary?.slice(temporary.lastIndexOf("/") + 1),
    mode: before.mode ?? undefined,
    temporaries: run.temporaries,
    beforeRename: async () => {
      const info = await run.lstat(path);
      if (info !== null) refuseNonFile(path, info);
    },
  });
}

/**
 * Removes every temporary file left (but those in `skip`) by its exact name,
 * through whatever path reaches it now (no one else made that name); returns
 * those it could not. After a swap it keeps trying until {@link STRAY_WAIT_MS}
 * pass without one removed; otherwise one pass (a refusing disk keeps refusing).
 */
async function removeTemporaries(
  run: ApplyRun,
  skip: ReadonlySet<string> = new Set(),
): Promise<RollbackFailure[]> {
  const reasons = new Map<string, string>();
  const wait = run.swapped ? STRAY_WAIT_MS : 0;
  let deadline = Date.now() + wait;
  let pending = [...run.temporaries].filter((temporary) => !skip.has(temporary));
  for (let round = 0; pending.length > 0; round++) {
    const left: string[] = [];
    for (const temporary of pending) {
      try {
        if (await removeMade(run, temporary)) {
          run.temporaries.delete(temporary);
          continue;
        }
      } catch (error) {
        reasons.set(temporary, messageOf(error));
      }
      left.push(temporary);
    }
    if (left.length < pending.length) deadline = Date.now() + wait;
    pending = left;
    if (pending.length === 0 || Date.now() >= deadline) break;
    await pause(round < 50 ? 1 : 10);
  }
  return pending.map((temporary) => ({
    path: temporary,
    reason: reasons.get(temporary) ??
      "it was made, and was not found since (a folder on its way was swapped for a " +
        "symbolic link or moved away): it is out of reach, look for it where the link led",
  }));
}

/** Removes `temporary` when the file there is the one made; false while it is not found. */
async function removeMade(run: ApplyRun, temporary: string): Promise<boolean> {
  const info = await run.lstat(temporary);
  if (info === null || !info.isFile) return false;
  const identity = run.identities.get(temporary);
  if (identity !== undefined && !sameFile(info, identity)) return false;
  if (!await removeFound(run, temporary)) return false;
  run.identities.delete(temporary);
  return true;
}
