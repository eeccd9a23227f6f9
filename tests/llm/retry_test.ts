/**
 * Tests of the retry rules: which statuses are retried, the backoff formula
 * and its jitter, and how the server's own hints are read (`retry-after-ms`,
 * `retry-after` in seconds or as a date).
 */

import assert from "node:assert/strict";
import {
  backoffDelayMs,
  DEFAULT_RETRY_POLICY,
  isRetryableStatus,
  retryAfterFromHeaders,
  type RetryPolicy,
} from "../../lib/llm/retry.ts";

Deno.test("exactly 408, 429, 500, 502, 503 and 504 are retryable", () => {
  const statuses = Array.from({ length: 500 }, (_, index) => 100 + index);
  assert.deepEqual(statuses.filter(isRetryableStatus), [408, 429, 500, 502, 503, 504]);
});

Deno.test("the default policy: 5 attempts, 2 s doubling to 60 s, hints up to 5 minutes", () => {
  assert.deepEqual(DEFAULT_RETRY_POLICY, {
    maxAttempts: 5,
    baseDelayMs: 2_000,
    maxDelayMs: 60_000,
    maxHintMs: 300_000,
  });
});

/** retry number, random() value, expected wait, with the default policy. */
const BACKOFF: [number, number, number][] = [
  [1, 0, 1_000],
  [1, 0.5, 1_500],
  [1, 0.999, 1_999],
  [2, 0, 2_000],
  [2, 0.5, 3_000],
  [3, 0, 4_000],
  [4, 0.25, 10_000],
  [5, 0, 16_000],
  [6, 0, 30_000], // 2 s · 2^5 = 64 s, capped at 60 s
  [6, 0.5, 45_000],
  [20, 0.999, 59_970],
];

for (const [retry, random, expected] of BACKOFF) {
  Deno.test(`backoff before retry ${retry} with random ${random} is ${expected} ms`, () => {
    assert.equal(backoffDelayMs(retry, DEFAULT_RETRY_POLICY, () => random), expected);
  });
}

Deno.test("backoff follows the policy it is given and stays in [half, whole) of the ceiling", () => {
  const policy: RetryPolicy = { maxAttempts: 9, baseDelayMs: 100, maxDelayMs: 300, maxHintMs: 1 };
  assert.deepEqual(
    [1, 2, 3, 4, 5].map((retry) => backoffDelayMs(retry, policy, () => 0.5)),
    [75, 150, 225, 225, 225],
  );
  for (let i = 0; i < 200; i++) {
    const wait = backoffDelayMs(2, policy); // real Math.random
    assert.ok(wait >= 100 && wait <= 200, `wait ${wait}`);
  }
});

/** Headers, expected hint in ms (now = NOW). */
const NOW = Date.parse("Tue, 15 Sep 2026 08:00:00 GMT");
const HINTS: [string, Record<string, string>, number | undefined][] = [
  ["no hint", {}, undefined],
  ["retry-after-ms", { "retry-after-ms": "1200" }, 1200],
  ["retry-after-ms with a fraction", { "retry-after-ms": "1200.6" }, 1201],
  ["retry-after in seconds", { "retry-after": "2" }, 2000],
  ["retry-after with a fraction", { "retry-after": "1.5" }, 1500],
  ["retry-after of zero", { "retry-after": "0" }, 0],
  ["retry-after padded with blanks", { "retry-after": " 3 " }, 3000],
  ["retry-after-ms beats retry-after", { "retry-after-ms": "1200", "retry-after": "2" }, 1200],
  [
    "an unreadable retry-after-ms falls back",
    { "retry-after-ms": "soon", "retry-after": "4" },
    4000,
  ],
  [
    "retry-after as an HTTP date",
    { "retry-after": "Tue, 15 Sep 2026 08:00:30 GMT" },
    30_000,
  ],
  ["retry-after as a date in the past", { "retry-after": "Tue, 15 Sep 2026 07:00:00 GMT" }, 0],
  ["retry-after that is no number or date", { "retry-after": "soon" }, undefined],
  ["retry-after-ms alone, unreadable", { "retry-after-ms": "1e3" }, undefined],
];

for (const [name, headers, expected] of HINTS) {
  Deno.test(`retryAfterFromHeaders: ${name}`, () => {
    assert.equal(retryAfterFromHeaders(new Headers(headers), NOW), expected);
  });
}
