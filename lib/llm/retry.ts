/**
 * When to retry an LLM request and how long to wait: the server's hints, else backoff.
 * @module
 */

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** The default retry policy: a longer server hint than `maxHintMs` ends the call. */
export const DEFAULT_RETRY_POLICY = {
  maxAttempts: 5,
  baseDelayMs: 2_000,
  maxDelayMs: 60_000,
  maxHintMs: 300_000,
};

/** The retry policy of a client, in milliseconds, shaped as {@link DEFAULT_RETRY_POLICY}. */
export type RetryPolicy = Readonly<typeof DEFAULT_RETRY_POLICY>;

/** Tells whether an HTTP status is worth retrying. Never throws. */
export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/** The backoff wait before retry `retry` (1-based): doubling, capped, jittered. Never throws. */
export function backoffDelayMs(
  retry: number,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling * (0.5 + random() / 2));
}

/** The wait hint of `retry-after-ms`, else `retry-after`, in milliseconds. Never throws. */
export function retryAfterFromHeaders(
  headers: Headers,
  now: number = Date.now(),
): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.round(Number(ms));
  const after = headers.get("retry-after");
  if (after === null) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(after)) return Math.round(Number(after) * 1000);
  const date = Date.parse(after);
  if (!Number.isNaN(date)) return Math.max(0, date - now);
  return undefined;
}
