/**
 * The apply journal: before an apply writes anything, what each path it
 * will touch held (its bytes and mode, or that nothing was there), the
 * folders it will create and the names of its temporary files are written
 * to disk and synced; once the apply is done, the journal marks it
 * complete. An apply that never got that mark (the process was killed, the
 * machine lost power) is rolled back by the next start (`recovery.ts`).
 *
 * The journal keeps the state before a run's first apply of each path
 * (the run's pre-images) for the whole run, however many attempts it takes,
 * so `--undo` can take the run back as a whole (`undo.ts`); the pre-images
 * of a path an earlier apply of the same run touched already are kept only
 * while that apply is under way. A new run replaces the previous run's
 * files only once its own first apply is complete: until then it is
 * recorded beside them as the pending run (`next-run.json`, its applies
 * numbered after the previous run's), so a run that changes no file (its
 * apply failed, or it was killed) leaves the previous run undoable.
 *
 * It lives in `agent-config/journal/` (ignored by git, never writable by a
 * reply, hidden from a contained build), one set of files per apply `n`:
 * - `apply-<n>.first`, `apply-<n>.again`: the pre-images' bytes, back to
 *   back (paths first touched by this run; paths touched again);
 * - `apply-<n>.record`: what the apply is about to do (JSON): each path
 *   with where its pre-image is and the state the apply means to leave it
 *   in (mode, size, hash), the folders and temporary files it will make;
 *   written last and synced, with the folder: the apply may write once it
 *   exists;
 * - `apply-<n>.done`: the apply completed, with the state it left each
 *   path in (mode, size, 64-bit hash: {@link contentHash}), which `--undo`
 *   compares against;
 * - `run.json`: which run the applies belong to;
 * - `next-run.json`: a new run whose first apply has not completed yet;
 *   renamed over `run.json` once it has.
 *
 * It holds copies of project files only: the paths a reply may write,
 * never `agent-config/` (so never a key).
 *
 * @module
 */

import { z } from "zod";
import { CodeCommitError, messageOf } from "../errors/errors.ts";
import { readBounded } from "../file_system/bounded_read.ts";
import { denoFileSystem, under } from "../file_system/file_system.ts";
import { READ_LIMITS, type ReadLimit } from "../file_system/read_limits.ts";
import { lstatSyncOrUndefined } from "../file_system/lstat.ts";
import {
  AtomicFileWriter,
  syncPathSync,
  writeAtomically,
} from "../file_system/write_atomically.ts";
import { checkPathSyntax } from "../guard/path_syntax.ts";
import { protectedRulesFor } from "../guard/protected_paths.ts";

/** The journal's folder, relative to the project root. */
const JOURNAL_DIR = "agent-config/journal";

/** What a path held: its bytes and permission bits, or `null` when nothing was there. */
export type PreImage = { readonly data: Uint8Array; readonly mode: number | null } | null;

/** The state an apply left a file in, as `--undo` checks it: null when there is none. */
export type FileState = {
  /** The permission bits (no file type), or null where there are none. */
  readonly mode: number | null;
  /** The size in bytes. */
  readonly size: number;
  /** The content's {@link contentHash}. */
  readonly hash: string;
  /** How many lines the content holds (as `countLines` counts them). */
  readonly lines: number;
} | null;

/** The state one path was left in by an apply. */
export interface PostState {
  /** The path, relative to the project root. */
  readonly path: string;
  /** What is there now. */
  readonly after: FileState;
}

/**
 * A state an apply means to leave a path in: `null`, nothing (a delete);
 * or a file's permission bits (`null` where the file system chooses them,
 * as for a new file), size and {@link contentHash}.
 */
export type IntendedState = {
  readonly mode: number | null;
  readonly size: number;
  readonly hash: string;
} | null;

/** What an apply is about to do besides the paths' pre-images. */
export interface ApplyPlanRecord {
  /** The folders it will create, from the top (relative). */
  readonly folders: readonly string[];
  /** Every temporary file it may create (relative paths). */
  readonly temporaries: readonly string[];
  /**
   * For each path, every state its operations leave it in, in order (one
   * for most paths; a reply may write a path twice, or write then delete
   * it). Recovery accepts these, and the pre-image, as states the apply
   * itself could have left; anything else is a change made since.
   */
  readonly intended: ReadonlyMap<string, readonly IntendedState[]>;
}

