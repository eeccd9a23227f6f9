import assert from "node:assert/strict";
import { failingTail } from "../../lib/build/output_tail.ts";

const outputTail = (output: string, count: number) => failingTail(output, count).tail;

Deno.test("outputTail: the last lines and how many came before", () => {
  const output = Array.from({ length: 25 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  const tail = outputTail(output, 20);
  assert.equal(tail.omitted, 5);
  assert.equal(tail.lines.length, 20);
  assert.equal(tail.lines[0], "line 6");
  assert.equal(tail.lines.at(-1), "line 25");
  assert.deepEqual(outputTail("a\nb", 20), { lines: ["a", "b"], omitted: 0 });
  assert.deepEqual(outputTail("", 20), { lines: [], omitted: 0 });
});

Deno.test("outputTail: a line rewritten with carriage returns shows its last version", () => {
  assert.deepEqual(outputTail("10%\r50%\r100%\r\nerror: x\r\n", 20).lines, ["100%", "error: x"]);
});

Deno.test("failingTail: failure lines far above the last lines come first", () => {
  const lines = Array.from({ length: 5000 }, (_, n) => `ok ${n} - passes`);
  lines[3845] = "not ok 3845 - Cannot read properties of null";
  lines.push("# tests 5000", "# pass 4999", "# fail 1", "# failed 1 of 43 tests");
  const shown = failingTail(`${lines.join("\n")}\n`, 20);
  assert.deepEqual(shown.failures, ["not ok 3845 - Cannot read properties of null"]);
  assert.equal(shown.failuresOmitted, 0);
  assert.equal(shown.tail.lines.at(-1), "# failed 1 of 43 tests");
  assert.equal(shown.tail.omitted, 4984);
});

Deno.test("failingTail: at most ten failure lines, the rest counted; none when all are in the tail", () => {
  const many = Array.from({ length: 100 }, (_, n) => `FAIL test ${n}`).concat(
    Array.from({ length: 30 }, (_, n) => `summary ${n}`),
  );
  const shown = failingTail(many.join("\n"), 20);
  assert.equal(shown.failures.length, 10);
  assert.equal(shown.failures[0], "FAIL test 0");
  assert.equal(shown.failuresOmitted, 90);
  assert.deepEqual(failingTail("a\nError: x\nb\n", 20).failures, []);
});

Deno.test("failingTail: a failing Go subtest's message, printed far above its --- FAIL line, comes first", () => {
  const lines = ["=== RUN   TestRanges"];
  for (let n = 1; n <= 100; n++) {
    lines.push(`=== RUN   TestRanges/case_${n}`);
    if (n === 50) lines.push("    ranges_test.go:17: got 1, want 2");
  }
  lines.push("--- FAIL: TestRanges (0.10s)");
  for (let n = 1; n <= 100; n++) {
    lines.push(`    --- ${n === 50 ? "FAIL" : "PASS"}: TestRanges/case_${n}`);
  }
  lines.push("FAIL");
  const { failures } = failingTail(`${lines.join("\n")}\n`, 20);
  assert.deepEqual(failures, [
    "    ranges_test.go:17: got 1, want 2",
    "--- FAIL: TestRanges (0.10s)",
    "    --- FAIL: TestRanges/case_50",
  ]);
});
