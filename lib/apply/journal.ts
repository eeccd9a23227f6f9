/**
 * The journal of one run (format: `journal_store.ts`): its first apply
 * starts the run's record, each apply is recorded by a `DiskRecorder`.
 *
 * @module
 */

import { under } from "../file_system/file_system.ts";
import type { ApplyJournal, ApplyRecorder, CompletedApply } from "./journal_recorder.ts";
import { DiskRecorder } from "./journal_recorder.ts";
import {
  applyFiles,
  changesOf,
  completedOf,
  type FileState,
  inspect,
  JOURNAL_DIR,
  journalDir,
  JournalError,
  journalFailure,
  listNames,
  listNamesQuietly,
  NEXT_RUN_FILE,
  parseJson,
  type PreImage,
  promotePending,
  readJournal,
  removeQuietly,
  RUN_FILE,
  type RunHeader,
  RunSchema,
  tidyJournal,
  writeJson,
} from "./journal_store.ts";

/**
 * The journal of one run of code-commit in the project at `root`: its first
 * apply starts the run's files, every apply after it adds to the run.
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
  readonly #touched = new Set<string>();
  readonly #completed: CompletedApply[] = [];
  /** The log folder the next applies belong to. */
  logDir: string | undefined;

  /** A journal for a run of `info.workflow` in the project at `root`; nothing is written yet. */
  constructor(root: string, info: { readonly workflow: string }) {
    this.#root = root;
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
    const dir = journalDir(this.#root);
    const kept = await this.#stillRecorded(dir, this.#header);
    return await changesOf(dir, this.#completed.filter((apply) => kept.has(apply.n)));
  }

  /** This run's completed applies `dir` still holds, while its header is still this run's. */
  async #stillRecorded(dir: string, header: RunHeader): Promise<Set<number>> {
    const kept = new Set<number>();
    if (inspect(dir)?.isDirectory !== true) return kept;
    const names = new Set(listNamesQuietly(dir));
    if (!names.has(RUN_FILE)) return kept;
    let run = await parseJson(dir, RUN_FILE, RunSchema);
    // A run whose header could not be renamed yet is still `next-run.json` (the run all the same).
    if (run.id !== header.id && this.#pending && names.has(NEXT_RUN_FILE)) {
      run = await parseJson(dir, NEXT_RUN_FILE, RunSchema);
    }
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