/**
 * Records one apply. The applier calls {@link add} for each path before it
 * touches any, then {@link commit} (nothing is written to the project
 * before it returns), then {@link complete} or, after a rollback,
 * {@link discard}.
 */
export interface ApplyRecorder {
  /**
   * The run and number of the apply, when it is recorded on disk: the
   * rollback's temporary names are drawn from them (`rollback_names.ts`).
   */
  readonly identity?: { readonly run: string; readonly n: number };
  /** Keeps what `path` holds now (`null`: nothing). Each path once. */
  add(path: string, before: PreImage): Promise<void>;
  /**
   * Writes the record and syncs it to disk: from then on, the apply may be
   * rolled back even if the process dies.
   *
   * @throws {CodeCommitError} when the record cannot be written.
   */
  commit(plan: ApplyPlanRecord): Promise<void>;
  /** What `path` held before the apply (for a rollback); `undefined` when it was not recorded. */
  preImage(path: string): Promise<PreImage | undefined>;
  /**
   * The apply is complete: records the state it left each path in.
   *
   * @throws {CodeCommitError} when the mark cannot be written.
   */
  complete(post: readonly PostState[]): Promise<void>;
  /** The apply was rolled back whole: forgets it. Never throws. */
  discard(): Promise<void>;
}

/** Where applies are recorded before they write. */
export interface ApplyJournal {
  /**
   * Starts the record of one apply.
   *
   * @throws {CodeCommitError} when the journal cannot be opened.
   */
  begin(): Promise<ApplyRecorder>;
}

/** A journal kept in memory: a rollback in the same process, nothing for the next one. */
export function memoryJournal(): ApplyJournal {
  return {
    begin() {
      const before = new Map<string, PreImage>();
      return Promise.resolve({
        add(path, image) {
          if (!before.has(path)) before.set(path, image);
          return Promise.resolve();
        },
        commit: () => Promise.resolve(),
        preImage: (path) => Promise.resolve(before.get(path)),
        complete: () => Promise.resolve(),
        discard: () => Promise.resolve(),
      });
    },
  };
}

// ---------------------------------------------------------------------------
// The files on disk

const RUN_FILE = "run.json";
/** The header of a run whose first apply has not completed: it becomes `run.json` once one has. */
const NEXT_RUN_FILE = "next-run.json";

/** A run's header. */
const RunSchema = z.object({
  version: z.literal(1),
  /** Random, unique per run. */
  id: z.string().min(1),
  /** The workflow that made the run (`committing code`, `auto workflow`). */
  workflow: z.string(),
  /** When the run's first apply began (ISO 8601). */
  startedAt: z.string(),
  /** Set once `--undo` has taken the run back. */
  undoneAt: z.string().optional(),
}).strict();

/** A run's header. */
export type RunHeader = z.infer<typeof RunSchema>;

const relativePath = z.string().refine((path) => plainPath(path), "not a plain project path");

/** Where a pre-image's bytes are. */
const BeforeSchema = z.union([
  z.null(),
  z.object({
    mode: z.number().int().nonnegative().nullable(),
    size: z.number().int().nonnegative(),
    pack: z.enum(["first", "again"]),
    offset: z.number().int().nonnegative(),
  }).strict(),
]);

const IntendedSchema = z.union([
  z.null(),
  z.object({
    mode: z.number().int().nonnegative().nullable(),
    size: z.number().int().nonnegative(),
    hash: z.string().regex(/^[0-9a-f]{16}$/),
  }).strict(),
]);

const RecordSchema = z.object({
  version: z.literal(1),
  run: z.string(),
  apply: z.number().int().positive(),
  /** A reply's apply, or the apply of `--undo`. */
  kind: z.enum(["reply", "undo"]),
  /** The run's log folder of this apply, when it has one. */
  logDir: z.string().optional(),
  entries: z.array(
    z.object({
      path: relativePath,
      before: BeforeSchema,
      /** What the apply meant to write there (absent in a record of an older code-commit). */
      intended: z.array(IntendedSchema).optional(),
    }).strict(),
  ),
  folders: z.array(relativePath),
  temporaries: z.array(z.string().refine(temporaryPath, "not a temporary file's path")),
}).strict();

