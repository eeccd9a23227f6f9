/**
 * The rollup's reads on two threads. Reading a file costs the tool about
 * three times what `cat` pays, most of it in Deno's check of each path
 * against the run's permissions (`--allow-read=.`), which runs on the thread
 * that asks; a large project's files are therefore read on the main thread
 * and on a worker at once, each taking the next chunk of files when it is
 * done with one. Both threads read a file the same way
 * (`readRollupFilesHere`: the worker runs a bundle of that very code, see
 * `read_worker.ts`), with the same permissions; the outcomes come back in
 * the order of the paths, whichever thread read them, so the rollup is the
 * same file for file.
 *
 * A small project is read on the main thread alone (starting the worker
 * costs about 40 ms). A worker that cannot start, fails, answers what it was
 * not asked, or stops answering (`WORKER_PATIENCE_MS` once the main thread
 * has nothing left to read) costs nothing but time: it is stopped, and the
 * chunks it held, and every chunk after them, are read on the main thread.
 *
 * @module
 */

import { OPEN_TIMEOUT_MS } from "../file_system/read_limits.ts";
import { READ_WORKER_SOURCE } from "./read_worker_source.ts";
import { readRollupFilesHere, type RollupFileOutcome } from "./rollup_file.ts";

/** How many files a project needs before the second thread is worth starting. */
const PARALLEL_FROM = 2_000;

/** How many files a thread takes at a time. */
const CHUNK = 500;

/**
 * How long the worker may go without answering once the main thread has
 * read all it could take: a chunk takes a few milliseconds, or one open
 * time-out per fifo swapped in (`OPEN_TIMEOUT_MS`, 5 s) and a little.
 */
const WORKER_PATIENCE_MS = 2 * OPEN_TIMEOUT_MS;

/** Options of {@link readRollupFiles}. */
export interface ParallelReadOptions {
  /**
   * Whether a second thread may be used (default: when the machine has more
   * than one core and there are at least 2,000 paths); tests force either.
   */
  readonly parallel?: boolean;
  /** Starts the second thread (default: the bundled reader, from a `data:` URL); tests break it. */
  readonly startWorker?: () => Worker;
  /**
   * How long the worker may go without answering once the main thread has
   * nothing left to read, in milliseconds (default 10 s); tests shorten it.
   */
  readonly patienceMs?: number;
}

/**
 * Reads `paths` (relative to `root`) for the rollup, on two threads when
 * there are many (see the module doc), and returns each path's outcome in
 * the order of `paths`. Never throws: a failing worker only hands its work
 * back to the main thread.
 */
export async function readRollupFiles(
  root: string,
  paths: readonly string[],
  options: ParallelReadOptions = {},
): Promise<RollupFileOutcome[]> {
  const parallel = options.parallel ??
    (paths.length >= PARALLEL_FROM && navigator.hardwareConcurrency > 1);
  if (!parallel) return await readRollupFilesHere(root, paths);

  const outcomes: RollupFileOutcome[] = new Array(paths.length);
  let next = 0;
  /** The next chunk's first index, or undefined when every chunk is taken. */
  const take = () => {
    if (next >= paths.length) return undefined;
    const start = next;
    next += CHUNK;
    return start;
  };
  const readHere = async (start: number) => {
    const chunk = paths.slice(start, start + CHUNK);
    place(outcomes, start, await readRollupFilesHere(root, chunk));
  };

  const mainThread = async () => {
    for (let start = take(); start !== undefined; start = take()) await readHere(start);
  };
  const reader = SecondThread.start(options.startWorker ?? startBundledReader);
  const secondThread = async () => {
    if (reader === undefined) return await mainThread();
    try {
      // Two chunks asked for at a time: the worker finds the next one waiting when it is done.
      const ask = () => {
        const start = take();
        return start === undefined
          ? undefined
          : { start, answer: reader.read(root, paths.slice(start, start + CHUNK)) };
      };
      for (let asked = [ask(), ask()]; asked[0] !== undefined; asked = [asked[1], ask()]) {
        const { start, answer } = asked[0];
        const read = await answer;
        if (read === undefined) {
          // The worker failed: the chunks it held, and whatever is left, are read here.
          await readHere(start);
          if (asked[1] !== undefined) await readHere(asked[1].start);
          return await mainThread();
        }
        place(outcomes, start, read);
      }
    } finally {
      reader.close();
    }
  };
  // Once the main thread has nothing left to take, the worker must answer in time: a worker
  // that hangs is stopped, and the chunks it held are read here.
  const mainThenWatch = mainThread().then(() =>
    reader?.answerWithin(options.patienceMs ?? WORKER_PATIENCE_MS)
  );
  await Promise.all([mainThenWatch, secondThread()]);
  return outcomes;
}

