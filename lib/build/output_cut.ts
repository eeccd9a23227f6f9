/**
 * A build's output cut to fit a repair prompt: the beginning, the end, and every failure line
 * with a few lines around it, each gap counted. Pure.
 *
 * @module
 */
import { formatCount } from "../text/numbers.ts";
import { plural } from "../text/plural.ts";
import { estimateTokens } from "../text/tokens.ts";
import { failureLineIndexes } from "./failure_lines.ts";

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
