/**
 * Tests of the Console: progress, warnings and errors on stderr, results on
 * stdout, every method redacted; the live waiting line drawn only when
 * stderr is a terminal, kept below what is printed meanwhile, and cleared.
 * The latest output line of a build: lines ended by LF, CRLF or CR, pieces
 * cut anywhere, blank lines skipped, ANSI escapes removed.
 */

import assert from "node:assert/strict";
import { Console, LatestLine } from "../../lib/console/console.ts";
import { memoryStreams } from "../support/console.ts";
import { Redactor } from "../../lib/secrets/redact.ts";
import { GEMINI_KEY, OPENAI_KEY } from "../support/project.ts";

const REDACTOR = new Redactor([GEMINI_KEY, OPENAI_KEY]);
const CLEAR = "\r\x1b[2K";

function make(terminal = false) {
  const streams = memoryStreams({ terminal });
  return { streams, console: new Console(streams, REDACTOR) };
}

// ---------------------------------------------------------------------------
// Routing

/** Method, input, stream, what is written. */
const ROUTES: ["info" | "warn" | "error" | "result", string, "out" | "err", string][] = [
  ["info", "building", "err", "building\n"],
  ["warn", "no reply blocks", "err", "warning: no reply blocks\n"],
  [
    "error",
    "agent-config/gemini-key.txt not found",
    "err",
    "code-commit: agent-config/gemini-key.txt not found\n",
  ],
  ["result", "report written", "out", "report written\n"],
  ["result", "already ends\n", "out", "already ends\n"],
  ["result", "", "out", "\n"],
];

for (const [method, line, stream, expected] of ROUTES) {
  Deno.test(`${method}(${JSON.stringify(line)}) goes to ${stream === "out" ? "stdout" : "stderr"}`, () => {
    const { streams, console } = make();
    console[method](line);
    assert.deepEqual(streams[stream], [expected]);
    assert.deepEqual(streams[stream === "out" ? "err" : "out"], []);
  });
}

Deno.test("memoryStreams: not a terminal and no colour by default; terminal on request", () => {
  const plain = memoryStreams();
  assert.equal(plain.stderrIsTerminal, false);
  assert.equal(plain.color, false);
  const terminal = memoryStreams({ terminal: true });
  assert.equal(terminal.stderrIsTerminal, true);
  assert.equal(terminal.color, false);
});

Deno.test("colour, when allowed, paints only the prefixes", () => {
  const err: string[] = [];
  const console = new Console(
    { stdout: () => {}, stderr: (t) => err.push(t), stderrIsTerminal: false, color: true },
    REDACTOR,
  );
  console.warn("careful");
  console.error("failed");
  console.info("plain");
  assert.deepEqual(err, [
    "\x1b[33mwarning:\x1b[0m careful\n",
    "\x1b[31mcode-commit:\x1b[0m failed\n",
    "plain\n",
  ]);
});

// ---------------------------------------------------------------------------
// Redaction

for (const method of ["info", "warn", "error", "result"] as const) {
  Deno.test(`${method} masks every key`, () => {
    const { streams, console } = make();
    console[method](`a ${GEMINI_KEY} b ${OPENAI_KEY} c ${GEMINI_KEY} d sk-proj-***jkZW`);
    const written = [...streams.out, ...streams.err].join("");
    assert.ok(!written.includes(GEMINI_KEY) && !written.includes(OPENAI_KEY));
    assert.ok(written.includes("a ********XY b ********ZW c ********XY d ********ZW"), written);
  });
}

Deno.test("the waiting label is masked too", () => {
  const { streams, console } = make(true);
  const stop = console.liveLine(`waiting for ${GEMINI_KEY}`, () => 0).stop;
  stop();
  assert.ok(!streams.err.join("").includes(GEMINI_KEY));
  assert.equal(streams.err[0], `${CLEAR}waiting for ********XY 0s`);
});

Deno.test("a console made without a redactor masks nothing until useRedactor", () => {
  const streams = memoryStreams();
  const console = new Console(streams);
  console.info(`early ${GEMINI_KEY}`);
  console.useRedactor(REDACTOR);
  console.info(`later ${GEMINI_KEY}`);
  console.result(`result ${OPENAI_KEY}`);
  assert.deepEqual(streams.err, [`early ${GEMINI_KEY}\n`, "later ********XY\n"]);
  assert.deepEqual(streams.out, ["result ********ZW\n"]);
});

// ---------------------------------------------------------------------------
// The waiting line

Deno.test("waiting writes nothing when stderr is not a terminal", () => {
  const { streams, console } = make(false);
  const stop = console.liveLine("waiting for gpt-5…").stop;
  console.info("meanwhile");
  stop();
  stop();
  assert.deepEqual(streams.err, ["meanwhile\n"]);
  assert.deepEqual(streams.out, []);
});

