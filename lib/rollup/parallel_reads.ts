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
import { readerWorkerUrl } from "./reader_loader.ts";
import { readRollupFilesHere, type RollupFileOutcome } from "./rollup_file.ts";

/** How many files a project needs before the second thread is worth starting. */
const PARALLEL_FROM = 2_000;

/** How many files a thread takes at a time. */
const CHUNK = 500;

/**
 * How many chunks the worker may hold while the walk still adds paths:
 * about what it reads while a large project is walked.
 */
const CHUNKS_AHEAD_WHILE_ADDING = 8;

/**
 * How long the worker may go without answering once the main thread has
 * read all it could take: a chunk takes a few milliseconds, or one open
 * time-out per fifo swapped in (`OPEN_TIMEOUT_MS`, 5 s) and a little.
 */
const WORKER_PATIENCE_MS = 2 * OPEN_TIMEOUT_MS;

/** Options of {@link RollupReads}. */
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

/** A chunk of the paths added: from `start` up to, not including, `end`. */
interface Chunk {
  readonly start: number;
  readonly end: number;
}

/**
 * The rollup's reads, queued as the paths become known: while the walk
 * lists the project, the worker (started once 2,000 paths are queued)
 * reads whole chunks of what was listed so far; {@link finish} then reads
 * the rest on both threads. Call {@link close} in any case (it stops the
 * worker, which would otherwise keep waiting for paths).
 */
export class RollupReads {
  readonly #root: string;
  readonly #options: ParallelReadOptions;
  /** Every path added, in order; `#outcomes[i]` is the outcome of `#paths[i]`. */
  readonly #paths: string[] = [];
  readonly #outcomes: RollupFileOutcome[] = [];
  /** The first path no thread has taken yet. */
  #next = 0;
  /** No more paths come: a chunk may be shorter than `CHUNK`. */
  #finishing = false;
  /** Finished or closed: no worker is started any more. */
  #closed = false;
  /** Chunks a failed worker held, for the main thread to read. */
  readonly #handedBack: Chunk[] = [];
  /** Whether the worker was started (it may have failed to). */
  #started = false;
  #reader: SecondThread | undefined;
  /** How many chunks the worker holds. */
  #asked = 0;
  /** How many chunks the worker answered. */
  #workerChunks = 0;
  /** Settled once the worker holds nothing and will be asked nothing more. */
  readonly #secondDone = Promise.withResolvers<void>();

  /** Reads for the project at `root`; see {@link ParallelReadOptions}. Never throws. */
  constructor(root: string, options: ParallelReadOptions = {}) {
    this.#root = root;
    this.#options = options;
  }

  /** Every path added so far, in the order added (the order of {@link finish}'s outcomes). */
  get paths(): readonly string[] {
    return this.#paths;
  }

