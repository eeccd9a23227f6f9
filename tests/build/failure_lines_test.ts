import assert from "node:assert/strict";
import { FAILURE_PATTERNS, failureLineIndexes } from "../../lib/build/failure_lines.ts";

/** Whether the table counts `line`, alone, as a failure line. */
const isFailureLine = (line: string) => failureLineIndexes([line]).length === 1;

Deno.test("isFailureLine: what test runners, compilers and npm print where something failed", () => {
  for (
    const line of [
      "not ok 5 - Cannot read properties of null",
      "    not ok 1 - subtest",
      " FAIL  src/money.test.js",
      "--- FAIL: TestAddsCents (0.00s)",
      "tests/test_money.py::test_adds_cents FAILED",
      "test result: FAILED. 7689 passed; 1 failed; 0 ignored",
      "# failed 1 of 43 tests",
      "# fail 1",
      "  1 failing",
      "Tests:       1 failed, 7689 passed, 7690 total",
      "  ✗ adds cents",
      "  ✕ adds cents (3 ms)",
      "  ● money › adds cents",
      "  ● Test suite failed to run",
      "Error: Cannot find module 'x'",
      "TypeError: x is not a function",
      "AssertionError [ERR_ASSERTION]: 1 !== 2",
      "error[E0308]: mismatched types",
      "error: could not compile `money`",
      "src/a.c:3:5: error: expected ';'",
      "src/money.ts(3,5): error TS2322: Type 'string' is not assignable",
      "src/money.ts:3:5 - error TS2322: Type 'string'",
      "Traceback (most recent call last):",
      "E       assert 101 == 100",
      "thread 'main' panicked at src/main.rs:2:5:",
      "panic: runtime error: index out of range",
      "npm ERR! code ELIFECYCLE",
      "npm error Lifecycle script `test` failed",
    ]
  ) {
    assert(isFailureLine(line), line);
  }
});

Deno.test("isFailureLine: passing lines and zero counts are not failures", () => {
  for (
    const line of [
      "ok 5 - parses",
      "# fail 0",
      "0 failed, 12 passed",
      "Tests: 0 failed, 3 passed",
      "test result: ok. 3 passed; 0 failed; 0 ignored",
      "    ✓ handles case 3 (1ms)",
      " PASS  src/a.test.js",
      "  ● Console",
      "tests/test_a.py::test_b PASSED",
      "--- PASS: TestCase1 (0.00s)",
      "Found 0 errors. Watching for file changes.",
      "compiling error_handling.rs",
      "asset main.js 1.2 KiB [emitted]",
    ]
  ) {
    assert(!isFailureLine(line), line);
  }
});

Deno.test("every pattern of the table is listed in docs/build-output.md", async () => {
  const docs = await Deno.readTextFile(new URL("../../docs/build-output.md", import.meta.url));
  for (const { what } of FAILURE_PATTERNS) assert(docs.includes(what), what);
});