/** Copies `chunk` into `outcomes` from `start` on. */
function place(
  outcomes: RollupFileOutcome[],
  start: number,
  chunk: readonly RollupFileOutcome[],
): void {
  for (let index = 0; index < chunk.length; index++) outcomes[start + index] = chunk[index];
}

/** The bundled reader (`read_worker.ts`), started from a `data:` URL: it needs no file read. */
function startBundledReader(): Worker {
  const url = `data:text/javascript;base64,${base64(READ_WORKER_SOURCE)}`;
  return new Worker(url, { type: "module", name: "code-commit rollup reader" });
}

/** `text` as UTF-8, in base64. */
function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  return btoa(binary);
}

/** An answer of the worker: one chunk's outcomes. */
interface ReadAnswer {
  readonly id: number;
  readonly outcomes: RollupFileOutcome[];
}

/** The worker: each chunk's answer, or undefined once the worker has failed. */
class SecondThread {
  readonly #worker: Worker;
  #failed = false;
  /** The chunks asked for and not yet answered, by id: how many paths, and who waits. */
  readonly #waiting = new Map<
    number,
    { readonly count: number; readonly settle: (outcomes?: RollupFileOutcome[]) => void }
  >();
  #nextId = 0;
  /** Stops a worker that does not answer in time, once armed (`answerWithin`). */
  #watchdog: { readonly ms: number; timer: ReturnType<typeof setTimeout> } | undefined;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.onmessage = (event: MessageEvent<ReadAnswer>) => {
      const answer = event.data;
      const waiting = this.#waiting.get(answer?.id);
      if (
        waiting === undefined || !Array.isArray(answer.outcomes) ||
        answer.outcomes.length !== waiting.count
      ) {
        this.#fail();
        return;
      }
      this.#waiting.delete(answer.id);
      this.#rearm();
      waiting.settle(answer.outcomes);
    };
    worker.onerror = (event) => {
      event.preventDefault(); // the main thread reads on: no uncaught error for the run
      this.#fail();
    };
    worker.onmessageerror = () => this.#fail();
  }

  /** Starts the worker with `start`; undefined when it cannot be started. Never throws. */
  static start(start: () => Worker): SecondThread | undefined {
    try {
      return new SecondThread(start());
    } catch {
      return undefined;
    }
  }

  /**
   * The outcomes of `paths`, read by the worker, in their order; undefined
   * when the worker failed (then and for every chunk asked for later).
   * Never rejects.
   */
  read(root: string, paths: readonly string[]): Promise<RollupFileOutcome[] | undefined> {
    if (this.#failed) return Promise.resolve(undefined);
    const id = this.#nextId++;
    return new Promise((settle) => {
      this.#waiting.set(id, { count: paths.length, settle });
      try {
        this.#worker.postMessage({ id, root, paths });
      } catch {
        this.#fail();
      }
    });
  }

  /**
   * From now on, each answer must come within `ms` of the one before (or of
   * this call): otherwise the worker is stopped, and every chunk it holds is
   * answered with undefined. Never throws.
   */
  answerWithin(ms: number): void {
    if (this.#failed || this.#watchdog !== undefined) return;
    this.#watchdog = { ms, timer: setTimeout(() => this.#fail(), ms) };
  }

  /** Stops the worker. Never throws. */
  close(): void {
    if (this.#watchdog !== undefined) clearTimeout(this.#watchdog.timer);
    this.#worker.terminate();
  }

  /** Gives the worker its full patience again (after an answer). */
  #rearm(): void {
    const watchdog = this.#watchdog;
    if (watchdog === undefined) return;
    clearTimeout(watchdog.timer);
    watchdog.timer = setTimeout(() => this.#fail(), watchdog.ms);
  }

  #fail(): void {
    if (this.#watchdog !== undefined) clearTimeout(this.#watchdog.timer);
    this.#failed = true;
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const { settle } of waiting) settle(undefined);
    this.#worker.terminate();
  }
}