Deno.test("waiting on a terminal: drawn at once, with the seconds; cleared when stopped", () => {
  const { streams, console } = make(true);
  const stop = console.liveLine("waiting for gemini-2.5-pro…", () => 1_000).stop;
  assert.deepEqual(streams.err, [`${CLEAR}waiting for gemini-2.5-pro… 0s`]);
  stop();
  assert.deepEqual(streams.err, [`${CLEAR}waiting for gemini-2.5-pro… 0s`, CLEAR]);
  assert.deepEqual(streams.out, [], "never on stdout");
});

Deno.test("info, warn and error printed while waiting go above the line, which is redrawn", () => {
  const { streams, console } = make(true);
  let now = 10_000;
  const stop = console.liveLine("waiting for gpt-5…", () => now).stop;
  now = 13_700;
  console.info("retrying");
  now = 75_000;
  console.warn("slow");
  console.error("oops");
  stop();
  assert.deepEqual(streams.err, [
    `${CLEAR}waiting for gpt-5… 0s`,
    CLEAR,
    "retrying\n",
    `${CLEAR}waiting for gpt-5… 3s`,
    CLEAR,
    "warning: slow\n",
    `${CLEAR}waiting for gpt-5… 65s`,
    CLEAR,
    "code-commit: oops\n",
    `${CLEAR}waiting for gpt-5… 65s`,
    CLEAR,
  ]);
});

Deno.test("after the line is cleared, output is plain again", () => {
  const { streams, console } = make(true);
  const stop = console.liveLine("waiting…", () => 0).stop;
  stop();
  console.info("done");
  stop(); // a second stop does nothing
  assert.deepEqual(streams.err, [`${CLEAR}waiting… 0s`, CLEAR, "done\n"]);
});

Deno.test("result while waiting goes to stdout and leaves the line alone", () => {
  const { streams, console } = make(true);
  const stop = console.liveLine("waiting…", () => 0).stop;
  console.result("the report");
  stop();
  assert.deepEqual(streams.out, ["the report\n"]);
  assert.deepEqual(streams.err, [`${CLEAR}waiting… 0s`, CLEAR]);
});

Deno.test("the line is redrawn every second with the time waited (real clock)", async () => {
  const { streams, console } = make(true);
  const stop = console.liveLine("waiting for gemini-2.5-pro…").stop;
  try {
    await new Promise((resolve) => setTimeout(resolve, 1_150));
  } finally {
    stop();
  }
  assert.equal(streams.err[0], `${CLEAR}waiting for gemini-2.5-pro… 0s`);
  assert.ok(
    streams.err.includes(`${CLEAR}waiting for gemini-2.5-pro… 1s`),
    JSON.stringify(streams.err),
  );
  assert.equal(streams.err.at(-1), CLEAR);
  const count = streams.err.length;
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  assert.equal(streams.err.length, count, "nothing drawn after stop");
});

// ---------------------------------------------------------------------------
// The real process streams

Deno.test("the process's own streams, stderr piped (not a terminal): no live line, no colour", async () => {
  const consoleModule = new URL("../../lib/console/console.ts", import.meta.url).href;
  const redactModule = new URL("../../lib/secrets/redact.ts", import.meta.url).href;
  const code = `
    import { Console } from ${JSON.stringify(consoleModule)};
    import { Redactor } from ${JSON.stringify(redactModule)};
    const console = new Console(undefined, new Redactor([${JSON.stringify(GEMINI_KEY)}]));
    const stop = console.liveLine("waiting for gemini-2.5-pro…").stop;
    console.info("progress ${GEMINI_KEY}");
    console.warn("careful");
    console.result("the result ${GEMINI_KEY}");
    stop();
    console.error("failed");
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", code],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  const stdout = new TextDecoder().decode(output.stdout);
  assert.ok(output.success, stderr);
  assert.equal(stderr, "progress ********XY\nwarning: careful\ncode-commit: failed\n");
  assert.equal(stdout, "the result ********XY\n");
});

Deno.test("control characters from outside are shown, never obeyed", () => {
  const streams = memoryStreams();
  const console = new Console(streams);
  console.result("comment: \x1b]52;c;cHduZWQ=\x07 and \x1b[1Abuild passed\r");
  console.warn("path src/a.ts\x1b]0;title\x07 \u202eevil");
  assert.equal(
    streams.out.join(""),
    "comment: \\u001b]52;c;cHduZWQ=\\u0007 and \\u001b[1Abuild passed\\u000d\n",
  );
  assert.equal(streams.err.join(""), "warning: path src/a.ts\\u001b]0;title\\u0007 \\u202eevil\n");
});

Deno.test("the waiting line never keeps the process alive by itself", async () => {
  // A process that shows the line and ends without stopping it: it must end at once.
  const module = new URL("../../lib/console/console.ts", import.meta.url).href;
  const script = `
    import { Console } from ${JSON.stringify(module)};
    const streams = { stdout() {}, stderr() {}, stderrIsTerminal: true, color: false };
    new Console(streams).liveLine("waiting for gpt-5…");
    console.log("shown");
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", script],
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(20_000),
  }).output();
  assert.equal(output.code, 0, "the process was stopped after 20 s: the line kept it alive");
  assert.equal(new TextDecoder().decode(output.stdout), "shown\n");
});

