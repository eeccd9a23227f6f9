/**
 * The end of a failing build's output as a terminal would have shown it. Pure.
 *
 * @module
 */
import { failureLineIndexes } from "./failure_lines.ts";

/** A line as a terminal shows it after carriage returns (a progress bar). */
function lastVersion(line: string): string {
  const visible = line.replace(/\r+$/, "");
  return visible.slice(visible.lastIndexOf("\r") + 1);
}

/**
 * What the terminal shows of a failing build: the last `count` lines of `output` (escapes
 * removed) as shown, oldest first, and how many came before them; above them, the first
 * `maxFailures` failure lines as shown and how many more there are (a summary often fills the last
 * lines while the failure is far above). Never throws.
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
