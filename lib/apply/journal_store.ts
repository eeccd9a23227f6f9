/**
 * The apply journal's format and folder, `agent-config/journal/`: per apply,
 * packs of pre-images, a record synced before any write and a completion mark;
 * `run.json` names the run (`next-run.json` a run with no apply complete yet).
 *
 * @module
 */

import { z } from "zod";
import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import { readBounded } from "../file_system/bounded_read.ts";
import { denoFileSystem, under } from "../file_system/file_system.ts";
import { lstatSyncOrUndefined } from "../file_system/lstat.ts";
import { READ_LIMITS, type ReadLimit } from "../file_system/read_limits.ts";
import { isTemporaryName } from "../file_system/temporary_name.ts";
import { syncPathSync, writeAtomically } from "../file_system/write_atomically.ts";
import { checkPathSyntax } from "../guard/path_syntax.ts";
import { protectedRulesFor } from "../guard/protected_paths.ts";

/** The journal's folder, relative to the root: never writable by a reply, hidden from builds. */
export const JOURNAL_DIR = "agent-config/journal";

/**
 * What a path held: its bytes and mode, or `null` when nothing was there. Only
 * paths a reply may write are kept, never `agent-config/` (so never a key).
 */
export type PreImage = { readonly data: Uint8Array; readonly mode: number | null } | null;

/** The run's header. */
export const RUN_FILE = "run.json";
/** The header of a run whose first apply has not completed. */
export const NEXT_RUN_FILE = "next-run.json";

/** A run's header (`id` random per run; `undoneAt` set once `--undo` took it back). */
export const RunSchema = z.object({
  version: z.literal(1),
  id: z.string().min(1),
  workflow: z.string(),
  startedAt: z.string(),
  undoneAt: z.string().optional(),
}).strict();

/** A run's header. */
export type RunHeader = z.infer<typeof RunSchema>;

const relativePath = z.string().refine((path) => plainPath(path), "not a plain project path");
const size = z.number().int().nonnegative();
const mode = size.nullable();

const IntendedObject = z.object({ mode, size, hash: z.string().regex(/^[0-9a-f]{16}$/) })
  .strict();

/**
 * A state an apply means to leave a path in: `null` (a delete), or a file's
 * mode (`null`: the file system's), size and {@link contentHash}.
 */
export type IntendedState = z.infer<typeof IntendedObject> | null;

const StateSchema = IntendedObject.extend({ lines: size }).nullable();

/** The state an apply left a file in (its line count too), as `--undo` checks it; null: none. */
export type FileState = z.infer<typeof StateSchema>;

/** The state an apply left one path in. */
export interface PostState {
  readonly path: string;
  readonly after: FileState;
}

/** One apply's record: what it is about to do (`intended` is absent in an older record). */
export const RecordSchema = z.object({
  version: z.literal(1),
  run: z.string(),
  apply: z.number().int().positive(),
  kind: z.enum(["reply", "undo"]),
  logDir: z.string().optional(),
  entries: z.array(
    z.object({
      path: relativePath,
      before: z.object({ mode, size, pack: z.enum(["first", "again"]), offset: size }).strict()
        .nullable(),
      intended: z.array(IntendedObject.nullable()).optional(),
    }).strict(),
  ),
  folders: z.array(relativePath),
  temporaries: z.array(z.string().refine(temporaryPath, "not a temporary file's path")),
}).strict();

/** One apply's record. */
export type ApplyRecord = z.infer<typeof RecordSchema>;

/** One completed apply's mark: the state it left each path in. */
export const DoneSchema = z.object({
  version: z.literal(1),
  run: z.string(),
  apply: z.number().int().positive(),
  post: z.array(z.object({ path: relativePath, after: StateSchema }).strict()),
}).strict();

/** One completed apply's mark. */
export type DoneRecord = z.infer<typeof DoneSchema>;

// What says which run and apply a record or mark belongs to, and what it was (the rest unchecked).
const RecordHeaderSchema = RecordSchema.omit({ entries: true, folders: true, temporaries: true })
  .strip();
const DoneHeaderSchema = DoneSchema.omit({ post: true }).strip();

/**
 * A path the journal may name: plain and not protected (a journal edited by
 * hand can never make a rollback write `build.sh` or `agent-config/`), but
 * for `agent-state/`, which code-commit's own runs change. Never throws.
 */
