/**
 * The loader the rollup's reader worker is started with (see
 * `parallel_reads.ts` and `read_worker.ts`): a `data:` URL, so that the
 * worker needs no read access to the tool's own files.
 *
 * @module
 */

/**
 * The `data:` URL that starts the rollup's reader `bundle` (a script, see
 * `read_worker.ts`): a loader that first keeps anything the worker does
 * from being printed (Deno prints a worker's uncaught error itself, to
 * standard error, past the redaction of every line the tool prints: here
 * none is left uncaught, not even one the bundle throws as it loads, or a
 * bundle that does not parse), then loads the bundle, and hands it the
 * requests that arrived while it loaded. A bundle that fails to load, or
 * sets no `onmessage`, answers `{ failed: true }`. Never throws.
 */
export function readerWorkerUrl(bundle: string): string {
  const loader = `addEventListener("error", (event) => event.preventDefault());
addEventListener("unhandledrejection", (event) => event.preventDefault());
const early = [];
const keep = (event) => early.push(event);
self.onmessage = keep;
try {
  await import(${JSON.stringify(`data:text/javascript;base64,${base64(bundle)}`)});
  const handler = self.onmessage;
  if (handler === keep || typeof handler !== "function") throw new Error("no reader");
  for (const event of early.splice(0)) {
    try {
      handler(event);
    } catch {
      // as for a request that comes later: not printed, and never answered
    }
  }
} catch {
  self.onmessage = null;
  postMessage({ failed: true });
}
`;
  return `data:text/javascript;base64,${base64(loader)}`;
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
