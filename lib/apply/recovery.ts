/**
 * Crash recovery: every workflow, first thing, looks in the apply journal
 * for an apply that began but never completed (the process was killed, the
 * machine lost power) and rolls it back, so the project is exactly as it
 * was before that apply: every path it touched gets back what it held,
 * its temporary files and the folders it made are removed.
 *
 * The rollback is itself an apply (kept in memory): it changes a path only
 * when it differs from what it held, and it never writes through a link.
 * The journal's record is removed only once the rollback is complete, so a
 * rollback that is interrupted in turn is simply done again.
 *
 * @module
 */

import { messageOf } from "../errors/errors.ts";
import { denoFileSystem, type FileSystem, under } from "../file_system/file_system.ts";
import { removeIfPresent } from "../file_system/write_atomically.ts";
import { plural } from "../text/plural.ts";
import { type ApplyOperation, applyOperations } from "./apply.ts";
import {
  forgetApply,
  JournalError,
  memoryJournal,
  readJournal,
  readPreImage,
  type StoredApply,
  type StoredJournal,
  tidyJournal,
} from "./journal.ts";

/** What a recovery did. */
interface Recovery {
  /** One line for the user saying what was rolled back; undefined when nothing was. */
  readonly line: string | undefined;
}

/**
 * Rolls back every apply of the project at `root` that did not complete
 * (newest first), and tidies the journal. Returns the line to show when it
 * rolled anything back.
 *
 * @throws {JournalError} when the journal cannot be read, or the rollback
 * cannot be completed (naming the paths to restore by hand).
 */
async function recoverInterruptedApply(
  root: string,
  fs: FileSystem = denoFileSystem,
): Promise<Recovery> {
  const stored = await readJournal(root);
  const incomplete = stored.applies.filter((apply) => apply.done === undefined).reverse();
  let restored = 0;
  for (const apply of incomplete) {
    restored += await rollBack(root, stored, apply, fs);
    forgetApply(stored.dir, apply.n);
  }
  if (stored.run !== undefined || stored.applies.length > 0) {
    tidyJournal(await readJournal(root), stored.run);
  }
  if (incomplete.length === 0) return { line: undefined };
  const last = incomplete[0];
  const what = last.record.kind === "undo"
    ? "an interrupted code-commit --undo"
    : `an interrupted apply of the ${stored.run?.workflow ?? "code-commit"} run started ${
      stored.run?.startedAt ?? "earlier"
    }${last.record.logDir === undefined ? "" : ` (logs in ${last.record.logDir})`}`;
  return {
    line: `recovered from ${what}: rolled back ${
      plural(restored, "path")
    } it had changed, so the project is exactly as it was before that apply`,
  };
}

/**
 * {@link recoverInterruptedApply}, telling `say` the one line about it when
 * it rolled anything back: what every workflow does first.
 *
 * @throws {JournalError} as {@link recoverInterruptedApply} does.
 */
export async function recoverFirst(root: string, say: (line: string) => void): Promise<void> {
  const recovery = await recoverInterruptedApply(root);
  if (recovery.line !== undefined) say(recovery.line);
}

/**
 * Puts every path `apply` touched back to its pre-image, removes its
 * temporary files and the folders it made. Returns how many paths it changed.
 */
async function rollBack(
  root: string,
  stored: StoredJournal,
  apply: StoredApply,
  fs: FileSystem,
): Promise<number> {
  const failures: string[] = [];
  for (const temporary of apply.record.temporaries) {
    try {
      await removeIfPresent(fs, root, temporary);
    } catch (error) {
      failures.push(`${temporary} (${messageOf(error)})`);
    }
  }
  const packs = new Map<string, Uint8Array>();
  const operations: ApplyOperation[] = [];
  for (const entry of apply.record.entries) {
    const before = await readPreImage(stored.dir, apply.n, entry.before, packs);
    const now = await currentState(fs, root, entry.path);
    if (before === null) {
      if (now !== null) operations.push({ kind: "delete", path: entry.path });
    } else if (now === null || !sameContent(now, before)) {
      operations.push({
        kind: "write",
        path: entry.path,
        content: before.data,
        ...(before.mode === null ? {} : { mode: before.mode }),
      });
    }
  }
  if (failures.length === 0 && operations.length > 0) {
    try {
      await applyOperations(root, operations, { fs, journal: memoryJournal() });
    } catch (error) {
      failures.push(messageOf(error));
    }
  }
  for (const folder of [...apply.record.folders].reverse()) {
    try {
      await removeEmptyFolder(fs, root, folder);
    } catch (error) {
      failures.push(`${folder}/ (${messageOf(error)})`);
    }
  }
  if (failures.length > 0) {
    throw new JournalError(
      `an apply was interrupted (${stored.dir}), and code-commit could not finish rolling it ` +
        `back: ${failures.join("; ")}. Restore these by hand (git status, git diff), then run ` +
        "code-commit again; it tries the rollback again first",
    );
  }
  return operations.length;
}

/**
 * What is at `path` now: a regular file's bytes and mode, null when
 * nothing, `other` for anything else (which the rollback's apply refuses).
 */
async function currentState(
  fs: FileSystem,
  root: string,
  path: string,
): Promise<{ data: Uint8Array; mode: number | null } | null | "other"> {
  let info;
  try {
    info = await fs.lstat(under(root, path));
  } catch {
    return null;
  }
  if (!info.isFile) return "other";
  const data = await fs.readFile(under(root, path));
  return { data, mode: info.mode === null ? null : info.mode & 0o7777 };
}

/** Whether `now` is exactly `before`: the same bytes, and the same mode where `before` has one. */
function sameContent(
  now: { data: Uint8Array; mode: number | null } | "other",
  before: { data: Uint8Array; mode: number | null },
): boolean {
  if (now === "other") return false;
  if (before.mode !== null && now.mode !== before.mode) return false;
  if (now.data.length !== before.data.length) return false;
  for (let i = 0; i < now.data.length; i++) if (now.data[i] !== before.data[i]) return false;
  return true;
}

/** Removes the folder `folder` if it is there and empty; a folder holding anything stays. */
async function removeEmptyFolder(fs: FileSystem, root: string, folder: string): Promise<void> {
  try {
    await removeIfPresent(fs, root, folder);
  } catch (error) {
    // Not empty: something else lives there now; leave it.
    if (error instanceof Deno.errors.NotFound) return;
    const code = (error as { code?: string }).code;
    if (code === "ENOTEMPTY" || /not empty/i.test(messageOf(error))) return;
    throw error;
  }
}
