/**
 * Crash recovery, first thing in every workflow: an apply that never
 * completed is rolled back, but only over states it could have left itself
 * (unless forced); its record goes only once the rollback is complete.
 *
 * @module
 */

import { messageOf } from "../errors/errors.ts";
import { FileReadError, readBounded } from "../file_system/bounded_read.ts";
import { denoFileSystem as fs, under } from "../file_system/file_system.ts";
import { isMissing } from "../file_system/lstat.ts";
import { removeIfPresent } from "../file_system/write_atomically.ts";
import { formatUtc } from "../text/numbers.ts";
import { plural } from "../text/plural.ts";
import { nameSome } from "../text/change_list.ts";
import { ApplyError, type ApplyOperation, applyOperations } from "./apply.ts";
import { rollbackTemporary } from "./apply_state.ts";
import { contentHash, sameBytes } from "./content_hash.ts";
import { type ChangedSince, describeChanges, restoreOperation } from "./undo.ts";
import type { IntendedState, PreImage, StoredApply, StoredJournal } from "./journal_store.ts";
import {
  completedOf,
  forgetApply,
  JournalError,
  journalFailure,
  markUndone,
  NEXT_RUN_FILE,
  promotePending,
  readJournal,
  readPreImage,
  removeQuietly,
  tidyJournal,
} from "./journal_store.ts";

/**
 * Rolls back every apply of the project at `root` that did not complete
 * (newest first), tidies the journal, and tells `say` what it rolled back;
 * `force` (`--undo --force`) restores paths changed since too. Returns
 * whether it rolled anything back.
 *
 * @throws {JournalError} when the journal cannot be read; when a path
 * changed since and not `force` (nothing restored); or when the rollback
 * cannot be completed (naming the paths to restore by hand).
 */
export async function recoverFirst(
  root: string,
  say: (line: string) => void,
  options: { readonly force?: boolean } = {},
): Promise<boolean> {
  // Completed applies are only kept (tidied), never acted on: their marks suffice.
  const stored = await readJournal(root, { completed: "marks" });
  const incomplete = stored.applies.filter((apply) => apply.done === undefined).reverse();
  let restored = 0;
  const overwritten: ChangedSince[] = [];
  for (const apply of incomplete) {
    const done = await rollBack(root, stored, apply, options.force === true);
    restored += done.restored;
    overwritten.push(...done.overwritten);
    forgetApply(stored.dir, apply.n);
  }
  const settled = settleRuns(stored);
  const finished = await finishUndo(root, settled);
  if (settled.run !== undefined || stored.pending !== undefined || stored.applies.length > 0) {
    // The journal now holds the completed applies alone (the others were forgotten above),
    // of its run only (a pending run with none completed is dropped), none once undone.
    const run = settled.run;
    const kept = run?.undoneAt === undefined ? completedOf(settled, run) : [];
    tidyJournal({ ...settled, pending: undefined, applies: kept }, run);
  }
  if (incomplete.length > 0) {
    const forced = overwritten.length === 0
      ? ""
      : `, ${overwritten.length} of them over changes made since (--force): ${
        describeChanges(overwritten)
      }`;
    say(
      `recovered from an interrupted ${describeApply(stored, incomplete[0])}: rolled back ${
        plural(restored, "path")
      } it had changed${forced}, so the project is exactly as it was before that apply`,
    );
  }
  if (finished !== undefined) say(finished);
  return incomplete.length > 0 || finished !== undefined;
}

/**
 * Settles the runs once no apply is incomplete: a pending run with a completed
 * apply becomes the run, one without is dropped. Throws a {@link JournalError}.
 */
function settleRuns(stored: StoredJournal): StoredJournal {
  if (stored.unrenamed === true) {
    try {
      promotePending(stored.dir);
    } catch (error) {
      throw journalFailure(
        "cannot finish recording the last run in agent-config/journal/",
        error,
        "; make the disk writable, then run code-commit again",
      );
    }
    return { ...stored, unrenamed: false };
  }
  if (stored.pending !== undefined) removeQuietly(`${stored.dir}/${NEXT_RUN_FILE}`);
  return { ...stored, pending: undefined };
}

/**
 * Finishes a `--undo` stopped after its apply completed: removes the empty
 * folders the run made, marks it undone, returns the line saying so.
 */
