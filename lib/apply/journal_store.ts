/**
 * The apply journal's folder, read and tidied: the run and the applies
 * found there ({@link readJournal}), their pre-images, the removal of what
 * no longer serves, and the small synchronous file helpers the recorder and
 * the run's journal write with (the journal's files are small or written
 * once). The format is `journal_schema.ts`'s.
 *
 * @module
 */

import type { z } from "zod";
import { messageOf } from "../errors/errors.ts";
import { readBounded } from "../file_system/bounded_read.ts";
import { denoFileSystem, under } from "../file_system/file_system.ts";
import { READ_LIMITS, type ReadLimit } from "../file_system/read_limits.ts";
import { lstatSyncOrUndefined } from "../file_system/lstat.ts";
import { syncPathSync, writeAtomically } from "../file_system/write_atomically.ts";
import {
  applyFiles,
  type ApplyRecord,
  doneHeader,
  DoneHeaderSchema,
  type DoneRecord,
  DoneSchema,
  JOURNAL_DIR,
  JournalError,
  NEXT_RUN_FILE,
  type PreImage,
  recordHeader,
  RecordHeaderSchema,
  RecordSchema,
  RUN_FILE,
  type RunHeader,
  RunSchema,
} from "./journal_schema.ts";

/** How much of the journal {@link readJournal} reads. */
export interface ReadJournalOptions {
  /**
   * `"marks"`: of a completed apply, only what says which run and apply it
   * belongs to (the header of its record and of its mark): its `record`
   * then has no entries, folders or temporaries, and its `done` no post
   * states. For recovery, which acts on no completed apply: checking a
   * big record in full would slow every start after a big run.
   * Default `"whole"`.
   */
  readonly completed?: "whole" | "marks";
}

/** One apply found in the journal folder. */
export interface StoredApply {
  /** Its number in the run. */
  readonly n: number;
  /** What it was about to do. */
  readonly record: ApplyRecord;
  /** Its completion mark; undefined when it did not complete. */
  readonly done: DoneRecord | undefined;
}

/** The journal as found on disk. */
export interface StoredJournal {
  /** The folder, absolute. */
  readonly dir: string;
  /** The run the applies belong to; undefined when there is none. */
  readonly run: RunHeader | undefined;
  /** A newer run none of whose applies has completed; undefined when none. */
  readonly pending?: RunHeader | undefined;
  /**
   * The run's header is still `next-run.json`: its first apply completed
   * but the process stopped before the header was renamed ({@link
   * promotePending} finishes that).
   */
  readonly unrenamed?: boolean;
  /** The applies of both runs (each record names its run), oldest first. */
  readonly applies: readonly StoredApply[];
}

/** The journal's folder under `root`, absolute or as `root` is given. Never throws. */
export function journalDir(root: string): string {
  return under(root, JOURNAL_DIR);
}

/**
 * Reads the journal of the project at `root`: its run and every apply with
 * a record, in order. Files that belong to no apply of the run (another
 * run's, or left half-written by a crash) are ignored here; {@link
 * tidyJournal} removes them. `agent-config` may be a symbolic link (as the
 * keys may be kept elsewhere), but `journal/` in it must be a real folder.
 *
 * @throws {JournalError} when `journal` is not a real folder, or a record
 * cannot be read or is not what code-commit writes (edited by hand?; with
 * `completed: "marks"`, only the header of a completed apply's record and
 * mark is checked).
 */
