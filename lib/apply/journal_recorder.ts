/**
 * The recording of one apply: what the applier asks of a journal
 * ({@link ApplyRecorder}, {@link ApplyJournal}), a journal in memory, and
 * the recorder that writes one apply's record, packs and mark to the
 * journal folder.
 *
 * @module
 */

import { messageOf } from "../errors/errors.ts";
import { PackWriter } from "./journal_pack.ts";
import {
  applyFiles,
  type ApplyRecord,
  type DoneRecord,
  type IntendedState,
  JOURNAL_DIR,
  JournalError,
  type PostState,
  type PreImage,
  type RunHeader,
} from "./journal_schema.ts";
import {
  forgetApply,
  inspect,
  readPreImage,
  removeQuietly,
  type StoredJournal,
  writeJson,
} from "./journal_store.ts";

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

/** A completed apply of the run, as the process that made it recorded it. */
export interface CompletedApply {
  readonly n: number;
  readonly entries: ApplyRecord["entries"];
  readonly post: readonly PostState[];
}

/** What a run's recorders add to once their apply completes. */
export interface RunMemory {
  /** The paths changed (a later apply records them as `again`). */
  readonly touched: Set<string>;
  /** The completed applies, oldest first. */
  readonly completed: CompletedApply[];
  /** Whether the run is still pending (its first apply's mark must be synced before promotion). */
  readonly pending?: () => boolean;
  /**
   * Called once an apply's mark is on disk (a pending run's header is then promoted); what it
   * throws is ignored: the apply is complete, and the next start finishes the promotion.
   */
  readonly onComplete?: () => void;
}

/** Records one apply in the journal folder. */
export class DiskRecorder implements ApplyRecorder {
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
    const mark = `${this.#dir}/${applyFiles(this.#n).done}`;
    try {
      await writeJson(this.#dir, applyFiles(this.#n).done, done, this.#memory.pending?.() === true);
    } catch (error) {
      // A mark renamed into place whose folder could not be synced is taken back, so that the
      // rollback that follows is recorded as incomplete; a mark that stays (the disk refused
      // even that) makes the apply complete: the journal never says complete of an apply
      // that was rolled back halfway.
      removeQuietly(mark);
      if (!present(mark)) throw this.#failure("mark the apply complete in the journal", error);
    }
    try {
      this.#memory.onComplete?.();
    } catch {
      // The mark is on disk, so the apply is complete whatever follows: a pending run's header
      // not renamed yet is read as the run (readJournal), and the next start renames it.
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

/** Whether something is at `path` (a path that cannot be inspected counts as present). Never throws. */
function present(path: string): boolean {
  try {
    return inspect(path) !== undefined;
  } catch {
    return true;
  }
}