/** One apply's record, as read back. */
export type ApplyRecord = z.infer<typeof RecordSchema>;

const StateSchema = z.union([
  z.null(),
  z.object({
    mode: z.number().int().nonnegative().nullable(),
    size: z.number().int().nonnegative(),
    hash: z.string().regex(/^[0-9a-f]{16}$/),
    lines: z.number().int().nonnegative(),
  }).strict(),
]);

const DoneSchema = z.object({
  version: z.literal(1),
  run: z.string(),
  apply: z.number().int().positive(),
  post: z.array(z.object({ path: relativePath, after: StateSchema }).strict()),
}).strict();

/** One completed apply's mark: the state it left each path in. */
export type DoneRecord = z.infer<typeof DoneSchema>;

/** What says which run and apply a record belongs to, and what it was (its entries unchecked). */
const RecordHeaderSchema = RecordSchema.pick({
  version: true,
  run: true,
  apply: true,
  kind: true,
  logDir: true,
}).passthrough();

/** What says which run and apply a mark belongs to (its post states unchecked). */
const DoneHeaderSchema = DoneSchema.pick({ version: true, run: true, apply: true }).passthrough();

/** A record's header alone, as an {@link ApplyRecord} with no entries, folders or temporaries. */
function recordHeader(header: z.infer<typeof RecordHeaderSchema>): ApplyRecord {
  const { version, run, apply, kind, logDir } = header;
  return {
    version,
    run,
    apply,
    kind,
    ...(logDir === undefined ? {} : { logDir }),
    entries: [],
    folders: [],
    temporaries: [],
  };
}

/** A mark's header alone, as a {@link DoneRecord} with no post states. */
function doneHeader(header: z.infer<typeof DoneHeaderSchema>): DoneRecord {
  return { version: header.version, run: header.run, apply: header.apply, post: [] };
}

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

