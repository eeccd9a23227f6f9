/**
 * The journal of one run (format: `journal_store.ts`): its first apply
 * starts the run's record; each apply is recorded, in memory or as packs,
 * record and mark in the journal folder, by a recorder. Before a run asks a
 * model anything, the journal's folder must take writes.
 *
 * @module
 */

import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import { under } from "../file_system/file_system.ts";
import { READ_LIMITS } from "../file_system/read_limits.ts";
import { AtomicFileWriter } from "../file_system/write_atomically.ts";
import {
  applyFiles,
  type ApplyRecord,
  changesOf,
  completedOf,
  type DoneRecord,
  type FileState,
  forgetApply,
  inspect,
  type IntendedState,
  JOURNAL_DIR,
  journalDir,
  JournalError,
  journalFailure,
  listNames,
  listNamesQuietly,
  NEXT_RUN_FILE,
  parseJson,
  type PostState,
  type PreImage,
  promotePending,
  readJournal,
  readPreImage,
  removeQuietly,
  RUN_FILE,
  type RunHeader,
  RunSchema,
  type StoredJournal,
  tidyJournal,
  writeJson,
} from "./journal_store.ts";

/**
 * What an apply is about to do besides the pre-images: the folders it will
 * make (from the top), its temporary files, and each path's intended states.
 */
export interface ApplyPlanRecord {
  readonly folders: readonly string[];
  readonly temporaries: readonly string[];
  readonly intended: ReadonlyMap<string, readonly IntendedState[]>;
}

/**
 * Records one apply: {@link add} for each path before any is touched, then
 * {@link commit} (nothing is written to the project before it returns),
 * then {@link complete} or, after a rollback, {@link discard}.
 */
export interface ApplyRecorder {
  /** The run and number of the apply on disk: the rollback's temporary names come from them. */
  readonly identity?: { readonly run: string; readonly n: number };
  /** Keeps what `path` holds now (`null`: nothing), once per path; throws a `JournalError`. */
  add(path: string, before: PreImage): void;
  /** Writes and syncs the record: from then on even a killed apply is rolled back. */
  commit(plan: ApplyPlanRecord): Promise<void>;
  /** What `path` held before the apply; `undefined` when it was not recorded. */
  preImage(path: string): Promise<PreImage | undefined>;
  /** Records the state the complete apply left each path in. */
  complete(post: readonly PostState[]): Promise<void>;
  /** The apply was rolled back whole: forgets it. Never throws. */
  discard(): Promise<void>;
}

/** Where applies are recorded before they write. */
export interface ApplyJournal {
  /** Starts the record of one apply; throws a `CodeCommitError` when it cannot. */
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
        },
        commit: () => Promise.resolve(),
        preImage: (path) => Promise.resolve(before.get(path)),
        complete: () => Promise.resolve(),
        discard: () => Promise.resolve(),
      });
    },
  };
}

/**
 * The journal of `--undo`'s apply, recorded as one more apply of `run`, so
 * that an interrupted undo is rolled back at the next start like any apply.
 */
export function undoJournal(stored: StoredJournal, run: RunHeader): ApplyJournal {
  const n = (stored.applies.at(-1)?.n ?? 0) + 1;
  const memory = { touched: new Set<string>(), completed: [] };
  return {
    begin: () => Promise.resolve(new DiskRecorder(stored.dir, run, n, undefined, "undo", memory)),
  };
}

/** A completed apply of the run, as the process that made it recorded it. */
export interface CompletedApply {
  readonly n: number;
  readonly entries: ApplyRecord["entries"];
  readonly post: readonly PostState[];
}

/**
 * What a run's recorders add to once their apply completes: the paths changed
 * (a later apply records them as `again`), the applies; whether the run is
 * pending (its mark is then synced), and what to call once the mark is on disk.
 */
interface RunMemory {
  readonly touched: Set<string>;
  readonly completed: CompletedApply[];
  readonly pending?: () => boolean;
  readonly onComplete?: () => void;
}

/** Records one apply in the journal folder. */
export class DiskRecorder implements ApplyRecorder {
  readonly #files: ReturnType<typeof applyFiles>;
  /** The pre-images' bytes, streamed to temporary files renamed into place at commit. */
  readonly #packs: Record<"first" | "again", AtomicFileWriter>;
  readonly #entries: ApplyRecord["entries"] = [];
  readonly #recorded = new Set<string>();
  readonly #read = new Map<string, Uint8Array>();
  #committed = false;
  readonly identity: { readonly run: string; readonly n: number };

