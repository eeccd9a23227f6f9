/**
 * Line diffs: lines added and removed, and one file's unified diff. The common head and tail are
 * set aside first; past {@link MAX_EDIT_DISTANCE} edits or {@link MAX_WORK} steps the lines between
 * count as replaced whole. Nothing recurses or spreads an array, so any input the read limits let
 * in is diffed in bounded time and memory. Pure.
 *
 * @module
 */

/** What a change does to a file's lines: how many it adds and removes. */
export interface LineCounts {
  readonly added: number;
  readonly removed: number;
}

/** Past this many inserted and deleted lines, the middle of a diff is replaced whole. */
const MAX_EDIT_DISTANCE = 2_000;

/** Past this many steps of Myers' search, the middle is replaced whole: tenths of a second at most. */
const MAX_WORK = 50_000_000;

/** Past this many units between the common head and tail, the line counts take them as replaced. */
const MAX_DIFF_UNITS = 64 * 1024 * 1024;

/** Lines of the unified diff's context around each change. */
const CONTEXT = 3;

/** Marks a last line that has no line end, so that it differs from the same line with one. */
const NO_LINE_END = "\u0000\u0001no line end";

const LF = 10;

/** The lines of `text` without their `\n`; a last line without one carries {@link NO_LINE_END}. */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  else lines[lines.length - 1] += NO_LINE_END;
  return lines;
}

/** A run of lines replaced: old lines `[a, aEnd)` become new lines `[b, bEnd)` (either may be empty). */
interface Change {
  a: number;
  aEnd: number;
  b: number;
  bEnd: number;
}

/**
 * The runs of lines replaced going from `a` to `b`, in order: a shortest edit script's, or past
 * the search's bounds one run of all between head and tail.
 */
function changes(a: readonly string[], b: readonly string[]): Change[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head && tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) tail++;
  const n = a.length - head - tail;
  const m = b.length - head - tail;
  if (n === 0 && m === 0) return [];
  const whole: Change = { a: head, aEnd: head + n, b: head, bEnd: head + m };
  if (n === 0 || m === 0 || Math.abs(n - m) > MAX_EDIT_DISTANCE) return [whole];
  const found = editScript(a.slice(head, head + n), b.slice(head, head + m));
  if (found === undefined) return [whole];
  for (const change of found) {
    change.a += head;
    change.aEnd += head;
    change.b += head;
    change.bEnd += head;
  }
  return found;
}

/**
 * Myers' greedy search for the length D of a shortest edit script, each step's diagonals before
 * it kept in `trace` for {@link editScript} (O(D²) space). -1 past the bounds.
 */
function search(a: readonly string[], b: readonly string[], trace: Int32Array[]): number {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  let work = 0;
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])
        ? v[offset + k + 1]
        : v[offset + k - 1] + 1;
      let y = x - k;
      const start = x;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      work += 1 + x - start;
      v[offset + k] = x;
      if (x >= n && y >= m) return d;
    }
    if (work > MAX_WORK) return -1;
  }
  return -1;
}

/** A shortest edit script as runs of lines replaced: {@link search}'s trace walked back. */
function editScript(a: readonly string[], b: readonly string[]): Change[] | undefined {
  const trace: Int32Array[] = [];
  const found = search(a, b, trace);
  if (found < 0) return undefined;
  // Walked back from the end: each step is one line removed or added, after the kept lines
  // (the snake) that follow it; a kept line closes the run being gathered.
  const runs: Change[] = [];
  let run: Change | undefined;
  let x = a.length;
  let y = b.length;
  for (let d = found; d > 0; d--) {
    // trace[d] holds v[offset - d - 1 .. offset + d + 1] as it was before step d.
    const previous = trace[d];
    const at = (diagonal: number) => previous[diagonal + d + 1];
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    if (x > prevX && y > prevY && run !== undefined) {
      runs.push(run);
      run = undefined;
    }
    const snake = Math.min(x - prevX, y - prevY);
    x -= snake;
    y -= snake;
    if (run === undefined) run = { a: x, aEnd: x, b: y, bEnd: y };
    if (down) run.b = --y;
    else run.a = --x;
  }
  if (run !== undefined) runs.push(run);
  return runs.reverse();
}

