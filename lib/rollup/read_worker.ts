/**
 * The rollup's second thread: a worker that reads files for the rollup with
 * the very code the main thread uses (`readRollupFilesHere`), so that both
 * cores share the work (most of it is Deno's permission check of each path,
 * which runs on the thread that asks).
 *
 * This module is not loaded as it is: `scripts/bundle_read_worker.sh`
 * bundles it, with what it imports, into one self-contained script,
 * `read_worker_source.ts`, which `parallel_reads.ts` starts from a `data:`
 * URL. A worker started from a file would need read access to the tool's
 * own folder; one started from a `data:` URL needs none, and it has exactly
 * the permissions of the run (`--allow-read=.`): it cannot read more than the
 * main thread can.
 *
 * Each message asks for one chunk, `{ id, root, paths }`; the answer is
 * `{ id, outcomes }`, the outcomes in the order of `paths`, or `{ id }`
 * alone should anything go wrong (the main thread then reads the chunk
 * itself). Nothing this worker does is printed: an error Deno would report
 * from a worker goes to standard error as it is, past the redaction of every
 * line the tool prints, so none is left uncaught here.
 *
 * @module
 */

import { readRollupFilesHere } from "./rollup_file.ts";

/** A chunk of files to read. */
interface ReadRequest {
  readonly id: number;
  readonly root: string;
  readonly paths: readonly string[];
}

/** The worker's global scope, as far as this module uses it. */
const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<ReadRequest>) => void) | null;
  postMessage(message: unknown): void;
  addEventListener(type: "error" | "unhandledrejection", listener: (event: Event) => void): void;
};

// Nothing uncaught is reported (see the module doc): the main thread hears of a failure by an
// answer without outcomes, or by none (it stops a worker that does not answer in time).
scope.addEventListener("error", (event) => event.preventDefault());
scope.addEventListener("unhandledrejection", (event) => event.preventDefault());

// Chunks are answered one at a time, in the order they were asked for.
let queue: Promise<void> = Promise.resolve();
scope.onmessage = (event) => {
  const id = event.data?.id;
  queue = queue.then(async () => {
    try {
      const { root, paths } = event.data;
      scope.postMessage({ id, outcomes: await readRollupFilesHere(root, paths) });
    } catch {
      scope.postMessage({ id });
    }
  });
};