async function finishUndo(root: string, stored: StoredJournal): Promise<string | undefined> {
  const run = stored.run;
  if (run === undefined || run.undoneAt !== undefined) return undefined;
  if (!completedOf(stored, run).some((apply) => apply.record.kind === "undo")) return undefined;
  // The folders are in the records of the run's replies, read whole now.
  const whole = await readJournal(root);
  const folders = new Set(
    completedOf(whole, run).flatMap(({ record }) => record.kind === "reply" ? record.folders : []),
  );
  let removed = 0;
  for (const folder of [...folders].reverse()) {
    try {
      if (await removeEmptyFolder(root, folder)) removed++;
    } catch {
      // Left in place, as --undo leaves a folder it cannot remove.
    }
  }
  await markUndone(whole, run);
  return `finished an interrupted code-commit --undo of the ${run.workflow} run started ${
    formatUtc(run.startedAt)
  }: its files were restored already; ${
    plural(removed, "empty folder")
  } it had made removed, and the run is marked undone`;
}

/** The apply, as messages name it: `apply of the committing code run started … (logs in …)`. */
function describeApply(stored: StoredJournal, apply: StoredApply): string {
  if (apply.record.kind === "undo") return "code-commit --undo";
  const run = stored.pending?.id === apply.record.run ? stored.pending : stored.run;
  return `apply of the ${run?.workflow ?? "code-commit"} run started ${
    run?.startedAt ?? "earlier"
  }${apply.record.logDir === undefined ? "" : ` (logs in ${apply.record.logDir})`}`;
}

/**
 * Puts every path `apply` touched back to its pre-image, removes its
 * temporary files and folders; returns how many paths it changed, and those
 * restored over changes made since (`force`; otherwise a {@link JournalError}).
 */
async function rollBack(
  root: string,
  stored: StoredJournal,
  apply: StoredApply,
  force: boolean,
): Promise<{ restored: number; overwritten: ChangedSince[] }> {
  const packs = new Map<string, Uint8Array>();
  const operations: ApplyOperation[] = [];
  const changed: ChangedSince[] = [];
  let unrecorded = false;
  for (const entry of apply.record.entries) {
    const before = await readPreImage(stored.dir, apply.n, entry.before, packs);
    // A record of an older code-commit does not say what the apply meant to write.
    if (entry.intended === undefined) unrecorded = true;
    const intended = entry.intended ?? [];
    // A file larger than any state the apply could have left is not read.
    const limit = Math.max(before?.data.length ?? 0, ...intended.map((state) => state?.size ?? 0));
    const now = await currentState(root, entry.path, limit);
    const how = changeSince(now, before, intended);
    if (how !== undefined) changed.push({ path: entry.path, how });
    const differs = before === null
      ? now !== null
      : now === null || "other" in now || !sameContent(now, before);
    if (differs) operations.push(restoreOperation(entry.path, before));
  }
  if (changed.length > 0 && !force) {
    throw new JournalError(
      `an interrupted ${describeApply(stored, apply)} left ${plural(changed.length, "path")} that ${
        changed.length === 1 ? "has" : "have"
      } changed since: ${describeChanges(changed)}${
        unrecorded
          ? " (its record, written by an older code-commit, does not say what the apply " +
            "meant to write, so any change from before it counts)"
          : ""
      }; nothing was restored. Save what you want to keep, then run code-commit --undo ` +
        "--force to roll that apply back anyway (what changed since is lost; it also takes " +
        "back the rest of that run), or remove agent-config/journal/ to keep the project as it " +
        "is (that run can then not be undone)",
    );
  }

  const failures: string[] = [];
  // The apply's temporary files, and those of a rollback of it that was stopped halfway.
  const rollbackName = (path: string) => rollbackTemporary(apply.record.run, apply.n, path);
  const temporaries = [
    ...apply.record.temporaries,
    ...apply.record.entries.map((entry) => rollbackName(entry.path)),
  ];
  for (const temporary of temporaries) {
    try {
      // Looked at first: a read-only disk refuses even the removal of a name that is not there.
      if (await fs.lstat(under(root, temporary)).then(() => false, isMissing)) continue;
      await removeIfPresent(fs, root, temporary);
    } catch (error) {
      failures.push(`${temporary} (${messageOf(error)})`);
    }
  }
  // The restore is all or nothing: when it cannot be made, every path is still to restore.
  let unrestored: string | undefined;
  if (failures.length > 0) unrestored = "its temporary files could not be removed first";
  else if (operations.length > 0) {
    try {
      await applyOperations(root, operations, { temporaryName: rollbackName });
    } catch (error) {
      unrestored = messageOf(error instanceof ApplyError ? error.cause ?? error : error);
    }
  }
  const paths = unrestored === undefined ? [] : operations.map((operation) => operation.path);
  for (const folder of [...apply.record.folders].reverse()) {
    try {
      await removeEmptyFolder(root, folder);
    } catch (error) {
      failures.push(`${folder}/ (${messageOf(error)})`);
    }
  }
  if (paths.length > 0 || failures.length > 0) {
    throw new JournalError(
      `an apply was interrupted (${stored.dir}), and code-commit could not finish rolling it ` +
        `back: ${
          paths.length === 0
            ? ""
            : `${plural(paths.length, "path")} not restored (${unrestored}): ${nameSome(paths)}; `
        }${failures.length === 0 ? "" : `left: ${nameSome(failures)}; `}the journal keeps ` +
        "what every path held: once the disk takes writes again, run code-commit again (any " +
        "command); it tries the rollback again first. Or restore these by hand (git status, " +
        "git diff)",
    );
  }
  return { restored: operations.length, overwritten: changed };
}

