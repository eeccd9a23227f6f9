/**
 * The end of a build's output, as a terminal would have shown it: what the
 * user sees of a failing build without opening the log. Pure: no I/O.
 *
 * @module
 */

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
export function outputTail(output: string, count: number): OutputTail {
  const all = output.split("\n");
  if (all.at(-1) === "") all.pop();
  const start = Math.max(0, all.length - count);
  const lines = all.slice(start).map((line) => {
    const visible = line.replace(/\r+$/, "");
    return visible.slice(visible.lastIndexOf("\r") + 1);
  });
  return { lines, omitted: start };
}
