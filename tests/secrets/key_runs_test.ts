/**
 * Tests of the scan for runs of keys: every stretch of text covered by runs
 * of {@link KEY_RUN_LENGTH} characters of a source is reported, exactly, at
 * every place in long text (ASCII or not, across the chunks the scan reads),
 * and nothing else is.
 */

import assert from "node:assert/strict";
import { KEY_RUN_LENGTH, KeyRuns } from "../../lib/secrets/key_runs.ts";
import { GEMINI_KEY, OPENAI_KEY } from "../support/project.ts";

/** Every stretch `runs` reports in `text[from, to)`, as [start, end] pairs. */
function stretches(runs: KeyRuns, text: string, from?: number, to?: number): [number, number][] {
  const found: [number, number][] = [];
  runs.scan(text, (start, end) => void found.push([start, end]), from, to);
  return found;
}

const runs = new KeyRuns([GEMINI_KEY, OPENAI_KEY]);
const run = OPENAI_KEY.slice(9, 9 + KEY_RUN_LENGTH);

Deno.test("a run is 12 characters: 12 of a source are found, 11 are not", () => {
  assert.equal(KEY_RUN_LENGTH, 12);
  assert.deepEqual(stretches(runs, `id = "${run}";`), [[6, 18]]);
  assert.deepEqual(stretches(runs, `id = "${run.slice(0, 11)}";`), []);
  assert.deepEqual(stretches(runs, "ordinary code, nothing secret".repeat(100)), []);
});

Deno.test("overlapping runs are joined into one stretch; separate ones reported in order", () => {
  const text = `a ${GEMINI_KEY} b ${run} c`;
  const second = 2 + GEMINI_KEY.length + 3;
  assert.deepEqual(stretches(runs, text), [
    [2, 2 + GEMINI_KEY.length],
    [second, second + KEY_RUN_LENGTH],
  ]);
});

Deno.test("the scan stops when found returns true, and looks only in [from, to)", () => {
  const text = `${run} and ${run}`;
  const seen: number[] = [];
  runs.scan(text, (start) => {
    seen.push(start);
    return true;
  });
  assert.deepEqual(seen, [0]);
  const second = KEY_RUN_LENGTH + 5;
  assert.deepEqual(stretches(runs, text, 1), [[second, second + KEY_RUN_LENGTH]]);
  assert.deepEqual(stretches(runs, text, 0, text.length - 1), [[0, KEY_RUN_LENGTH]]);
});

Deno.test("sources shorter than a run add none", () => {
  const short = new KeyRuns(["short7x", "elevenchars"]);
  assert.deepEqual(stretches(short, "short7x elevenchars"), []);
});

Deno.test("a run is found at every place across chunk edges: ASCII, not ASCII, and mixed", () => {
  const ascii = "const value = compute(input); // plain ASCII code\n".repeat(1500); // 75,000
  const fillers = {
    ascii,
    "not ASCII": ascii.replaceAll("plain", "plaîn"),
    "ASCII, then not": ascii.slice(0, 30_000) + ascii.slice(30_000).replaceAll("code", "cøde"),
    "not, then ASCII": ascii.slice(0, 30_000).replaceAll("code", "c—de") + ascii.slice(30_000),
  };
  for (const [name, filler] of Object.entries(fillers)) {
    assert.deepEqual(stretches(runs, filler), [], name);
    for (let edge = 16_384; edge <= 65_536; edge += 16_384) {
      for (let at = edge - 14; at <= edge + 2; at++) {
        const text = filler.slice(0, at) + run + filler.slice(at + run.length);
        assert.deepEqual(stretches(runs, text), [[at, at + KEY_RUN_LENGTH]], `${name}, at ${at}`);
      }
    }
  }
});

Deno.test("a run is found after characters of more than one byte, in short text and in a chunk", () => {
  for (const wide of ["é", "中", "\u{1F600}"]) {
    for (const before of ["", "x".repeat(16_000)]) {
      for (let filler = 0; filler <= 16; filler++) {
        const text = `${before}${wide}${"x".repeat(filler)}${run} and after`;
        const at = before.length + wide.length + filler;
        assert.deepEqual(stretches(runs, text), [[at, at + KEY_RUN_LENGTH]], `${wide}, ${filler}`);
      }
    }
  }
});
