/**
 * The recording of one apply: in memory, or as packs, record and mark in the
 * journal folder.
 *
 * @module
 */

import { READ_LIMITS } from "../file_system/read_limits.ts";
import { AtomicFileWriter } from "../file_system/write_atomically.ts";
import {
  applyFiles,
  type ApplyRecord,
  type DoneRecord,
  forgetApply,
  inspect,
  type IntendedState,
  JOURNAL_DIR,
  JournalError,
  journalFailure,
  type PostState,
  type PreImage,
  readPreImage,
  removeQuietly,
  type RunHeader,
  type StoredJournal,
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
 * The recorder of `--undo`'s apply, recorded as one more apply of `run`, so
 * that an interrupted undo is rolled back at the next start like any apply.
 */
export function undoRecorder(stored: StoredJournal, run: RunHeader): ApplyRecorder {
  const last = stored.applies.at(-1)?.n ?? 0;
  return new DiskRecorder(stored.dir, run, last + 1, undefined, "undo", {
    touched: new Set(),
    completed: [],
  });
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
