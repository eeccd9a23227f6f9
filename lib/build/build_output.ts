/**
 * What a build's output says: THE table of lines that report a failure, the output cut for a repair
 * prompt, its end for the terminal, and where the sandbox refused a path outside the project. Pure.
 *
 * @module
 */
import { posix } from "node:path";
import { stripAnsi } from "../text/ansi.ts";
import { formatCount } from "../text/numbers.ts";
import { plural } from "../text/plural.ts";
import { estimateTokens } from "../text/tokens.ts";

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
 * The indexes of the lines (escapes removed) that report a failure, ascending. Go prints a failing
 * test's messages under `=== RUN   NAME` and `--- FAIL: NAME` only after all subtests, so up to
 * 20 lines after the `=== RUN` of a failed test, to the next `=== ` or `--- `, count too.
 */
function failureLineIndexes(lines: readonly string[]): number[] {
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

/** Lines kept before and after each failure line (a stack trace or a test's details follow it). */
const LINES_BEFORE_FAILURE = 3;
const LINES_AFTER_FAILURE = 8;

/** The share of a cut output's room given to failure lines and the lines around them. */
const FAILURE_SHARE = 0.5;
/** Of the rest, the share given to the beginning (the end gets the remainder). */
const HEAD_SHARE = 1 / 3;

/**
 * `output` whole when its estimated tokens are at most `maxTokens`; otherwise cut to about that,
 * with a first line saying what was kept and where the whole is (`logPath`), a line at each gap,
 * and lines longer than a tenth of the room shortened. Never throws.
 */
export function fitOutput(output: string, maxTokens: number, logPath: string): string {
  if (estimateTokens(output) <= maxTokens) return output;
  // Characters of room: the estimate is per byte, so scale by this output's bytes per character.
  const ratio = output.length / Math.max(1, estimateTokens(output) * 4);
  const room = Math.max(2_000, Math.floor(maxTokens * 4 * ratio));
  const lines = output.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const longest = Math.max(200, Math.floor(room / 10));
  const shown = lines.map((line) => shorten(line, longest));
  const cost = (index: number) => shown[index].length + 1;

  const keep = new Uint8Array(lines.length);
  const failureLines = failureLineIndexes(lines);
  // First every failure line itself, as many as fit; then the lines around each kept one.
  const failureBudget = Math.floor(room * FAILURE_SHARE);
  let failureRoom = failureBudget;
  const kept: number[] = [];
  for (const index of failureLines) {
    if (cost(index) > failureRoom) break;
    failureRoom -= cost(index);
    keep[index] = 1;
    kept.push(index);
  }
  for (const index of kept) {
    const from = Math.max(0, index - LINES_BEFORE_FAILURE);
    const to = Math.min(lines.length - 1, index + LINES_AFTER_FAILURE);
    for (let at = from; at <= to; at++) {
      if (keep[at] || cost(at) > failureRoom) continue;
      failureRoom -= cost(at);
      keep[at] = 1;
    }
  }
  let rest = room - (failureBudget - failureRoom);
  let headRoom = Math.floor(rest * HEAD_SHARE);
  for (let at = 0; at < lines.length && cost(at) <= headRoom; at++) {
    if (!keep[at]) headRoom -= cost(at);
    keep[at] = 1;
  }
  rest -= Math.floor(rest * HEAD_SHARE) - headRoom;
  for (let at = lines.length - 1; at >= 0 && (keep[at] || cost(at) <= rest); at--) {
    if (!keep[at]) rest -= cost(at);
    keep[at] = 1;
  }

  const parts: string[] = [];
  let gaps = 0;
  for (let index = 0; index < lines.length;) {
    const from = index;
    while (index < lines.length && !keep[index]) index++;
    if (index > from) parts.push(`[… ${plural(index - from, "line")} left out here …]`);
    gaps += index - from;
    if (index < lines.length) parts.push(shown[index++]);
  }
  const failures = formatCount(failureLines.length);
  const failureNote = failureLines.length === 0
    ? "and the end (no line reports a failure)"
    : kept.length === failureLines.length
    ? `every line that reports a failure (${failures}) with the lines around it, and the end`
    : `the first ${formatCount(kept.length)} of the ${failures} lines that report a failure, ` +
      `with lines around them, and the end`;
  const summary = `[code-commit: the build printed ${plural(lines.length, "line")}, more than ` +
    `the prompt has room for; ${plural(gaps, "line")} left out. Kept: the beginning, ` +
    `${failureNote}. The whole output is in ${logPath}]`;
  return `${summary}\n${parts.join("\n")}\n`;
}

function shorten(line: string, longest: number): string {
  if (line.length <= longest) return line;
  const left = plural(line.length - longest, "character");
  return `${line.slice(0, longest)}[… ${left} of this line left out]`;
}

/** A line as a terminal shows it after carriage returns (a progress bar). */
function lastVersion(line: string): string {
  const visible = line.replace(/\r+$/, "");
  return visible.slice(visible.lastIndexOf("\r") + 1);
}

/**
 * What the terminal shows of a failing build: the last `count` lines of `output` and how many came
 * before; above them the first `maxFailures` failure lines and how many more (a summary often
 * fills the last lines while the failure is far above). Never throws.
 */
export function failingTail(output: string, count: number, maxFailures = 10): {
  failures: string[];
  failuresOmitted: number;
  tail: { lines: string[]; omitted: number };
} {
  const all = output.split("\n");
  if (all.at(-1) === "") all.pop();
  const omitted = Math.max(0, all.length - count);
  const above = all.slice(0, omitted);
  const found = failureLineIndexes(above);
  const failures = found.slice(0, maxFailures).map((index) => lastVersion(above[index]));
  return {
    failures,
    failuresOmitted: found.length - failures.length,
    tail: { lines: all.slice(omitted).map(lastVersion), omitted },
  };
}

/** A refusal: bubblewrap's read-only mounts give `EROFS`, hidden paths `EACCES`, sandbox-exec `EPERM`. */
const REFUSAL =
  /\bEROFS\b|read-only file system|\bEACCES\b|permission denied|\bEPERM\b|operation not permitted/i;

const QUOTED_PATH = /['"‘`](\/[^'"’`\n]*)['"’`]/g;
const BARE_PATH = /(?:^|[\s=(])(\/[^\s:'"(),]+)/g;

/** Lines of output looked at: a refusal is reported where it happens, not a million lines on. */
const MAX_LINES = 200_000;

/**
 * The first refusal in `output` of an absolute `path` outside every one of `roots` (the root as
 * given and resolved), with its `line` (escapes removed, at most 300 characters): no code change
 * fixes that, so no repair is asked for (a refused path inside is the model's doing). Never throws.
 */
export function findOutsideRefusal(
  output: string,
  roots: readonly string[],
): { path: string; line: string } | undefined {
  const inside = (path: string) =>
    roots.some((root) => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`));
  const lines = stripAnsi(output).split("\n", MAX_LINES);
  for (const line of lines) {
    if (!REFUSAL.test(line)) continue;
    const found = [...line.matchAll(QUOTED_PATH), ...line.matchAll(BARE_PATH)];
    for (const [, path] of found.filter(([, path]) => path.length > 1)) {
      const normal = posix.normalize(path).replace(/(.)\/$/, "$1");
      if (!inside(normal)) {
        const shown = line.trim();
        return { path: normal, line: shown.length > 300 ? `${shown.slice(0, 300)}…` : shown };
      }
    }
  }
  return undefined;
}