// ---------------------------------------------------------------------------
// The live line's detail and width

Deno.test("liveLine: the detail follows the time, redacted and escaped; redrawn at most every 200 ms", () => {
  const { streams, console } = make(true);
  let now = 0;
  const line = console.liveLine("./build.sh", () => now);
  assert.equal(line.shown, true);
  now = 1_500;
  line.update(`compiling ${GEMINI_KEY}\x1b]0;t\x07`);
  now = 1_600;
  line.update("too soon: not drawn yet");
  line.stop();
  assert.deepEqual(streams.err, [
    `${CLEAR}./build.sh 0s`,
    `${CLEAR}./build.sh 1s · compiling ********XY\\u001b]0;t\\u0007`,
    CLEAR,
  ]);
});

Deno.test("liveLine: cut to the terminal's width, one column spare; 80 when unknown", () => {
  for (const [columns, width] of [[40, 39], [undefined, 79], [0, 79]] as const) {
    const streams = memoryStreams({ terminal: true });
    const console = new Console({ ...streams, columns: () => columns as number }, REDACTOR);
    let now = 0;
    const line = console.liveLine("waiting", () => now);
    now = 500;
    line.update(`a\tb ${"x".repeat(200)}`);
    line.stop();
    const drawn = streams.err[1].slice(CLEAR.length);
    assert.equal(Array.from(drawn).length, width, drawn);
    assert.ok(drawn.startsWith("waiting 0s · a b xxx") && drawn.endsWith("x…"), drawn);
  }
});

Deno.test("liveLine: nothing at all when stderr is not a terminal", () => {
  const { streams, console } = make(false);
  const line = console.liveLine("./build.sh");
  assert.equal(line.shown, false);
  line.update("output");
  line.stop();
  assert.deepEqual(streams.err, []);
});

// ---------------------------------------------------------------------------
// --json

Deno.test("after resultsToStderr, results go to stderr; json() alone writes stdout, keys masked", () => {
  const { streams, console } = make();
  console.resultsToStderr();
  console.result(`report written, key ${GEMINI_KEY}`);
  console.json(`{"prose":"the key is ${OPENAI_KEY}"}`);
  assert.deepEqual(streams.err, ["report written, key ********XY\n"]);
  assert.equal(streams.out.length, 1);
  assert.ok(!streams.out[0].includes(OPENAI_KEY), streams.out[0]);
  assert.match(streams.out[0], /^\{"prose":"the key is \*{8}ZW"\}\n$/);
});

/** Name, output, the latest line. */
const CASES: [string, string, string][] = [
  ["nothing yet", "", ""],
  ["a line being written", "Compiling a", "Compiling a"],
  ["the last line ended", "one\ntwo\n", "two"],
  ["blank lines after it are skipped", "one\ntwo\n\n  \n", "two"],
  ["the line being written wins when it shows something", "one\ntwo\nthr", "thr"],
  ["CRLF", "one\r\ntwo\r\n", "two"],
  ["a progress bar redrawn with CR", "50%\r75%\r100%", "100%"],
  ["colours removed", "\x1b[1;32mok\x1b[0m 3 tests\n", "ok 3 tests"],
  ["a title sequence removed", "\x1b]0;title\x07built\n", "built"],
  ["a line of escapes only shows nothing", "done\n\x1b[2K\x1b[0m\n", "done"],
  ["other controls are left for the console", "a\x07b\n", "a\x07b"],
];

for (const [name, output, expected] of CASES) {
  Deno.test(`latest line: ${name}`, () => {
    for (let cut = 0; cut <= output.length; cut++) {
      const latest = new LatestLine();
      latest.add(output.slice(0, cut));
      latest.add(output.slice(cut));
      assert.equal(latest.line(), expected, `cut at ${cut}`);
    }
  });
}

Deno.test("latest line: a line without end is kept to 4096 characters", () => {
  const latest = new LatestLine();
  for (let i = 0; i < 100; i++) latest.add("y".repeat(1000));
  assert.equal(latest.line().length, 4096);
  latest.add("\nnext\n");
  assert.equal(latest.line(), "next");
});

Deno.test("latest line: CSI, OSC, two-character and unfinished sequences removed", () => {
  const latest = new LatestLine();
  latest.add("\x1b[31mred\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1bMx \x1b[");
  assert.equal(latest.line(), "red link x");
});