export async function readJournal(
  root: string,
  options: ReadJournalOptions = {},
): Promise<StoredJournal> {
  const dir = journalDir(root);
  const info = inspect(dir);
  if (info === undefined) return { dir, run: undefined, applies: [] };
  if (!info.isDirectory) {
    throw new JournalError(
      `${JOURNAL_DIR} is ${info.isSymlink ? "a symbolic link" : "not a folder"}; code-commit ` +
        `keeps its apply journal only in a real folder there: move it away`,
    );
  }
  const names = listNames(dir);
  const run = names.has(RUN_FILE)
    ? await parseJson(dir, RUN_FILE, RunSchema) as RunHeader | undefined
    : undefined;
  const pending = names.has(NEXT_RUN_FILE)
    ? await parseJson(dir, NEXT_RUN_FILE, RunSchema) as RunHeader | undefined
    : undefined;
  const ids = new Set([run?.id, pending?.id].filter((id) => id !== undefined));
  const applies: StoredApply[] = [];
  if (ids.size > 0) {
    const numbers = [...names].map((name) => /^apply-([1-9][0-9]{0,8})\.record$/.exec(name))
      .filter((match) => match !== null).map((match) => Number(match![1])).sort((a, b) => a - b);
    for (const n of numbers) {
      const files = applyFiles(n);
      const marks = options.completed === "marks" && names.has(files.done);
      let record = marks
        ? recordHeader(await parseJson(dir, files.record, RecordHeaderSchema))
        : await parseJson(dir, files.record, RecordSchema) as ApplyRecord;
      if (!ids.has(record.run) || record.apply !== n) continue;
      let done: DoneRecord | undefined;
      if (names.has(files.done)) {
        done = marks
          ? doneHeader(await parseJson(dir, files.done, DoneHeaderSchema))
          : await parseJson(dir, files.done, DoneSchema) as DoneRecord;
        if (done.run !== record.run || done.apply !== n) done = undefined;
      }
      // Not completed after all (its mark is another run's): its record is read whole.
      if (marks && done === undefined) {
        record = await parseJson(dir, files.record, RecordSchema) as ApplyRecord;
      }
      applies.push({ n, record, done });
    }
  }
  // A pending run with a completed apply replaced the previous run (killed before its header
  // was renamed): it is the run.
  if (pending !== undefined && applies.some((a) => a.record.run === pending.id && a.done)) {
    return { dir, run: pending, applies, unrenamed: true };
  }
  return { dir, run, pending, applies };
}

/**
 * Reads the pre-image `entry` names from the packs of apply `n` in
 * `journal` (`packs` caches each pack read whole).
 *
 * @throws {JournalError} when the pack is missing or shorter than the record says.
 */
export async function readPreImage(
  dir: string,
  n: number,
  before: ApplyRecord["entries"][number]["before"],
  packs: Map<string, Uint8Array> = new Map(),
): Promise<PreImage> {
  if (before === null) return null;
  const name = before.pack === "first" ? applyFiles(n).first : applyFiles(n).again;
  let pack = packs.get(name);
  if (pack === undefined) {
    pack = await readFileChecked(dir, name, READ_LIMITS.journalPack);
    packs.set(name, pack);
  }
  if (before.offset + before.size > pack.length) {
    throw new JournalError(
      `${JOURNAL_DIR}/${name} is shorter than its record says (was it cut off or edited?)`,
    );
  }
  return { data: pack.subarray(before.offset, before.offset + before.size), mode: before.mode };
}

/**
 * Removes from the journal folder whatever no longer serves: the files of
 * every run but `keep` and `stored.pending` (all of them when both are
 * undefined), their applies not in `stored.applies`, half-made files of an
 * interrupted record (`*.tmp`), the `again` packs of completed applies,
 * and the packs of an apply with no record. Never throws: what cannot be
 * removed stays.
 */
export function tidyJournal(stored: StoredJournal, keep: RunHeader | undefined): void {
  const names = listNamesQuietly(stored.dir);
  const kept = new Set<string>();
  const runs = new Set<string>();
  if (keep !== undefined && stored.run?.id === keep.id) {
    kept.add(stored.unrenamed === true ? NEXT_RUN_FILE : RUN_FILE);
    runs.add(keep.id);
  }
  if (stored.pending !== undefined) {
    kept.add(NEXT_RUN_FILE);
    runs.add(stored.pending.id);
  }
  for (const apply of stored.applies) {
    if (!runs.has(apply.record.run)) continue;
    const files = applyFiles(apply.n);
    kept.add(files.record);
    kept.add(files.first);
    if (apply.done === undefined) kept.add(files.again);
    else kept.add(files.done);
  }
  for (const name of names) {
    if (!kept.has(name)) removeQuietly(`${stored.dir}/${name}`);
  }
}

/** Removes every file of apply `n` (its record first, so no record names a removed pack). Never throws. */
export function forgetApply(dir: string, n: number): void {
  const files = applyFiles(n);
  removeQuietly(`${dir}/${files.record}`);
  removeQuietly(`${dir}/${files.done}`);
  removeQuietly(`${dir}/${files.first}`);
  removeQuietly(`${dir}/${files.again}`);
}

/**
 * Marks `run` undone in the journal at `dir` and removes its applies: it
 * cannot be undone twice.
 *
 * @throws {JournalError} when the header cannot be written.
 */