/** How many lines `text` holds, counted as {@link countLineChanges} counts them. Never throws. */
export function countLines(text: Units): number {
  let lines = 0;
  for (let at = nextLineFeed(text, 0); at !== -1; at = nextLineFeed(text, at + 1)) lines++;
  return text.length > 0 && unitAt(text, text.length - 1) !== LF ? lines + 1 : lines;
}

/** A text as a string, or as UTF-8 bytes. */
type Units = string | Uint8Array;

function unitAt(text: Units, at: number): number {
  return typeof text === "string" ? text.charCodeAt(at) : text[at];
}

/** Where the line feed at or after `from` is in `text`; -1 when there is none. */
function nextLineFeed(text: Units, from: number): number {
  return typeof text === "string" ? text.indexOf("\n", from) : text.indexOf(LF, from);
}

/** Where the last line feed at or before `from` (at least 0) is in `text`; -1 when there is none. */
function lastLineFeed(text: Units, from: number): number {
  return typeof text === "string" ? text.lastIndexOf("\n", from) : text.lastIndexOf(LF, from);
}

/** How many units `a` and `b` share at their start. */
function sameStart(a: Units, b: Units): number {
  const shorter = Math.min(a.length, b.length);
  let same = 0;
  if (typeof a === "string") {
    const other = b as string;
    while (same < shorter && a.charCodeAt(same) === other.charCodeAt(same)) same++;
  } else {
    const other = b as Uint8Array;
    while (same < shorter && a[same] === other[same]) same++;
  }
  return same;
}

/** How many units `a` and `b` share at their end, at most `room`. */
function sameEnd(a: Units, b: Units, room: number): number {
  let same = 0;
  const endA = a.length - 1;
  const endB = b.length - 1;
  if (typeof a === "string") {
    const other = b as string;
    while (same < room && a.charCodeAt(endA - same) === other.charCodeAt(endB - same)) same++;
  } else {
    const other = b as Uint8Array;
    while (same < room && a[endA - same] === other[endB - same]) same++;
  }
  return same;
}

/**
 * The whole lines two different texts share at start and end, less `context` lines each side,
 * found without splitting: `head` units and `headLines` lines, and `tail` units.
 */
function commonLines(
  a: Units,
  b: Units,
  context: number,
): { head: number; headLines: number; tail: number } {
  const same = sameStart(a, b);
  // The common head ends after the last line feed the texts share.
  let head = same === 0 ? 0 : lastLineFeed(a, same - 1) + 1;
  for (let i = 0; i < context && head > 0; i++) {
    head = head < 2 ? 0 : lastLineFeed(a, head - 2) + 1;
  }
  const common = sameEnd(a, b, Math.min(a.length, b.length) - head);
  // The common tail starts at a line start of both texts, else after its first line feed.
  let tail = 0;
  const lineStart = (text: Units, at: number) => at === head || unitAt(text, at - 1) === LF;
  if (common > 0) {
    if (lineStart(a, a.length - common) && lineStart(b, b.length - common)) {
      tail = common;
    } else {
      const end = nextLineFeed(a, a.length - common);
      tail = end === -1 ? 0 : a.length - end - 1;
    }
  }
  for (let i = 0; i < context && tail > 0; i++) {
    const end = nextLineFeed(a, a.length - tail);
    tail = end === -1 ? 0 : a.length - end - 1;
  }
  let headLines = 0;
  for (let at = nextLineFeed(a, 0); at !== -1 && at < head; at = nextLineFeed(a, at + 1)) {
    headLines++;
  }
  return { head, headLines, tail };
}

/**
 * How many lines going from `a` to `b` (strings, or bytes as {@link countByteLineChanges}) adds and
 * removes: only the lines between the common head and tail are diffed. Never throws.
 */
