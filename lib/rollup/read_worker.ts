/**
 * The rollup's second thread: a worker that reads files for the rollup with
 * the very code the main thread uses (`readRollupFilesHere`), so that both
 * cores share the work (most of it is Deno's permission check of each path,
 * which runs on the thread that asks).
 *
 * This module is not loaded as it is: `deno task bundle-worker`
 * (`scripts/bundle_read_worker.ts`) bundles it, with what it imports, into
 * one self-contained script, `read_worker_source.ts`, which
 * `parallel_reads.ts` starts from a `data:` URL, through a loader
 * (`readerWorkerUrl`) that keeps anything the worker does from being
 * printed. A worker started from a file would need read access to the
 * tool's own folder; one started from a `data:` URL needs none, and it has
 * exactly the permissions of the run (`--allow-read=.`): it cannot read more
 * than the main thread can.
 *
 * Each message asks for one chunk, `{ id, root, paths }`; the answer is
 * `{ id, outcomes }`, the outcomes in the order of `paths`, or `{ id }`
 * alone should anything go wrong (the main thread then reads the chunk
 * itself).
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
};

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
