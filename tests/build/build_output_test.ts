/**
 * The failure-line table, and what it keeps. What a repair prompt shows of a
 * build's output: whole when it fits, and when it must be cut, the failing
 * line still reaches the prompt, for the output of every kind of test runner
 * and compiler the table knows, at 100 KB to 1 MB with the failure in the
 * middle. What the terminal shows of a failing build's end. Where the
 * sandbox refused a path outside the project.
 */
import assert from "node:assert/strict";
import { stripAnsi } from "../../lib/text/ansi.ts";
import { type BuildResult, formatBuildForPrompt } from "../../lib/build/run_build.ts";
import {
  failingTail,
  FAILURE_PATTERNS,
  findOutsideRefusal,
  fitOutput,
} from "../../lib/build/build_output.ts";
import { estimateTokens } from "../../lib/text/tokens.ts";

/** Whether the table counts `line`, alone, as a failure line (shown above an empty tail). */
const isFailureLine = (line: string) => failingTail(line, 0).failures.length === 1;

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

// The cut for a repair prompt.

const LOG = "logs/2026-11-27-08-00-00-committing-code/1-initial-query-build.txt";

/** A failed build with `output`. */
function failed(output: string): BuildResult {
  return {
    exitCode: 1,
    signal: null,
    timedOut: false,
    interrupted: false,
    output,
    droppedBytes: 0,
    elapsedMs: 1200,
    timeoutMs: 1_800_000,
  };
}

/** One runner's output: a passing line `n`, the failure (its lines), and the summary at the end. */
interface Runner {
  readonly passing: (n: number) => string;
  readonly failure: readonly string[];
  /** The line that must reach the prompt, as the model should read it (escapes removed). */
  readonly failingLine: string;
  readonly summary: string;
}

const ESC = "\x1b";
const RUNNERS: Record<string, Runner> = {
  tap: {
    passing: (n) => `ok ${n} - parses range ${n}\n  ---\n  duration_ms: 0.${n % 97}\n  ...`,
    failure: [
      "not ok 3845 - Cannot read properties of null (reading 'version')",
      "  ---",
      "  stack: TypeError: Cannot read properties of null",
      "  ...",
    ],
    failingLine: "not ok 3845 - Cannot read properties of null (reading 'version')",
    summary: "# tests 7690\n# pass 7689\n# fail 1\n# failed 1 of 43 tests",
  },
  mocha: {
    passing: (n) => `    ✓ handles case ${n} (${n % 7}ms)`,
    failure: [
      "    1) rejects an empty name",
      "  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 1 !== 2",
    ],
    failingLine: "  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 1 !== 2",
    summary: "  7689 passing (3s)\n  1 failing",
  },
  jest: {
    passing: (n) => `${ESC}[1m${ESC}[42m PASS ${ESC}[49m${ESC}[22m src/case${n}.test.js`,
    failure: [
      `${ESC}[1m${ESC}[41m FAIL ${ESC}[49m${ESC}[22m src/money.test.js`,
      "  ● money › adds cents",
      "    expect(received).toBe(expected) // Object.is equality",
    ],
    failingLine: " FAIL  src/money.test.js",
    summary: "Tests:       1 failed, 7689 passed, 7690 total",
  },
  pytest: {
    passing: (n) => `tests/test_cases.py::test_case_${n} PASSED`,
    failure: [
      "tests/test_money.py::test_adds_cents FAILED",
      "E       assert 101 == 100",
    ],
    failingLine: "E       assert 101 == 100",
    summary: "=========== 1 failed, 7689 passed in 12.31s ===========",
  },
  cargo: {
    passing: (n) => `test tests::case_${n} ... ok`,
    failure: [
      "test tests::adds_cents ... FAILED",
      "thread 'tests::adds_cents' panicked at src/lib.rs:10:5:",
      "assertion `left == right` failed",
    ],
    failingLine: "thread 'tests::adds_cents' panicked at src/lib.rs:10:5:",
    summary: "test result: FAILED. 7689 passed; 1 failed; 0 ignored",
  },
  "go test": {
    passing: (n) => `=== RUN   TestCase${n}\n--- PASS: TestCase${n} (0.00s)`,
    failure: ["--- FAIL: TestAddsCents (0.00s)", "    money_test.go:12: got 101, want 100"],
    failingLine: "--- FAIL: TestAddsCents (0.00s)",
    summary: "FAIL\tgithub.com/x/money\t0.412s",
  },
  tsc: {
    passing: (n) => `asset chunk-${n}.js ${n % 900} bytes [emitted] (name: chunk-${n})`,
    failure: [
      `${ESC}[96msrc/money.ts${ESC}[0m:${ESC}[93m3${ESC}[0m:${ESC}[93m5${ESC}[0m - ${ESC}[91merror${ESC}[0m${ESC}[90m TS2322: ${ESC}[0mType 'string' is not assignable to type 'number'.`,
    ],
    failingLine:
      "src/money.ts:3:5 - error TS2322: Type 'string' is not assignable to type 'number'.",
    summary: "Found 1 error in src/money.ts:3",
  },
};

