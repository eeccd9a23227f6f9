/**
 * Line diffs: how many lines a change adds and removes, and the unified
 * diff (`diff -u`, as `git apply` and `patch` read it) of one file. Myers'
 * algorithm on the lines between the common head and tail; past
 * {@link MAX_EDIT_DISTANCE} edits the rest counts as removed and added
 * whole, so a file rewritten from end to end costs linear time. Pure.
 *
 * @module
 */

/** What a change does to a file's lines. */
export interface LineCounts {
  /** Lines in the new text that are not in the old one. */
  readonly added: number;
  /** Lines of the old text that are not in the new one. */
  readonly removed: number;
}

/** Past this many inserted and deleted lines, the middle of a diff is replaced whole. */
const MAX_EDIT_DISTANCE = 2_000;

/** Lines of the unified diff's context around each change. */
const CONTEXT = 3;

/** Marks a last line that has no line end, so that it differs from the same line with one. */
const NO_LINE_END = "\u0000\u0001no line end";

/**
 * The lines of `text`, each without its `\n`; a final line end ends the
 * last line rather than starting an empty one, and a last line without one
 * carries a mark (so that adding the line end is a change). Never throws.
 */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  else lines[lines.length - 1] += NO_LINE_END;
  return lines;
}

/** One run of the edit script: lines kept, removed or added. */
type Edit = { readonly op: " " | "-" | "+"; readonly line: string };

/**
 * The edit script from `a` to `b`: every line of both, in order, marked
 * kept, removed or added. Never throws.
 */
function editScript(a: readonly string[], b: readonly string[]): Edit[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head && tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) tail++;
  const middleA = a.slice(head, a.length - tail);
  const middleB = b.slice(head, b.length - tail);
  const edits: Edit[] = a.slice(0, head).map((line) => ({ op: " ", line }));
  edits.push(...myers(middleA, middleB));
  edits.push(...a.slice(a.length - tail).map((line): Edit => ({ op: " ", line })));
  return edits;
}

/** Myers' O((N+M)D) diff of `a` and `b`; past the edit limit, all of `a` removed and `b` added. */
function myers(a: readonly string[], b: readonly string[]): Edit[] {
  const n = a.length;
  const m = b.length;
  if (n === 0) return b.map((line) => ({ op: "+", line }));
  if (m === 0) return a.map((line) => ({ op: "-", line }));
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    // Only the diagonals -d..d matter at step d: the trace grows with D², not D·(N+M).
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])
        ? v[offset + k + 1]
        : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) {
    return [
      ...a.map((line): Edit => ({ op: "-", line })),
      ...b.map((line): Edit => ({ op: "+", line })),
    ];
  }
  // Walk the trace back from the end.
  const edits: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    // trace[d] holds v[offset - d - 1 .. offset + d + 1] as it was before step d.
    const previous = trace[d];
    const at = (diagonal: number) => previous[diagonal + d + 1];
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) edits.push({ op: " ", line: a[--x] }) && y--;
    if (down) edits.push({ op: "+", line: b[--y] });
    else edits.push({ op: "-", line: a[--x] });
  }
  while (x > 0 && y > 0) edits.push({ op: " ", line: a[--x] }) && y--;
  return edits.reverse();
}

/**
 * How many lines `bytes` (UTF-8 text) holds, counted as {@link
 * countLineChanges} counts them, without decoding it. Never throws.
 */
export function countLines(bytes: Uint8Array): number {
  let lines = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) lines++;
  return bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? lines + 1 : lines;
}

/** How many lines going from `before` to `after` adds and removes. Never throws. */
export function countLineChanges(before: string, after: string): LineCounts {
  const a = splitLines(before);
  const b = splitLines(after);
  if (a.length === 0) return { added: b.length, removed: 0 };
  if (b.length === 0) return { added: 0, removed: a.length };
  let added = 0;
  let removed = 0;
  for (const edit of editScript(a, b)) {
    if (edit.op === "+") added++;
    else if (edit.op === "-") removed++;
  }
  return { added, removed };
}

/**
 * The unified diff of one file, `diff -u` style with `a/` and `b/`
 * prefixes as git writes them: `before` null is a created file (`---
 * /dev/null`), `after` null a deleted one. Empty when nothing changes.
 * Never throws.
 */
export function unifiedDiff(path: string, before: string | null, after: string | null): string {
  if (before === after) return "";
  const a = splitLines(before ?? "");
  const b = splitLines(after ?? "");
  const edits = editScript(a, b);
  const changed: number[] = [];
  edits.forEach((edit, index) => edit.op !== " " && changed.push(index));
  if (changed.length === 0) return "";
  // Where each edit stands: the lines of a and of b before it.
  const at: { a: number; b: number }[] = [];
  let lineA = 0;
  let lineB = 0;
  for (const edit of edits) {
    at.push({ a: lineA, b: lineB });
    if (edit.op !== "+") lineA++;
    if (edit.op !== "-") lineB++;
  }
  at.push({ a: lineA, b: lineB });
  const groups: [number, number][] = [];
  for (const index of changed) {
    const last = groups.at(-1);
    if (last !== undefined && index - last[1] - 1 <= 2 * CONTEXT) last[1] = index;
    else groups.push([index, index]);
  }
  const out = [
    `--- ${before === null ? "/dev/null" : `a/${path}`}`,
    `+++ ${after === null ? "/dev/null" : `b/${path}`}`,
  ];
  for (const [first, last] of groups) {
    const start = Math.max(0, first - CONTEXT);
    const end = Math.min(edits.length, last + CONTEXT + 1);
    const countA = at[end].a - at[start].a;
    const countB = at[end].b - at[start].b;
    const fromA = countA === 0 ? at[start].a : at[start].a + 1;
    const fromB = countB === 0 ? at[start].b : at[start].b + 1;
    out.push(`@@ -${range(fromA, countA)} +${range(fromB, countB)} @@`);
    for (const edit of edits.slice(start, end)) {
      if (edit.line.endsWith(NO_LINE_END)) {
        out.push(`${edit.op}${edit.line.slice(0, -NO_LINE_END.length)}`);
        out.push("\\ No newline at end of file");
      } else {
        out.push(`${edit.op}${edit.line}`);
      }
    }
  }
  return `${out.join("\n")}\n`;
}

/** A hunk range: `start,count`, or `start` alone for one line. */
function range(start: number, count: number): string {
  return count === 1 ? `${start}` : `${start},${count}`;
}