function plainPath(path: string): boolean {
  return checkPathSyntax(path) === undefined && !path.startsWith("./") &&
    protectedRulesFor(path).every((rule) => rule.name === STATE_DIR);
}

/** code-commit's own state (the specification cache), which its runs record as they change it. */
export const STATE_DIR = "agent-state";

/** A temporary file's path: a plain folder, then `.<name>.code-commit-<16 hex>.tmp`. */
function temporaryPath(path: string): boolean {
  const slash = path.lastIndexOf("/");
  return isTemporaryName(path.slice(slash + 1)) && (slash < 0 || plainPath(path.slice(0, slash)));
}

/** The names of the files of apply `n` in the journal folder. */
export function applyFiles(n: number): Record<"record" | "done" | "first" | "again", string> {
  const name = (suffix: string) => `apply-${n}.${suffix}`;
  return { record: name("record"), done: name("done"), first: name("first"), again: name("again") };
}

/** The journal could not be read or written. Exit status 3 (`EXIT.setup`). */
export class JournalError extends CodeCommitError {
  /** Makes the error; `message` is the whole user-facing line. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, EXIT.setup, options);
    this.name = "JournalError";
  }
}

/** The {@link JournalError} saying `what` failed, the system's reason, then `tail`. */
export function journalFailure(what: string, error: unknown, tail = ""): JournalError {
  return new JournalError(`${what}: ${messageOf(error)}${tail}`, { cause: error });
}

/** One apply found in the journal folder: its record, and its mark when it completed. */
export interface StoredApply {
  readonly n: number;
  readonly record: ApplyRecord;
  readonly done: DoneRecord | undefined;
}

/**
 * The journal as found on disk: its run, a newer `pending` run none of whose
 * applies has completed, and the applies of both, oldest first. `unrenamed`:
 * the run's header is still `next-run.json` (killed before {@link promotePending}).
 */
export interface StoredJournal {
  readonly dir: string;
  readonly run: RunHeader | undefined;
  readonly pending?: RunHeader | undefined;
  readonly unrenamed?: boolean;
  readonly applies: readonly StoredApply[];
}

/** The completed applies of `run` (none when undefined). Never throws. */
export function completedOf(stored: StoredJournal, run: RunHeader | undefined): StoredApply[] {
  return stored.applies.filter((apply) => apply.done !== undefined && apply.record.run === run?.id);
}

/** The journal's folder under `root`. Never throws. */
export function journalDir(root: string): string {
  return under(root, JOURNAL_DIR);
}

/**
 * Reads the journal of the project at `root`: its run and every apply of it
 * with a record, in order (other files are left to {@link tidyJournal}).
 * `agent-config` may be a link (keys kept elsewhere); `journal/` must be a
 * real folder. With `completed: "marks"` (recovery, which acts on no
 * completed apply), only the headers of a completed apply's record and mark
 * are read: checking a big record whole would slow every start.
 *
 * @throws {JournalError} when `journal` is not a real folder, or a file
 * cannot be read or is not what code-commit writes.
 */
export async function readJournal(
  root: string,
  options: { readonly completed?: "whole" | "marks" } = {},
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
  const run = names.has(RUN_FILE) ? await parseJson(dir, RUN_FILE, RunSchema) : undefined;
  const pending = names.has(NEXT_RUN_FILE)
    ? await parseJson(dir, NEXT_RUN_FILE, RunSchema)
    : undefined;
  const ids = new Set([run?.id, pending?.id].filter((id) => id !== undefined));
  const applies: StoredApply[] = [];
  if (ids.size > 0) {
    const numbers = [...names].map((name) => /^apply-([1-9][0-9]{0,8})\.record$/.exec(name))
      .filter((match) => match !== null).map((match) => Number(match![1])).sort((a, b) => a - b);
    for (const n of numbers) {
      const files = applyFiles(n);
      const marks = options.completed === "marks" && names.has(files.done);
      const header = marks ? await parseJson(dir, files.record, RecordHeaderSchema) : undefined;
      let record: ApplyRecord = header !== undefined
        ? { ...header, entries: [], folders: [], temporaries: [] }
        : await parseJson(dir, files.record, RecordSchema);
      if (!ids.has(record.run) || record.apply !== n) continue;
      let done: DoneRecord | undefined;
      if (names.has(files.done)) {
        done = marks
          ? { ...await parseJson(dir, files.done, DoneHeaderSchema), post: [] }
          : await parseJson(dir, files.done, DoneSchema);
        if (done.run !== record.run || done.apply !== n) done = undefined;
      }
      // Not completed after all (its mark is another run's): its record is read whole.
      if (marks && done === undefined) {
        record = await parseJson(dir, files.record, RecordSchema);
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

/** Reads the pre-image `before` from apply `n`'s packs (cached); a {@link JournalError} if short. */
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
 * What each path `applies` (oldest first) changed held before the first of them, and the
 * state the last left it in. @throws {JournalError} when a pre-image cannot be read.
 */
export async function changesOf(
  dir: string,
  applies: readonly { n: number; entries: ApplyRecord["entries"]; post: readonly PostState[] }[],
): Promise<Map<string, { before: PreImage; after: FileState }>> {
  const changes = new Map<string, { before: PreImage; after: FileState }>();
  const packs = new Map<string, Uint8Array>();
  for (const apply of applies) {
    for (const entry of apply.entries) {
      if (!changes.has(entry.path)) {
        const before = await readPreImage(dir, apply.n, entry.before, packs);
        changes.set(entry.path, { before, after: null });
      }
    }
    for (const state of apply.post) {
      const change = changes.get(state.path);
      if (change !== undefined) change.after = state.after;
    }
  }
  return changes;
}

/**
 * Removes from the journal folder every file but those of `keep` and
 * `stored.pending` and of their applies in `stored.applies` (never the
 * `again` pack of a completed one). Never throws: what cannot go stays.
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
  for (const name of Object.values(applyFiles(n))) removeQuietly(`${dir}/${name}`);
}

/** Marks `run` undone and removes its applies; throws a {@link JournalError}. */
export async function markUndone(stored: StoredJournal, run: RunHeader): Promise<void> {
  try {
    await writeJson(stored.dir, RUN_FILE, { ...run, undoneAt: new Date().toISOString() });
  } catch (error) {
    throw journalFailure(`cannot mark the run undone in ${JOURNAL_DIR}/`, error);
  }
  for (const apply of stored.applies) {
    if (apply.record.run === run.id) forgetApply(stored.dir, apply.n);
  }
}

/** Renames `next-run.json` over `run.json` and syncs the folder; throws the system's error. */
export function promotePending(dir: string): void {
  Deno.renameSync(`${dir}/${NEXT_RUN_FILE}`, `${dir}/${RUN_FILE}`);
  syncPathSync(dir);
}

/** What is at `path` (no link followed), or undefined; throws a {@link JournalError}. */
export function inspect(path: string): Deno.FileInfo | undefined {
  try {
    return lstatSyncOrUndefined(path);
  } catch (error) {
    throw journalFailure(`cannot inspect ${JOURNAL_DIR}`, error);
  }
}

/** The names in the folder `dir`; throws a {@link JournalError} when it cannot be listed. */
export function listNames(dir: string): Set<string> {
  try {
    return new Set([...Deno.readDirSync(dir)].map((entry) => entry.name));
  } catch (error) {
    throw journalFailure(`cannot list ${JOURNAL_DIR}`, error);
  }
}

/** The names in the folder `dir`; none when it cannot be listed. Never throws. */
export function listNamesQuietly(dir: string): Set<string> {
  try {
    return listNames(dir);
  } catch {
    return new Set();
  }
}

/**
 * Reads the regular file `name` of `dir`, at most `limit`. `agent-config`
 * may be a link, so links are followed, but a final link is refused first.
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
    throw journalFailure(`cannot read ${JOURNAL_DIR}/${name}`, error);
  }
}

/** Reads `dir/name` and checks its JSON against `schema`; throws a {@link JournalError}. */
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

/** Writes `value` as JSON to `dir/name` atomically (`sync`: flushed); throws a `FileStepError`. */
export function writeJson(dir: string, name: string, value: unknown, sync = false): Promise<void> {
  const data = new TextEncoder().encode(`${JSON.stringify(value)}\n`);
  return writeAtomically(denoFileSystem, dir, name, data, { sync });
}

/** Removes `path`; a failure leaves it for the next tidy. Never throws. */
export function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // Gone already, or left for the next tidy.
  }
}