export async function markUndone(stored: StoredJournal, run: RunHeader, at: Date): Promise<void> {
  try {
    await writeJson(stored.dir, RUN_FILE, { ...run, undoneAt: at.toISOString() });
  } catch (error) {
    throw new JournalError(
      `cannot mark the run undone in ${JOURNAL_DIR}/: ${messageOf(error)}`,
      { cause: error },
    );
  }
  for (const apply of stored.applies) {
    if (apply.record.run === run.id) forgetApply(stored.dir, apply.n);
  }
}

/**
 * Makes the pending run of the journal at `dir` its run: renames
 * `next-run.json` over `run.json` and syncs the folder. The previous run's
 * files then belong to no run ({@link tidyJournal} removes them).
 *
 * @throws the file system's error.
 */
export function promotePending(dir: string): void {
  Deno.renameSync(`${dir}/${NEXT_RUN_FILE}`, `${dir}/${RUN_FILE}`);
  syncPathSync(dir);
}

/** Removes the pending run's header (its applies go with the next tidy). Never throws. */
export function dropPending(dir: string): void {
  removeQuietly(`${dir}/${NEXT_RUN_FILE}`);
}

/**
 * What is at `path` (no link followed), or undefined when nothing is.
 *
 * @throws {JournalError} when it cannot be inspected.
 */
export function inspect(path: string): Deno.FileInfo | undefined {
  try {
    return lstatSyncOrUndefined(path);
  } catch (error) {
    throw new JournalError(`cannot inspect ${JOURNAL_DIR}: ${messageOf(error)}`, { cause: error });
  }
}

/**
 * The names in the folder `dir`.
 *
 * @throws {JournalError} when it cannot be listed.
 */
export function listNames(dir: string): Set<string> {
  try {
    return new Set([...Deno.readDirSync(dir)].map((entry) => entry.name));
  } catch (error) {
    throw new JournalError(`cannot list ${JOURNAL_DIR}: ${messageOf(error)}`, { cause: error });
  }
}

/** The names in the folder `dir`; none when it cannot be listed. Never throws. */
export function listNamesQuietly(dir: string): string[] {
  try {
    return [...Deno.readDirSync(dir)].map((entry) => entry.name);
  } catch {
    return [];
  }
}

/**
 * Reads the regular file `name` of `dir` with the one bounded read, at most
 * `limit`. `agent-config` may be a link kept elsewhere, so the file is
 * reached through it: a final link is refused first, and the bounded read
 * then checks what it opens.
 */
async function readFileChecked(dir: string, name: string, limit: ReadLimit): Promise<Uint8Array> {
  const path = `${dir}/${name}`;
  try {
    const info = lstatSyncOrUndefined(path);
    if (info === undefined) throw new Deno.errors.NotFound("it is gone");
    if (!info.isFile) throw new Error("not a regular file");
    const bytes = await readBounded(path, {
      limit,
      followSymlink: true,
      name: `${JOURNAL_DIR}/${name}`,
    });
    if (bytes === undefined) throw new Deno.errors.NotFound("it is gone");
    return bytes;
  } catch (error) {
    throw new JournalError(
      `cannot read ${JOURNAL_DIR}/${name}: ${messageOf(error)}`,
      { cause: error },
    );
  }
}

/**
 * Reads `dir/name` (at most the journal record's read limit) and checks
 * its JSON against `schema`.
 *
 * @throws {JournalError} when it cannot be read or is not what code-commit writes.
 */
export async function parseJson<T extends z.ZodTypeAny>(
  dir: string,
  name: string,
  schema: T,
): Promise<z.infer<T>> {
  const bytes = await readFileChecked(dir, name, READ_LIMITS.journalRecord);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    json = undefined;
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new JournalError(
      `${JOURNAL_DIR}/${name} is not a journal file code-commit wrote (was it edited?); ` +
        `remove ${JOURNAL_DIR}/ if you are sure no apply was interrupted`,
    );
  }
  return parsed.data;
}

/**
 * Writes `value` as JSON to `dir/name` with the one atomic write; with
 * `sync`, the file is flushed to disk before the rename and the folder
 * after it.
 *
 * @throws the atomic write's `FileStepError`.
 */
export function writeJson(dir: string, name: string, value: unknown, sync = false): Promise<void> {
  const data = new TextEncoder().encode(`${JSON.stringify(value)}\n`);
  return writeAtomically(denoFileSystem, dir, name, data, { sync });
}

/** Removes `path`; a failure leaves it for the next tidy. Never throws. */
export function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // gone already, or left for the next tidy
  }
}
