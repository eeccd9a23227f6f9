/**
 * The end of a failing build's output as a terminal would have shown it. Pure.
 *
 * @module
 */
import { failureLineIndexes } from "./failure_lines.ts";

/** A line as a terminal shows it: its last version after carriage returns (a progress bar). */
function lastVersion(line: string): string {
  const visible = line.replace(/\r+$/, "");
  return visible.slice(visible.lastIndexOf("\r") + 1);
}

/** What the terminal shows of a failing build: failure lines from above the tail, then the tail. */
export interface FailingTail {
  /** The first failure lines above the tail, as shown, and how many more there are. */
  readonly failures: readonly string[];
  readonly failuresOmitted: number;
  /** The last lines as shown, oldest first, and how many lines came before them. */
  readonly tail: { readonly lines: readonly string[]; readonly omitted: number };
}

/**
 * The last `count` lines of `output` (escapes removed), and the first `maxFailures` failure lines
 * above them: a summary often fills the last lines while the failure is far above. Never throws.
 */
export function failingTail(output: string, count: number, maxFailures = 10): FailingTail {
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
