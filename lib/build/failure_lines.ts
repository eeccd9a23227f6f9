/**
 * THE table of lines that report a failure in a build's output, which a cut repair prompt keeps
 * and the terminal shows first. Pure.
 *
 * @module
 */

/** Every kind of failure line (`what` prints it, for the docs), escapes removed: a line matching any is one. */
export const FAILURE_PATTERNS: readonly { readonly what: string; readonly pattern: RegExp }[] = [
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

/** Go's verdict on a test, its `-v` start (or resume) of a test's lines, and their end. */
const GO_FAIL = /^\s*--- FAIL: (\S+)/;
const GO_RUN = /^=== (?:RUN|CONT)\s+(\S+)\s*$/;
const GO_BOUNDARY = /^\s*(?:=== |--- )/;
const GO_MESSAGE_LINES = 20;

/**
 * The indexes of the lines (escapes removed) that report a failure, ascending. Go prints a
 * failing test's messages (no failure word in them) under `=== RUN   NAME` and its
 * `--- FAIL: NAME` only after all subtests, so up to 20 lines after the `=== RUN` line of a
 * failed test, to the next `=== ` or `--- `, count too. Never throws.
 */
export function failureLineIndexes(lines: readonly string[]): number[] {
  const indexes: number[] = [];
  const failedGoTests = new Set<string>();
  for (let index = 0; index < lines.length; index++) {
    // Very long lines (minified code, a data dump) are looked at only in their first part.
    const text = lines[index].slice(0, 2_000);
    if (!FAILURE_PATTERNS.some(({ pattern }) => pattern.test(text))) continue;
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