/** What is at a path now: a regular file's bytes and mode, null when nothing, or something else. */
type CurrentState =
  | { readonly data: Uint8Array; readonly mode: number | null }
  | null
  | { readonly other: "not-a-file" | "too-large" | "unreadable" };

/** What is at `path` now (a regular file larger than `limit` is not read). */
async function currentState(root: string, path: string, limit: number): Promise<CurrentState> {
  let info;
  try {
    info = await fs.lstat(under(root, path));
  } catch (error) {
    return isMissing(error) ? null : { other: "unreadable" };
  }
  if (!info.isFile) return { other: "not-a-file" };
  try {
    const data = await readBounded(under(root, path), {
      limit: { bytes: limit, what: "a file an interrupted apply touched" },
      followSymlink: false,
      name: path,
    });
    if (data === undefined) return null;
    return { data, mode: info.mode === null ? null : info.mode & 0o7777 };
  } catch (error) {
    if (error instanceof FileReadError && error.problem === "too-large") {
      return { other: "too-large" };
    }
    return { other: "unreadable" };
  }
}

/**
 * How `now` differs from every state the apply could have left (`before`, or
 * one of `intended`, whose null mode takes any); undefined when it is one.
 */
function changeSince(
  now: CurrentState,
  before: PreImage,
  intended: readonly IntendedState[],
): string | undefined {
  if (now === null) {
    return before === null || intended.includes(null) ? undefined : "removed";
  }
  const files = intended.filter((state) => state !== null);
  const edited = before === null && files.length === 0 ? "created" : "edited";
  if ("other" in now) {
    if (now.other === "too-large") return edited;
    if (now.other === "unreadable") return "cannot be read";
    return "no longer a regular file";
  }
  if (before !== null && sameContent(now, before)) return undefined;
  let hash: string | undefined;
  let bytesMatch = before !== null && sameBytes(now.data, before.data);
  for (const state of files) {
    if (state.size !== now.data.length) continue;
    hash ??= contentHash(now.data);
    if (state.hash !== hash) continue;
    if (state.mode === null || state.mode === now.mode) return undefined;
    bytesMatch = true;
  }
  return bytesMatch ? "permissions changed" : edited;
}

/** Whether `now` is exactly `before`: the same bytes, and the same mode where `before` has one. */
function sameContent(
  now: { data: Uint8Array; mode: number | null },
  before: { data: Uint8Array; mode: number | null },
): boolean {
  return (before.mode === null || now.mode === before.mode) && sameBytes(now.data, before.data);
}

/** Removes `folder` if it is there and empty; returns whether it did. */
async function removeEmptyFolder(root: string, folder: string): Promise<boolean> {
  try {
    const info = await fs.lstat(under(root, folder)).catch(() => undefined);
    if (info === undefined || !info.isDirectory) return false;
    await removeIfPresent(fs, root, folder);
    return true;
  } catch (error) {
    // Not empty: something else lives there now; leave it.
    if (error instanceof Deno.errors.NotFound) return false;
    const code = (error as { code?: string }).code;
    if (code === "ENOTEMPTY" || /not empty/i.test(messageOf(error))) return false;
    throw error;
  }
}