export function countLineChanges(a: Units, b: Units): LineCounts {
  if (a.length === b.length && sameStart(a, b) === a.length) return { added: 0, removed: 0 };
  const { head, tail } = commonLines(a, b, 0);
  const middleA = a.slice(head, a.length - tail);
  const middleB = b.slice(head, b.length - tail);
  if (
    middleA.length === 0 || middleB.length === 0 ||
    middleA.length + middleB.length > MAX_DIFF_UNITS
  ) {
    return { added: countLines(middleB), removed: countLines(middleA) };
  }
  let added = 0;
  let removed = 0;
  for (const change of changes(splitLines(asText(middleA)), splitLines(asText(middleB)))) {
    added += change.bEnd - change.b;
    removed += change.aEnd - change.a;
  }
  return { added, removed };
}

/** A string as it is; bytes one character a byte (lines equal exactly when their bytes are). */
function asText(units: Units): string {
  return typeof units === "string" ? units : new TextDecoder("latin1").decode(units);
}

/**
 * {@link countLineChanges} of UTF-8 bytes, never decoded whole (files beyond what a string holds).
 *
 * @throws {RangeError} only when memory runs out.
 */
export function countByteLineChanges(before: Uint8Array, after: Uint8Array): LineCounts {
  return countLineChanges(before, after);
}

/** {@link countByteLineChanges} of two files (null: none); undefined when memory ran out. */
export function countFileLineChanges(
  before: Uint8Array | null,
  after: Uint8Array | null,
): LineCounts | undefined {
  try {
    return countByteLineChanges(before ?? new Uint8Array(), after ?? new Uint8Array());
  } catch {
    return undefined;
  }
}

/** The unified diff of one file as git writes it (null: no file); empty when nothing changes. */
export function unifiedDiff(path: string, before: string | null, after: string | null): string {
  if (before === after) return "";
  const textA = before ?? "";
  const textB = after ?? "";
  const { head, headLines, tail } = commonLines(textA, textB, CONTEXT);
  const a = splitLines(textA.slice(head, textA.length - tail));
  const b = splitLines(textB.slice(head, textB.length - tail));
  const found = changes(a, b);
  if (found.length === 0) return "";
  const out = [
    `--- ${before === null ? "/dev/null" : `a/${path}`}`,
    `+++ ${after === null ? "/dev/null" : `b/${path}`}`,
  ];
  const line = (op: string, text: string) => {
    if (text.endsWith(NO_LINE_END)) {
      out.push(`${op}${text.slice(0, -NO_LINE_END.length)}`);
      out.push("\\ No newline at end of file");
    } else {
      out.push(`${op}${text}`);
    }
  };
  for (let first = 0; first < found.length;) {
    // A hunk: the runs whose kept lines between are at most twice the context.
    let last = first;
    while (last + 1 < found.length && found[last + 1].a - found[last].aEnd <= 2 * CONTEXT) last++;
    const startA = Math.max(0, found[first].a - CONTEXT);
    const startB = found[first].b - (found[first].a - startA);
    const endA = Math.min(a.length, found[last].aEnd + CONTEXT);
    const endB = found[last].bEnd + (endA - found[last].aEnd);
    const countA = endA - startA;
    const countB = endB - startB;
    const fromA = headLines + (countA === 0 ? startA : startA + 1);
    const fromB = headLines + (countB === 0 ? startB : startB + 1);
    out.push(`@@ -${range(fromA, countA)} +${range(fromB, countB)} @@`);
    let kept = startA;
    for (let i = first; i <= last; i++) {
      const change = found[i];
      for (; kept < change.a; kept++) line(" ", a[kept]);
      for (let j = change.a; j < change.aEnd; j++) line("-", a[j]);
      for (let j = change.b; j < change.bEnd; j++) line("+", b[j]);
      kept = change.aEnd;
    }
    for (; kept < endA; kept++) line(" ", a[kept]);
    first = last + 1;
  }
  return `${out.join("\n")}\n`;
}

/** A hunk range: `start,count`, or `start` alone for one line. */
function range(start: number, count: number): string {
  return count === 1 ? `${start}` : `${start},${count}`;
}
