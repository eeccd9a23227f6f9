/**
 * THE table of lines that report a failure in a build's output: what test
 * runners, compilers and package managers print where something went
 * wrong. A cut repair prompt keeps these lines (and a few around each), and
 * the terminal shows them first when a failing build's last lines hold none.
 * Pure.
 *
 * @module
 */

/** One kind of line that reports a failure. */
export interface FailurePattern {
  /** Who prints it, for people (the docs list this table). */
  readonly what: string;
  /** A line of that kind (ANSI escapes already removed). */
  readonly pattern: RegExp;
}

/** Every kind of failure line, in no particular order: a line matching any of them is one. */
export const FAILURE_PATTERNS: readonly FailurePattern[] = [
  { what: "TAP (node --test, tap, tape): `not ok 5 - …`", pattern: /^\s*not ok\b/ },
  {
    what: "jest, go test, pytest, cargo: `FAIL`, `FAILED`, `--- FAIL:`",
    pattern: /\bFAIL(?:ED|URE|URES)?\b/,
  },
  {
    what:
      "a count of failures that is not zero: `1 failed`, `failed 1 of 43`, `3 failing`, `# fail 1`",
    pattern: /(?<!(?:^|[^\d.,])0 )\b(?:failed|failing)\b|^# fail [1-9]/i,
  },
  { what: "marks of a failed test: `✗`, `✕`, `✖`, `×`", pattern: /[✗✕✖×✘]/ },
  {
    what: "errors as most languages print them: `Error:`, `TypeError:`, `AssertionError`",
    pattern: /\b\w*Error:|\bAssertionError\b/,
  },
  {
    what: "compilers: `error:`, rustc `error[E0308]`, tsc `error TS2345`",
    pattern: /(?:^|[\s:])error:|\berror\[E\d+\]|\berror TS\d+/,
  },
  {
    what: "Python: `Traceback (most recent call last)`, pytest's `E   …`",
    pattern: /^Traceback \(most recent call last\)|^E {2,}\S/,
  },
  { what: "Rust: `thread 'x' panicked at`; Go: `panic:`", pattern: /\bpanicked at\b|^panic: / },
  { what: "npm: `npm ERR!`, `npm error`", pattern: /^npm (?:ERR!|error)/ },
];

/** Tells whether `line` (ANSI escapes removed) reports a failure. Never throws. */
export function isFailureLine(line: string): boolean {
  // Very long lines (minified code, a data dump) are looked at only in their first part.
  const text = line.length > 2_000 ? line.slice(0, 2_000) : line;
  return FAILURE_PATTERNS.some(({ pattern }) => pattern.test(text));
}