  /** The recorder of apply `n` of `run` in the journal folder `dir`; nothing is written yet. */
  constructor(
    private readonly dir: string,
    private readonly run: RunHeader,
    private readonly n: number,
    private readonly logDir: string | undefined,
    private readonly kind: "reply" | "undo",
    private readonly memory: RunMemory,
  ) {
    this.identity = { run: run.id, n };
    this.#files = applyFiles(n);
    this.#packs = {
      first: new AtomicFileWriter(dir, this.#files.first),
      again: new AtomicFileWriter(dir, this.#files.again),
    };
  }

  add(path: string, before: PreImage): void {
    if (this.#recorded.has(path)) return;
    this.#recorded.add(path);
    if (before === null) {
      this.#entries.push({ path, before: null });
      return;
    }
    const pack = this.kind === "undo" || this.memory.touched.has(path) ? "again" : "first";
    const offset = this.#packs[pack].size;
    const size = before.data.length;
    if (offset + size > READ_LIMITS.journalPack.bytes) {
      throw new JournalError(
        `the reply replaces or deletes more than ${
          READ_LIMITS.journalPack.bytes / (1024 * 1024)
        } MiB of files, more than code-commit keeps copies of in its journal; nothing was ` +
          "changed: ask for a smaller change",
      );
    }
    try {
      this.#packs[pack].append(before.data);
    } catch (error) {
      // Named by its pack: a write past the file size limit fails there (File too large).
      throw journalFailure(
        `cannot record what the reply's paths hold in ${JOURNAL_DIR}/${this.#files[pack]}`,
        error,
      );
    }
    this.#entries.push({ path, before: { mode: before.mode, size, pack, offset } });
  }

  async commit(plan: ApplyPlanRecord): Promise<void> {
    const record: ApplyRecord = {
      version: 1,
      run: this.run.id,
      apply: this.n,
      kind: this.kind,
      ...(this.logDir === undefined ? {} : { logDir: this.logDir }),
      entries: this.#entries.map((entry) => ({
        ...entry,
        intended: [...plan.intended.get(entry.path) ?? []],
      })),
      folders: [...plan.folders],
      temporaries: [...plan.temporaries],
    };
    try {
      // A mark left by a forgotten apply of the same number would make this one look complete.
      const done = `${this.dir}/${this.#files.done}`;
      removeQuietly(done);
      if (inspect(done) !== undefined) throw new Error(`cannot remove the old ${done}`);
      this.#packs.first.commit();
      this.#packs.again.commit();
      // Synced, and the folder after it: the packs' renames and the record survive a power cut.
      await writeJson(this.dir, this.#files.record, record, true);
      this.#committed = true;
    } catch (error) {
      this.#abandonPacks();
      removeQuietly(`${this.dir}/${this.#files.record}`);
      throw journalFailure(`cannot write the apply journal in ${JOURNAL_DIR}/`, error);
    }
  }

