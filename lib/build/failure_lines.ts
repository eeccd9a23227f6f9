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
    what: "jest's details of a failed test: `● suite › test`",
    pattern: /^\s*● (?!Console\s*$)\S/,
  },
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
function isFailureLine(line: string): boolean {
  // Very long lines (minified code, a data dump) are looked at only in their first part.
  const text = line.length > 2_000 ? line.slice(0, 2_000) : line;
  return FAILURE_PATTERNS.some(({ pattern }) => pattern.test(text));
}

/** Go's verdict on a test, printed once the test (and its subtests) ran: `--- FAIL: NAME (0.00s)`. */
const GO_FAIL = /^\s*--- FAIL: (\S+)/;
/** Where Go's `-v` output starts (or resumes) a test's own lines: `=== RUN   NAME`, `=== CONT  NAME`. */
const GO_RUN = /^=== (?:RUN|CONT)\s+(\S+)\s*$/;
/** The end of a test's own lines: the next `=== …` or `--- …` line. */
const GO_BOUNDARY = /^\s*(?:=== |--- )/;
/** The most message lines taken from one `=== RUN` block. */
const GO_MESSAGE_LINES = 20;

/**
 * The indexes of the lines of `lines` (escape sequences removed) that
 * report a failure, ascending: the lines {@link isFailureLine} tells, and
 * the messages of each test Go's `go test -v` reports failed. Go prints a
 * failing test's messages (`x_test.go:17: got 1, want 2`, no failure word
 * in them) under its `=== RUN   NAME` line, and its `--- FAIL: NAME` only
 * after the test and its subtests ran, thousands of lines further down for
 * a table of subtests: so the lines after `=== RUN   NAME` up to the next
 * `=== ` or `--- ` line (at most 20 of them) count too. Never throws.
 */
export function failureLineIndexes(lines: readonly string[]): number[] {
  const indexes: number[] = [];
  const failedGoTests = new Set<string>();
  for (let index = 0; index < lines.length; index++) {
    if (!isFailureLine(lines[index])) continue;
    indexes.push(index);
    const goFail = GO_FAIL.exec(lines[index]);
    if (goFail) failedGoTests.add(goFail[1]);
  }
  if (failedGoTests.size === 0) return indexes;
  const chosen = new Set(indexes);
  for (let index = 0; index < lines.length; index++) {
    const run = GO_RUN.exec(lines[index]);
    if (!run || !failedGoTests.has(run[1])) continue;
    for (let at = index + 1; at < lines.length && at <= index + GO_MESSAGE_LINES; at++) {
      if (GO_BOUNDARY.test(lines[at])) break;
      chosen.add(at);
    }
  }
  return [...chosen].sort((a, b) => a - b);
}