  /**
   * Queues `paths` to be read (a path added twice is read twice); the worker
   * may start on them at once.
   *
   * @throws {RangeError} once {@link finish} was called (a programming
   * error: its outcomes would not hold these paths).
   */
  add(paths: readonly string[]): void {
    if (this.#finishing) throw new RangeError("RollupReads.add: the reads are finished already");
    for (const path of paths) this.#paths.push(path);
    this.#startSecondThread();
    this.#askSecondThread();
  }

  /**
   * Reads every path added that is not read yet, on this thread and the
   * worker, stops the worker, and returns the outcome of each path added,
   * in the order added. Call it once.
   *
   * @throws {RangeError} when called a second time (a programming error).
   * Otherwise never: what a failing worker held is read here.
   */
  async finish(): Promise<RollupFileOutcome[]> {
    if (this.#finishing) throw new RangeError("RollupReads.finish: called a second time");
    this.#finishing = true;
    this.#startSecondThread();
    this.#askSecondThread();
    const readHere = async () => {
      for (let chunk = this.#takeChunk(); chunk !== undefined; chunk = this.#takeChunk()) {
        const paths = this.#paths.slice(chunk.start, chunk.end);
        this.#place(chunk, await readRollupFilesHere(this.#root, paths));
      }
    };
    await readHere();
    // Nothing is left to take: the worker must now answer in time (a worker that hangs is
    // stopped, and the chunks it held are read here).
    this.#reader?.answerWithin(this.#options.patienceMs ?? WORKER_PATIENCE_MS);
    if (this.#reader !== undefined) await this.#secondDone.promise;
    this.close(); // it holds nothing, and is asked nothing more
    await readHere();
    return this.#outcomes;
  }

  /** Stops the worker, if it runs, and starts none after. Never throws. */
  close(): void {
    this.#closed = true;
    this.#reader?.close();
  }

  /**
   * How many chunks the worker answered and this object took (0 when it was
   * not started, or failed at once): whether the second thread took part.
   */
  get workerChunks(): number {
    return this.#workerChunks;
  }

  /** Starts the worker once it is worth it (see {@link ParallelReadOptions.parallel}). */
  #startSecondThread(): void {
    if (this.#started || this.#closed || this.#options.parallel === false) return;
    const worthIt = this.#options.parallel === true ||
      (this.#paths.length >= PARALLEL_FROM && navigator.hardwareConcurrency > 1);
    if (!worthIt) return;
    this.#started = true;
    this.#reader = SecondThread.start(this.#options.startWorker ?? startBundledReader);
  }

  /** The worker holds nothing and will be asked nothing more. */
  #settleSecondThread(): void {
    this.#secondDone.resolve();
  }

  /**
   * The next chunk to read: a chunk handed back by a failed worker first,
   * then the next `CHUNK` paths (fewer only once no more paths come);
   * undefined when there is none.
   */
  #takeChunk(): Chunk | undefined {
    const handedBack = this.#handedBack.shift();
    if (handedBack !== undefined) return handedBack;
    const available = this.#paths.length - this.#next;
    if (available <= 0 || (!this.#finishing && available < CHUNK)) return undefined;
    const start = this.#next;
    this.#next = Math.min(start + CHUNK, this.#paths.length);
    return { start, end: this.#next };
  }

  /** Takes `outcomes` as the outcomes of `chunk`. */
  #place(chunk: Chunk, outcomes: readonly RollupFileOutcome[]): void {
    for (let index = 0; index < outcomes.length; index++) {
      this.#outcomes[chunk.start + index] = outcomes[index];
    }
  }

  /**
   * Asks the worker for chunks, as many as it may hold: while paths are
   * still added, up to `CHUNKS_AHEAD_WHILE_ADDING` (the walk keeps the main
   * thread busy, and does not turn to the worker's answers until it is
   * done), then two (the worker finds the next one waiting when it is done
   * with one, and the main thread takes the rest).
   */
  #askSecondThread(): void {
    const reader = this.#reader;
    if (reader === undefined) return;
    const ahead = this.#finishing ? 2 : CHUNKS_AHEAD_WHILE_ADDING;
    while (this.#asked < ahead && !reader.failed) {
      const chunk = this.#takeChunk();
      if (chunk === undefined) break;
      this.#asked++;
      reader.read(this.#root, this.#paths.slice(chunk.start, chunk.end)).then((outcomes) => {
        this.#asked--;
        if (outcomes === undefined) {
          this.#handedBack.push(chunk);
        } else {
          this.#place(chunk, outcomes);
          this.#workerChunks++;
        }
        this.#askSecondThread();
      });
    }
    if (this.#asked === 0 && (this.#finishing || reader.failed)) this.#settleSecondThread();
  }
}

/** The bundled reader (`read_worker.ts`), started from a `data:` URL: it needs no file read. */
function startBundledReader(): Worker {
  return new Worker(readerWorkerUrl(READ_WORKER_SOURCE), {
    type: "module",
    name: "code-commit rollup reader",
  });
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
   * this call): otherwise the worker is stopped (even one that holds
   * nothing), and every chunk it holds is answered with undefined. Never
   * throws.
   */
  answerWithin(ms: number): void {
    if (this.#failed || this.#watchdog !== undefined) return;
    this.#watchdog = { ms, timer: setTimeout(() => this.#fail(), ms) };
  }

  /** Whether the worker failed (or was stopped): it is asked nothing more. */
  get failed(): boolean {
    return this.#failed;
  }

  /** Stops the worker; a chunk still waiting is answered with undefined. Never throws. */
  close(): void {
    this.#fail();
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