  async preImage(path: string): Promise<PreImage | undefined> {
    const entry = this.#entries.find((candidate) => candidate.path === path);
    return entry && await readPreImage(this.dir, this.n, entry.before, this.#read);
  }

  async complete(post: readonly PostState[]): Promise<void> {
    const done: DoneRecord = {
      version: 1,
      run: this.run.id,
      apply: this.n,
      post: post.map((state) => ({ path: state.path, after: state.after })),
    };
    const mark = `${this.dir}/${this.#files.done}`;
    try {
      await writeJson(this.dir, this.#files.done, done, this.memory.pending?.() === true);
    } catch (error) {
      // A mark whose folder could not be synced is taken back, so the rollback that follows is
      // recorded as incomplete; one that stays makes the apply complete: the journal never
      // says complete of an apply rolled back halfway.
      removeQuietly(mark);
      if (!present(mark)) {
        throw journalFailure(
          `cannot mark the apply complete in the journal in ${JOURNAL_DIR}/`,
          error,
        );
      }
    }
    try {
      this.memory.onComplete?.();
    } catch {
      // The mark is on disk, so the apply is complete: a pending header not renamed yet is
      // read as the run (readJournal), and the next start renames it.
    }
    removeQuietly(`${this.dir}/${this.#files.again}`);
    for (const entry of this.#entries) this.memory.touched.add(entry.path);
    this.memory.completed.push({ n: this.n, entries: this.#entries, post: done.post });
  }

  discard(): Promise<void> {
    if (this.#committed) forgetApply(this.dir, this.n);
    this.#abandonPacks();
    return Promise.resolve();
  }

  /** Closes and removes both packs, made or renamed. Never throws. */
  #abandonPacks(): void {
    for (const pack of ["first", "again"] as const) {
      this.#packs[pack].abandon();
      removeQuietly(`${this.dir}/${this.#files[pack]}`);
    }
  }
}

/** Whether something is at `path` (a path that cannot be inspected counts as present). Never throws. */
function present(path: string): boolean {
  try {
    return inspect(path) !== undefined;
  } catch {
    return true;
  }
}

/**
 * The journal of one run of code-commit in the project at `root`: its first
 * apply starts the run's files, every apply after it adds to the run.
 */
export class RunJournal implements ApplyJournal {
  /** The workflow, as messages name it; the workflow sets it before its first apply. */
  workflow: string;
  #header: RunHeader | undefined;
  #next = 1;
  /** The number of this run's first apply. */
  #first = 1;
  /** Whether this run's header is the pending one (no apply of it complete yet). */
  #pending = false;
  readonly #touched = new Set<string>();
  readonly #completed: CompletedApply[] = [];
  /** The log folder the next applies belong to. */
  logDir: string | undefined;

  /** A journal for a run of `info.workflow` in the project at `root`; nothing is written yet. */
  constructor(private readonly root: string, info: { readonly workflow: string }) {
    this.workflow = info.workflow;
  }

  /** Every path a completed apply of this run changed. */
  touched(): ReadonlySet<string> {
    return this.#touched;
  }

  /**
   * Each path a completed apply of this run changed: what it held before the
   * run and the state the run left it in, as this process recorded them; only
   * applies the journal still holds for this run count (an `--undo` from
   * another terminal may have taken them). Throws a {@link JournalError}.
   */
  async runChanges(): Promise<Map<string, { before: PreImage; after: FileState }>> {
    if (this.#header === undefined || this.#touched.size === 0) return new Map();
    const dir = journalDir(this.root);
    return await changesOf(dir, await this.#stillRecorded(dir, this.#header));
  }

  /** This run's completed applies `dir` still holds, while its header is still this run's. */
  async #stillRecorded(dir: string, header: RunHeader): Promise<CompletedApply[]> {
    if (inspect(dir)?.isDirectory !== true) return [];
    const names = listNamesQuietly(dir);
    if (!names.has(RUN_FILE)) return [];
    let run = await parseJson(dir, RUN_FILE, RunSchema);
    // A run whose header could not be renamed yet is still `next-run.json` (the run all the same).
    if (run.id !== header.id && this.#pending && names.has(NEXT_RUN_FILE)) {
      run = await parseJson(dir, NEXT_RUN_FILE, RunSchema);
    }
    if (run.id !== header.id) return [];
    const files = this.#completed.map(({ n }) => applyFiles(n));
    return this.#completed.filter((_, i) => names.has(files[i].record) && names.has(files[i].done));
  }

  /** {@inheritDoc ApplyJournal.begin} */
  async begin(): Promise<ApplyRecorder> {
    const dir = journalDir(this.root);
    try {
      if (this.#header === undefined) await this.#startRun(dir);
    } catch (error) {
      if (error instanceof JournalError) throw error;
      throw journalFailure(
        `cannot keep the apply journal in ${JOURNAL_DIR}/`,
        error,
        "; nothing was changed",
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
   * Writes this run's header: while the previous run can still be undone,
   * as the pending run, numbered after it, its files kept until this run's
   * first apply completes; otherwise every old file goes, the header first.
   */
  async #startRun(dir: string): Promise<void> {
    await makeJournalDir(this.root);
    const header: RunHeader = {
      version: 1,
      id: crypto.randomUUID(),
      workflow: this.workflow,
      startedAt: new Date().toISOString(),
    };
    let stored = await readJournal(this.root, { completed: "marks" });
    if (stored.unrenamed === true) {
      // The previous run's header was never renamed (recovery does it; done here too).
      promotePending(dir);
      stored = { ...stored, unrenamed: false };
    }
    const previous = stored.run;
    const kept = previous?.undoneAt === undefined ? completedOf(stored, previous) : [];
    if (kept.length > 0) {
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

  /** Once this run's first apply is complete: its header becomes `run.json`, the old files go. */
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

/** Creates `agent-config/journal/` (and `agent-config/`) as real folders where missing. */
async function makeJournalDir(root: string): Promise<void> {
  for (const folder of ["agent-config", JOURNAL_DIR]) {
    await Deno.mkdir(under(root, folder)).catch((error) => {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    });
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
 * Checks that the journal's folder under `root` (or `agent-config/` while it
 * is not made) takes writes, with a probe `.tmp` file the journal's tidying
 * removes should this process die in between: otherwise no reply could be
 * applied and each call to a model would be paid for nothing.
 *
 * @throws {CodeCommitError} (exit 3) naming the folder and the system's reason.
 */
export async function checkJournalWritable(root: string): Promise<void> {
  const journal = under(root, "agent-config/journal");
  const folder = await Deno.lstat(journal).then(() => journal, () => under(root, "agent-config"));
  const probe = `${folder}/.probe-${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeFile(probe, new Uint8Array(), { createNew: true });
    await Deno.remove(probe);
  } catch (error) {
    // No agent-config/ at all: the set-up checks name what is missing.
    if (error instanceof Deno.errors.NotFound) return;
    throw new CodeCommitError(
      `agent-config/journal/ cannot be written (${messageOf(error)}): code-commit records ` +
        "every apply there before it changes a file, so no reply could be applied; make " +
        "agent-config/ writable (a read-only mount? a full disk?) and run code-commit again; " +
        "nothing was sent to the model",
      EXIT.setup,
      { cause: error },
    );
  }
}
