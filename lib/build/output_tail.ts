/**
 * The end of a build's output, as a terminal would have shown it: what the
 * user sees of a failing build without opening the log. Pure: no I/O.
 *
 * @module
 */
import { failureLineIndexes } from "./failure_lines.ts";

/** The last lines of an output, and how many came before them. */
export interface OutputTail {
  /** The last lines, oldest first. */
  readonly lines: readonly string[];
  /** How many lines came before them. */
  readonly omitted: number;
}

/**
 * The last `count` lines of `output`. A line rewritten with carriage returns
 * (a progress bar) is shown as its last version, as a terminal shows it;
 * a final line break does not make an empty last line. Never throws.
 */
function outputTail(output: string, count: number): OutputTail {
  const all = output.split("\n");
  if (all.at(-1) === "") all.pop();
  const start = Math.max(0, all.length - count);
  const lines = all.slice(start).map(lastVersion);
  return { lines, omitted: start };
}

/** A line as a terminal shows it: its last version after carriage returns. */
function lastVersion(line: string): string {
  const visible = line.replace(/\r+$/, "");
  return visible.slice(visible.lastIndexOf("\r") + 1);
}

/** What the terminal shows of a failing build: failure lines from above the tail, then the tail. */
export interface FailingTail {
  /** Lines above the tail that report a failure (see `failure_lines.ts`), the first ones, as shown. */
  readonly failures: readonly string[];
  /** How many more such lines there are above the tail. */
  readonly failuresOmitted: number;
  /** The last lines (see {@link outputTail}). */
  readonly tail: OutputTail;
}

/**
 * The last `count` lines of `output` (see {@link outputTail}), and the first
 * `maxFailures` lines above them that report a failure: a test runner's
 * summary (`# failed 1 of 43 tests`, a coverage table) often fills the last
 * lines while the failure itself is far above. `output` should have its
 * escape sequences removed. Never throws.
 */
export function failingTail(output: string, count: number, maxFailures = 10): FailingTail {
  const tail = outputTail(output, count);
  const failures: string[] = [];
  // The lines above the tail: the first `tail.omitted` lines of the output.
  const above = tail.omitted === 0 ? [] : output.split("\n", tail.omitted);
  const found = failureLineIndexes(above);
  for (const index of found.slice(0, maxFailures)) failures.push(lastVersion(above[index]));
  return { failures, failuresOmitted: found.length - failures.length, tail };
}