/**
 * A path the journal may name: relative, `/`-separated, no `.`/`..` or empty
 * segment, accepted by the guard's syntax check, and not protected (a
 * journal edited by hand can never make a rollback write `build.sh` or
 * `agent-config/`), except for `agent-state/`, where code-commit itself
 * records what the auto workflow passed. Never throws.
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
  const name = path.slice(slash + 1);
  if (!/^\..*\.code-commit-[0-9a-f]{16}\.tmp$/s.test(name)) return false;
  return slash < 0 || plainPath(path.slice(0, slash));
}

/** The files of apply `n`. */
function applyFiles(n: number) {
  const stem = `apply-${n}`;
  return {
    record: `${stem}.record`,
    done: `${stem}.done`,
    first: `${stem}.first`,
    again: `${stem}.again`,
  };
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

/** The journal could not be read or written. Exit status 1. */
export class JournalError extends CodeCommitError {
  /** Makes the error; `message` is the whole user-facing line. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, undefined, options);
    this.name = "JournalError";
  }
}

/** The journal's folder under `root`, absolute or as `root` is given. */
function journalDir(root: string): string {
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

// ---------------------------------------------------------------------------
// The run's journal

/** What a run's journal needs to know about the run. */
export interface RunInfo {
  /** The workflow, as messages name it (`committing code`). */
  readonly workflow: string;
}

/**
 * The journal of one run of code-commit in the project at `root`. Its
 * first apply removes the previous run's files and starts the run's own;
 * every apply after it adds to the run.
 */
export class RunJournal implements ApplyJournal {
  readonly #root: string;
  /** The workflow, as messages name it; the workflow sets it before its first apply. */
  workflow: string;
  #header: RunHeader | undefined;
  #next = 1;
  /** The number of this run's first apply. */
  #first = 1;
  /** Whether this run's header is the pending one (no apply of it complete yet). */
  #pending = false;
  /** Paths changed by a completed apply of this run: a later apply records them as `again`. */
  readonly #touched = new Set<string>();
  /** This run's completed applies, as this process recorded them (oldest first). */
  readonly #completed: CompletedApply[] = [];
  /** The log folder the next applies belong to. */
  logDir: string | undefined;

  /** A journal for a run of `info.workflow` in the project at `root`; nothing is written yet. */
  constructor(root: string, info: RunInfo) {
    this.#root = root;
    this.workflow = info.workflow;
  }

  /** The run's header once its first apply began; undefined before. */
  get header(): RunHeader | undefined {
    return this.#header;
  }

  /** Every path a completed apply of this run changed. */
  touched(): ReadonlySet<string> {
    return this.#touched;
  }

  /**
   * Each path a completed apply of this run changed: what it held before
   * the run's first apply of it, and the state the run's last apply of it
   * left it in. The records come from this process's own memory of what it
   * wrote (never read back and parsed again); the pre-images are read from
   * the journal's packs. Only the applies the journal on disk still holds
   * for this run count: it may have changed under the run (an `--undo` from
   * another terminal, a build that removed `agent-config/`, another run).
   *
   * @throws {JournalError} when the run's header or a pack cannot be read.
   */
  async runChanges(): Promise<Map<string, { before: PreImage; after: FileState }>> {
    const changes = new Map<string, { before: PreImage; after: FileState }>();
    if (this.#header === undefined || this.#touched.size === 0) return changes;
    const dir = journalDir(this.#root);
    const kept = await this.#stillRecorded(dir, this.#header);
    const packs = new Map<string, Uint8Array>();
    for (const apply of this.#completed) {
      if (!kept.has(apply.n)) continue;
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
   * The numbers of this run's completed applies whose record and mark the
   * journal folder `dir` still holds, while its header is still `header`'s
   * run; none otherwise.
   *
   * @throws {JournalError} when the header cannot be read.
   */
  async #stillRecorded(dir: string, header: RunHeader): Promise<Set<number>> {
    const kept = new Set<number>();
    if (inspect(dir)?.isDirectory !== true) return kept;
    const names = new Set(listNamesQuietly(dir));
    if (!names.has(RUN_FILE)) return kept;
    const run = await parseJson(dir, RUN_FILE, RunSchema) as RunHeader;
    if (run.id !== header.id) return kept;
    for (const { n } of this.#completed) {
      const files = applyFiles(n);
      if (names.has(files.record) && names.has(files.done)) kept.add(n);
    }
    return kept;
  }

  /** {@inheritDoc ApplyJournal.begin} */
  async begin(): Promise<ApplyRecorder> {
    const dir = journalDir(this.#root);
    try {
      if (this.#header === undefined) {
        await this.#startRun(dir);
      }
    } catch (error) {
      if (error instanceof JournalError) throw error;
      throw new JournalError(
        `cannot keep the apply journal in ${JOURNAL_DIR}/: ${messageOf(error)}; nothing was ` +
          "changed",
        { cause: error },
      );
    }
    const n = this.#next++;
    return new DiskRecorder(dir, this.#header!, n, this.logDir, "reply", {
      touched: this.#touched,
      completed: this.#completed,
      pending: () => this.#pending,
      onComplete: () => this.#promote(dir),
    });
  }

  /**
   * Writes this run's header. When the journal holds a previous run that
   * can still be undone, the header is the pending run's: the previous
   * run's files stay until this run's first apply completes ({@link
   * #promote}), and this run's applies are numbered after them. Otherwise
   * every old file goes, the old header first (files without a header
   * belong to no run).
   */
  async #startRun(dir: string): Promise<void> {
    await makeJournalDir(this.#root);
    const header: RunHeader = {
      version: 1,
      id: crypto.randomUUID(),
      workflow: this.workflow,
      startedAt: new Date().toISOString(),
    };
    let stored = await readJournal(this.#root, { completed: "marks" });
    if (stored.unrenamed === true) {
      // The previous run's header was never renamed (recovery does it; done here too).
      promotePending(dir);
      stored = { ...stored, unrenamed: false };
    }
    const previous = stored.run;
    const undoable = previous !== undefined && previous.undoneAt === undefined &&
      stored.applies.some((apply) => apply.done !== undefined && apply.record.run === previous.id);
    if (undoable) {
      const kept = stored.applies.filter((apply) =>
        apply.done !== undefined && apply.record.run === previous.id
      );
      tidyJournal({ ...stored, pending: undefined, applies: kept }, previous);
      this.#next = Math.max(0, ...[...listNames(dir)].map(applyNumber)) + 1;
      this.#first = this.#next;
      await writeJson(dir, NEXT_RUN_FILE, header, true);
      this.#pending = true;
    } else {
      removeQuietly(`${dir}/${RUN_FILE}`);
      tidyJournal({ dir, run: undefined, applies: [] }, undefined);
      await writeJson(dir, RUN_FILE, header);
    }
    this.#header = header;
  }

  /**
   * Once this run's first apply is complete (its mark on disk), this run
   * replaces the previous one: its header becomes `run.json`, and the
   * previous run's files go.
   *
   * @throws the file system's error when the header cannot be renamed.
   */
  #promote(dir: string): void {
    if (!this.#pending) return;
    promotePending(dir);
    this.#pending = false;
    for (const name of listNamesQuietly(dir)) {
      const n = applyNumber(name);
      if (n > 0 && n < this.#first) removeQuietly(`${dir}/${name}`);
    }
  }
}

/** The apply number in a journal file's name (`apply-<n>.…`), 0 when it has none. */
function applyNumber(name: string): number {
  const match = /^apply-([1-9][0-9]{0,8})\./.exec(name);
  return match === null ? 0 : Number(match[1]);
}

/**
 * A recorder for `--undo`: the apply that takes `run` back, recorded as one
 * more apply of it (numbered after its last), so that an interrupted undo
 * is rolled back at the next start like any apply.
 */
export function undoRecorder(stored: StoredJournal, run: RunHeader): ApplyRecorder {
  const last = stored.applies.at(-1)?.n ?? 0;
  return new DiskRecorder(stored.dir, run, last + 1, undefined, "undo", {
    touched: new Set(),
    completed: [],
  });
}

/** Creates `agent-config/journal/` (and `agent-config/`) as real folders where missing. */
async function makeJournalDir(root: string): Promise<void> {
  for (const folder of ["agent-config", JOURNAL_DIR]) {
    const path = under(root, folder);
    try {
      await Deno.mkdir(path);
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
  }
  const info = inspect(journalDir(root));
  if (info === undefined || !info.isDirectory) {
    throw new JournalError(
      `${JOURNAL_DIR} is ${info?.isSymlink ? "a symbolic link" : "not a folder"}; code-commit ` +
        "keeps its apply journal only in a real folder there: move it away; nothing was changed",
    );
  }
}

/**
 * The bytes of one pack being written, streamed to a temporary file (see
 * `AtomicFileWriter`), renamed into place at commit.
 */
class PackWriter {
  readonly #dir: string;
  readonly #name: string;
  readonly #writer: AtomicFileWriter;

  constructor(dir: string, name: string) {
    this.#dir = dir;
    this.#name = name;
    this.#writer = new AtomicFileWriter(dir, name);
  }

  /**
   * Appends `data`; returns its offset.
   *
   * @throws {JournalError} when the pack would grow past what the journal reads back.
   */
  append(data: Uint8Array): number {
    const offset = this.#writer.size;
    if (data.length === 0) return offset;
    if (offset + data.length > READ_LIMITS.journalPack.bytes) {
      throw new JournalError(
        `the reply replaces or deletes more than ${
          READ_LIMITS.journalPack.bytes / (1024 * 1024)
        } MiB of files, more than code-commit keeps copies of in its journal; nothing was ` +
          "changed: ask for a smaller change",
      );
    }
    this.#writer.append(data);
    return offset;
  }

  /** Syncs, closes and renames the pack into place; nothing when it is empty. */
  seal(): void {
    this.#writer.commit();
  }

  /** Closes and removes what was written. Never throws. */
  abandon(): void {
    this.#writer.abandon();
    removeQuietly(`${this.#dir}/${this.#name}`);
  }
}

/** A completed apply of the run, as the process that made it recorded it. */
interface CompletedApply {
  readonly n: number;
  readonly entries: ApplyRecord["entries"];
  readonly post: readonly PostState[];
}

/** What a run's recorders add to once their apply completes. */
interface RunMemory {
  /** The paths changed (a later apply records them as `again`). */
  readonly touched: Set<string>;
  /** The completed applies, oldest first. */
  readonly completed: CompletedApply[];
  /** Whether the run is still pending (its first apply's mark must be synced before promotion). */
  readonly pending?: () => boolean;
  /** Called once an apply's mark is on disk (a pending run's header is then promoted); may throw. */
  readonly onComplete?: () => void;
}

/** Records one apply in the journal folder. */
class DiskRecorder implements ApplyRecorder {
  readonly #dir: string;
  readonly #run: RunHeader;
  readonly #n: number;
  readonly #logDir: string | undefined;
  readonly #memory: RunMemory;
  readonly #kind: "reply" | "undo";
  readonly #first: PackWriter;
  readonly #again: PackWriter;
  readonly #entries: ApplyRecord["entries"] = [];
  readonly #recorded = new Set<string>();
  readonly #packs = new Map<string, Uint8Array>();
  #committed = false;
  readonly identity: { readonly run: string; readonly n: number };

  constructor(
    dir: string,
    run: RunHeader,
    n: number,
    logDir: string | undefined,
    kind: "reply" | "undo",
    memory: RunMemory,
  ) {
    this.#dir = dir;
    this.#run = run;
    this.#n = n;
    this.#logDir = logDir;
    this.#memory = memory;
    this.#kind = kind;
    this.identity = { run: run.id, n };
    const files = applyFiles(n);
    this.#first = new PackWriter(dir, files.first);
    this.#again = new PackWriter(dir, files.again);
  }

  add(path: string, before: PreImage): Promise<void> {
    if (this.#recorded.has(path)) return Promise.resolve();
    this.#recorded.add(path);
    if (before === null) {
      this.#entries.push({ path, before: null });
      return Promise.resolve();
    }
    const again = this.#kind === "undo" || this.#memory.touched.has(path);
    const pack = again ? this.#again : this.#first;
    try {
      const offset = pack.append(before.data);
      this.#entries.push({
        path,
        before: {
          mode: before.mode,
          size: before.data.length,
          pack: again ? "again" : "first",
          offset,
        },
      });
    } catch (error) {
      if (error instanceof JournalError) return Promise.reject(error);
      // Named by its pack: a write past the file size limit fails there (File too large).
      const name = applyFiles(this.#n)[again ? "again" : "first"];
      return Promise.reject(
        new JournalError(
          `cannot record what the reply's paths hold in ${JOURNAL_DIR}/${name}: ${
            messageOf(error)
          }`,
          { cause: error },
        ),
      );
    }
    return Promise.resolve();
  }

  async commit(plan: ApplyPlanRecord): Promise<void> {
    const record: ApplyRecord = {
      version: 1,
      run: this.#run.id,
      apply: this.#n,
      kind: this.#kind,
      ...(this.#logDir === undefined ? {} : { logDir: this.#logDir }),
      entries: this.#entries.map((entry) => ({
        ...entry,
        intended: [...plan.intended.get(entry.path) ?? []],
      })),
      folders: [...plan.folders],
      temporaries: [...plan.temporaries],
    };
    try {
      // A mark left by an apply of the same number that was forgotten but not wholly removed
      // would make this one look complete: it goes first, and must be gone.
      const done = `${this.#dir}/${applyFiles(this.#n).done}`;
      removeQuietly(done);
      if (inspect(done) !== undefined) throw new Error(`cannot remove the old ${done}`);
      this.#first.seal();
      this.#again.seal();
      // Synced, and the folder after it: the packs' renames and the record survive a power cut.
      await writeJson(this.#dir, applyFiles(this.#n).record, record, true);
      this.#committed = true;
    } catch (error) {
      this.#first.abandon();
      this.#again.abandon();
      removeQuietly(`${this.#dir}/${applyFiles(this.#n).record}`);
      throw this.#failure("write the apply journal", error);
    }
  }

  preImage(path: string): Promise<PreImage | undefined> {
    const entry = this.#entries.find((candidate) => candidate.path === path);
    if (entry === undefined) return Promise.resolve(undefined);
    return readPreImage(this.#dir, this.#n, entry.before, this.#packs);
  }

  async complete(post: readonly PostState[]): Promise<void> {
    const done: DoneRecord = {
      version: 1,
      run: this.#run.id,
      apply: this.#n,
      post: post.map((state) => ({ path: state.path, after: state.after })),
    };
    try {
      await writeJson(this.#dir, applyFiles(this.#n).done, done, this.#memory.pending?.() === true);
      this.#memory.onComplete?.();
    } catch (error) {
      throw this.#failure("mark the apply complete in the journal", error);
    }
    removeQuietly(`${this.#dir}/${applyFiles(this.#n).again}`);
    for (const entry of this.#entries) this.#memory.touched.add(entry.path);
    this.#memory.completed.push({ n: this.#n, entries: this.#entries, post: done.post });
  }

  discard(): Promise<void> {
    if (this.#committed) forgetApply(this.#dir, this.#n);
    this.#first.abandon();
    this.#again.abandon();
    return Promise.resolve();
  }

  #failure(what: string, error: unknown): JournalError {
    return new JournalError(
      `cannot ${what} in ${JOURNAL_DIR}/: ${messageOf(error)}`,
      { cause: error },
    );
  }
}

/**
 * A 64-bit hash of `data` (two 32-bit lanes over its 4-byte words, mixed
 * as MurmurHash3 mixes), in 16 hex digits: how the journal tells whether a
 * file changed since a run left it. Not a cryptographic hash: it tells a
 * hand edit from no edit, at little cost to a large apply, where SHA-256
 * through SubtleCrypto would slow it. Never throws.
 */
export function contentHash(data: Uint8Array): string {
  let h1 = 0x9747b28c ^ data.length;
  let h2 = 0x85ebca6b ^ data.length;
  const words = data.length & ~3;
  for (let i = 0; i < words; i += 4) {
    let k = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h1 ^= k;
    h1 = (h1 << 13) | (h1 >>> 19);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
    h2 = Math.imul(h2 ^ k, 0x27d4eb2d);
    h2 ^= h2 >>> 15;
  }
  let tail = 0;
  for (let i = words; i < data.length; i++) tail |= data[i] << ((i - words) * 8);
  h1 ^= Math.imul(tail, 0x1b873593);
  h2 ^= Math.imul(tail, 0xcc9e2d51);
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h2 ^= h2 >>> 16;
  h2 = Math.imul(h2, 0xc2b2ae35);
  h2 ^= h2 >>> 16;
  return (h1 >>> 0).toString(16).padStart(8, "0") + (h2 >>> 0).toString(16).padStart(8, "0");
}

// ---------------------------------------------------------------------------
// Small file helpers (synchronous: the journal's files are small or written once)

/** What is at `path` (no link followed), or undefined when nothing is. */
function inspect(path: string): Deno.FileInfo | undefined {
  try {
    return lstatSyncOrUndefined(path);
  } catch (error) {
    throw new JournalError(`cannot inspect ${JOURNAL_DIR}: ${messageOf(error)}`, { cause: error });
  }
}

function listNames(dir: string): Set<string> {
  try {
    return new Set([...Deno.readDirSync(dir)].map((entry) => entry.name));
  } catch (error) {
    throw new JournalError(`cannot list ${JOURNAL_DIR}: ${messageOf(error)}`, { cause: error });
  }
}

function listNamesQuietly(dir: string): string[] {
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

async function parseJson<T extends z.ZodTypeAny>(
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
function writeJson(dir: string, name: string, value: unknown, sync = false): Promise<void> {
  const data = new TextEncoder().encode(`${JSON.stringify(value)}\n`);
  return writeAtomically(denoFileSystem, dir, name, data, { sync });
}

function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // gone already, or left for the next tidy
  }
}
