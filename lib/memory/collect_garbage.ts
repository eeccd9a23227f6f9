/**
 * Gives memory back at the moment a run knows a large string just became
 * garbage. V8 frees a large string only at its next full collection, which
 * may come long after: a 20 MB reply body, dropped once it is logged, was
 * still held through the whole apply, which raised the run's peak by as much.
 *
 * V8 offers the call only under `--expose-gc`, one of the flags every
 * `./code-commit` runs with (`lib/permissions/permissions.ts`); run
 * otherwise (`deno run main.ts`), this does nothing.
 *
 * @module
 */

/** The length, in characters, past which a dropped string is worth a full collection. */
export const LARGE_STRING = 1024 * 1024;

/**
 * Runs a full garbage collection now when V8 exposes it (`--expose-gc`),
 * and says whether it did. It takes a few milliseconds for the tool's heap:
 * call it once, right after dropping a string longer than {@link LARGE_STRING}.
 * Never throws.
 */
export function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== "function") return false;
  gc();
  return true;
}