/** About `bytes` of `runner`'s output, the failure in the middle. */
function outputOf(runner: Runner, bytes: number): string {
  const before: string[] = [];
  const after: string[] = [];
  let size = 0;
  for (let n = 1; size < bytes; n++) {
    const line = runner.passing(n);
    (size < bytes / 2 ? before : after).push(line);
    size += line.length + 1;
  }
  return [...before, ...runner.failure, ...after, runner.summary, ""].join("\n");
}

const BUDGET = 10_000; // tokens: about 40 KB, well under every output below

for (const [name, runner] of Object.entries(RUNNERS)) {
  Deno.test(`a cut ${name} output of 100 KB to 1 MB keeps the failing line from its middle`, () => {
    for (const bytes of [100_000, 400_000, 1_000_000]) {
      const output = outputOf(runner, bytes);
      assert(estimateTokens(output) > BUDGET * 2, "the output must be cut");
      const prompt = formatBuildForPrompt(failed(output), LOG, BUDGET);
      const size = `${name}, ${bytes} bytes`;
      assert(prompt.includes(runner.failingLine), `${size}: the failing line is missing`);
      assert(prompt.includes(runner.summary.split("\n").at(-1)!), `${size}: the end is missing`);
      assert(!prompt.includes(ESC), `${size}: an escape sequence reached the prompt`);
      assert(estimateTokens(prompt) <= BUDGET * 1.05, `${size}: ${estimateTokens(prompt)} tokens`);
      assert.match(prompt, /^\$ \.\/build\.sh\n\[code-commit: the build printed [\d,]+ lines/);
      assert(prompt.includes(`The whole output is in ${LOG}]`), size);
      assert.match(prompt, /\[… [\d,]+ lines left out here …\]/);
      assert.match(prompt, /\[exit code 1, after 1\.2s\]\n$/);
    }
  });
}

Deno.test("the whole output is kept when it fits, escape sequences removed", () => {
  const output = outputOf(RUNNERS.jest, 600_000);
  const prompt = formatBuildForPrompt(failed(output), LOG);
  assert(!prompt.includes("left out"));
  assert.equal(
    prompt,
    `$ ./build.sh\n${stripAnsi(output)}[exit code 1, after 1.2s]\n`,
  );
  assert.equal(fitOutput("a\nb\n", 2, LOG), "a\nb\n");
});

Deno.test("a cut keeps the beginning, the lines around a failure and the end, and counts the gaps", () => {
  const lines = Array.from({ length: 2000 }, (_, n) => `line ${n}`);
  lines[1000] = "Error: the real failure";
  const cut = fitOutput(`${lines.join("\n")}\n`, 1_000, LOG);
  assert.match(
    cut,
    /^\[code-commit: the build printed 2,000 lines, more than the prompt has room for; [\d,]+ lines left out\. Kept: the beginning, every line that reports a failure \(1\) with the lines around it, and the end\./,
  );
  for (const kept of ["line 0", "line 997", "Error: the real failure", "line 1008", "line 1999"]) {
    assert(cut.includes(`\n${kept}\n`), kept);
  }
  assert(!cut.includes("\nline 996\n") && !cut.includes("\nline 1009\n"));
  // Every line is either shown or counted in a gap.
  const shown = cut.split("\n").filter((line) => /^line \d+$|^Error/.test(line)).length;
  const counted = [...cut.matchAll(/\[… ([\d,]+) lines? left out here …\]/g)]
    .reduce((sum, match) => sum + Number(match[1].replaceAll(",", "")), 0);
  assert.equal(shown + counted, 2000);
});

Deno.test("when failure lines alone overflow their share, the first ones are kept and the note says so", () => {
  const lines = Array.from({ length: 20_000 }, (_, n) => `not ok ${n} - case ${n} broke`);
  const cut = fitOutput(`${lines.join("\n")}\n`, 2_000, LOG);
  assert.match(
    cut,
    /Kept: the beginning, the first [\d,]+ of the 20,000 lines that report a failure/,
  );
  assert(estimateTokens(cut) <= 2_100);
});

Deno.test("a line longer than a tenth of the room is shortened, saying by how much", () => {
  const cut = fitOutput(`${"x".repeat(500_000)}\nError: boom\n`, 5_000, LOG);
  assert.match(cut, /x\[… [\d,]+ characters of this line left out\]/);
  assert(cut.includes("Error: boom"));
  assert(estimateTokens(cut) <= 5_250);
});

/**
 * `go test -v` of a table of 5,000 subtests, one failing: its message is
 * printed under its `=== RUN` line in the middle, its `--- FAIL:` line only
 * after all subtests ran, thousands of lines further down.
 */
function goSubtests(): string {
  const name = (n: number) => `TestRanges/range_${n}_satisfies_its_comparator_set`;
  const lines = ["=== RUN   TestRanges"];
  for (let n = 1; n <= 5000; n++) {
    lines.push(`=== RUN   ${name(n)}`);
    if (n === 2500) {
      lines.push(`    ranges_test.go:17: go version 2500: got "1.2.3-beta", want "ok"`);
    }
    if (n === 3500) lines.push(`    ranges_test.go:20: a passing test's log line`);
  }
  lines.push("--- FAIL: TestRanges (0.10s)");
  for (let n = 1; n <= 5000; n++) {
    lines.push(`    --- ${n === 2500 ? "FAIL" : "PASS"}: ${name(n)} (0.00s)`);
  }
  lines.push("FAIL", "FAIL\texample.com/ranges\t0.112s", "FAIL", "");
  return lines.join("\n");
}

Deno.test("a cut go test -v output keeps a failing subtest's message from far above its --- FAIL line", () => {
  const output = goSubtests();
  assert(estimateTokens(output) > BUDGET * 5, "the output must be cut");
  const prompt = formatBuildForPrompt(failed(output), LOG, BUDGET);
  assert.match(
    prompt,
    /\n=== RUN {3}TestRanges\/range_2500_satisfies_its_comparator_set\n {4}ranges_test\.go:17: go version 2500: got "1\.2\.3-beta", want "ok"\n/,
  );
  assert(prompt.includes("\n    --- FAIL: TestRanges/range_2500_satisfies_its_comparator_set"));
  assert(!prompt.includes("a passing test's log line"), "a passing test's log is not a failure");
});

// The end of a failing build, as the terminal shows it.

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

// A refusal of the sandbox outside the project.

const ROOTS = ["/home/me/project", "/srv/real/project"];

Deno.test("findOutsideRefusal: a read-only file system or permission denied outside the project", () => {
  const cases: [string, string][] = [
    ["npm ERR! EROFS: read-only file system, mkdir '/root/.npm'", "/root/.npm"],
    ["Error: EACCES: permission denied, open '/root/.config/tool.json'", "/root/.config/tool.json"],
    ["mkdir: cannot create directory '/root/.cache': Read-only file system", "/root/.cache"],
    ["OSError: [Errno 30] Read-only file system: '/usr/lib/python3/x'", "/usr/lib/python3/x"],
    ["PermissionError: [Errno 13] Permission denied: '/etc/app.conf'", "/etc/app.conf"],
    ["./build.sh: line 3: /var/log/app.log: Permission denied", "/var/log/app.log"],
    // macOS's sandbox-exec refuses with EPERM.
    ["touch: /Users/me/.cache/x: Operation not permitted", "/Users/me/.cache/x"],
    ["\x1b[31mnpm ERR!\x1b[0m EROFS: read-only file system, open '/root/.npmrc'", "/root/.npmrc"],
    // A path beside the project whose name starts like it is outside it.
    ["EROFS: read-only file system, mkdir '/home/me/project-cache'", "/home/me/project-cache"],
  ];
  for (const [line, path] of cases) {
    const found = findOutsideRefusal(`building\n${line}\nexit 1\n`, ROOTS);
    assert.equal(found?.path, path, line);
    assert(found.line.includes(path));
    assert(!found.line.includes("\x1b"));
  }
});

Deno.test("findOutsideRefusal: refusals inside the project, and other failures, are not", () => {
  for (
    const output of [
      "EROFS: read-only file system, open '/home/me/project/build.sh'",
      "touch: cannot touch '/srv/real/project/.git/x': Read-only file system",
      "EACCES: permission denied, open 'relative/path.txt'",
      "bash: ./run.sh: Permission denied",
      "Error: ENOENT: no such file or directory, open '/root/missing'",
      "not ok 1 - expected /usr/bin/env to exist",
      "fetch https://registry.npmjs.org/x failed: permission denied by policy",
    ]
  ) {
    assert.equal(findOutsideRefusal(output, ROOTS), undefined, output);
  }
});
