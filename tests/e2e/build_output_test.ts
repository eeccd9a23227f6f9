/**
 * What the model and the user see of a failing build, end to end: the real
 * tool against the fake LLM server in a real git project. The whole output
 * of a long test run reaches the repair prompt; escape sequences reach
 * neither the prompt nor the terminal (the log keeps them); a failure far
 * above the last lines is shown on the terminal; a file wrapped in a
 * markdown fence is written without it, with a warning; a build the
 * sandbox refused a path outside the project stops before any repair.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  geminiReply,
  geminiText,
  openaiReply,
  openaiText,
  startFakeLlmServer,
} from "../support/fake_llm_server.ts";
import { modelTarget } from "../../lib/llm/models.ts";
import { estimateTokens } from "../../lib/text/tokens.ts";
import { GEMINI_KEY, makeProject } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";
import { bwrapTest } from "../support/sandbox.ts";

const FIX = "^^^src/status.txt\nok\n^^^end\n";
const BREAK = "^^^src/status.txt\nstill broken\n^^^end\n";

/**
 * A build that passes iff `src/status.txt` is `ok`, and otherwise prints a
 * TAP log of about 520 KB (7,690 lines) with the one failing test at line
 * 3,845, a coloured line, and a summary at the end.
 */
const LONG_TAP_BUILD = `#!/bin/sh
if [ "$(cat src/status.txt)" = "ok" ]; then echo "build ok"; exit 0; fi
printf '\\033[31mTAP version 13\\033[0m\\n'
i=1
while [ $i -le 7690 ]; do
  if [ $i -eq 3845 ]; then
    echo "not ok 3845 - Cannot read properties of null (reading 'version')"
  else
    echo "ok $i - range $i satisfies its comparator set, as the table of cases says it should"
  fi
  i=$((i+1))
done
echo "# tests 7690"
echo "# pass 7689"
echo "# fail 1"
echo "# failed 1 of 43 tests"
exit 1
`;

Deno.test("the whole 520 KB output of a failing build reaches the repair prompt, without escapes", async () => {
  await using project = await makeProject({
    buildScript: LONG_TAP_BUILD,
    files: { "src/status.txt": "broken\n" },
  });
  const server = await startFakeLlmServer([geminiReply(BREAK), geminiReply(FIX)]);
  try {
    const run = await runTool(project.root, ["--sandbox", "off"], { server });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.requests.length, 2);
    const repair = geminiText(server.requests[1]);
    assert.match(repair, /\nnot ok 3845 - Cannot read properties of null/);
    for (const line of ["ok 1 - range 1", "ok 3846 - range 3846", "# failed 1 of 43 tests"]) {
      assert(repair.includes(`\n${line}`), line);
    }
    assert(!repair.includes("left out"), "nothing is cut");
    assert(!repair.includes("\x1b"), "no escape sequence in the prompt");
    assert(repair.includes("\nTAP version 13\n"));
    // The terminal: the failure line from far above, then the last lines, no escape shown.
    assert.match(
      run.stderr,
      /lines of its output that report a failure:\n {2}\| not ok 3845 - Cannot read properties of null \(reading 'version'\)\nthe last 20 lines of its output:\n/,
    );
    assert(!run.stderr.includes("\\x1b") && !run.stderr.includes("\x1b"));
    // The log keeps the bytes the build printed.
    const [runDir] = await project.logRuns();
    const log = await Deno.readTextFile(
      join(project.root, "logs", runDir, "1-initial-query-build.txt"),
    );
    assert(log.includes("\x1b[31mTAP version 13\x1b[0m"));
  } finally {
    await server.close();
  }
});

Deno.test("a 1 MB output is cut to a local model's window, and its failing line still reaches the prompt", async () => {
  const build = LONG_TAP_BUILD.replace("7690", "12000").replace("3845", "6000").replace(
    "not ok 3845",
    "not ok 6000",
  );
  await using project = await makeProject({
    buildScript: build,
    files: { "src/status.txt": "broken\n" },
  });
  const server = await startFakeLlmServer([openaiReply(BREAK), openaiReply(FIX)]);
  try {
    const run = await runTool(project.root, ["--sandbox", "off", "--model", "local:coder"], {
      server,
    });
    assert.equal(run.code, 0, run.stderr);
    const repair = openaiText(server.requests[1]);
    assert.match(repair, /\nnot ok 6000 - Cannot read properties of null/);
    assert.match(
      repair,
      /\[code-commit: the build printed 12,005 lines, more than the prompt has room for; [\d,]+ lines left out\./,
    );
    assert.match(repair, /\n# failed 1 of 43 tests\n/);
    const limit = modelTarget("local:coder").inputLimit;
    assert(estimateTokens(repair) <= limit, `${estimateTokens(repair)} tokens, limit ${limit}`);
    assert(estimateTokens(repair) > limit * 0.9, "the room is used");
  } finally {
    await server.close();
  }
});

Deno.test("the output is cut to the window --context-window gives, not the default one", async () => {
  await using project = await makeProject({
    buildScript: LONG_TAP_BUILD,
    files: { "src/status.txt": "broken\n" },
  });
  const server = await startFakeLlmServer([openaiReply(BREAK), openaiReply(FIX)]);
  try {
    const run = await runTool(
      project.root,
      ["--sandbox", "off", "--model", "local:coder", "--context-window", "32768"],
      { server },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.requests.length, 2, "the repair prompt was sent");
    const repair = openaiText(server.requests[1]);
    assert.match(repair, /\nnot ok 3845 - Cannot read properties of null/);
    assert.match(repair, /\[code-commit: the build printed 7,695 lines, more than the prompt/);
    const limit = modelTarget("local:coder", 32768).inputLimit;
    assert(estimateTokens(repair) <= limit, `${estimateTokens(repair)} tokens, limit ${limit}`);
  } finally {
    await server.close();
  }
});

Deno.test("a key printed with an escape sequence inside it is still masked once the escape is removed", async () => {
  const split = `${GEMINI_KEY.slice(0, 10)}\\033[1m${GEMINI_KEY.slice(10)}`;
  await using project = await makeProject({
    buildScript: `#!/bin/sh
if [ "$(cat src/status.txt)" = "ok" ]; then echo "build ok"; exit 0; fi
printf 'Error: bad key ${split}\\n'
exit 1
`,
    files: { "src/status.txt": "broken\n" },
  });
  const server = await startFakeLlmServer([geminiReply(BREAK), geminiReply(FIX)]);
  try {
    const run = await runTool(project.root, ["--sandbox", "off"], { server });
    assert.equal(run.code, 0, run.stderr);
    const repair = geminiText(server.requests[1]);
    assert.match(repair, /\nError: bad key [^\n]*\*{8}/);
    assert(!repair.includes(GEMINI_KEY), "the key, whole once the escape is gone, is masked");
    assert(!repair.includes(GEMINI_KEY.slice(10)), "and so is its part after the escape");
  } finally {
    await server.close();
  }
});

Deno.test("a file wrapped in a markdown fence is written without it, with a warning printed and logged", async () => {
  await using project = await makeProject({
    buildScript: "#!/bin/sh\nnode_check() { :; }\ngrep -q '^const x = 1;$' index.js\n",
    files: { "index.js": "broken\n" },
  });
  const reply = "^^^index.js\n```javascript\nconst x = 1;\n```\n^^^end\n";
  const server = await startFakeLlmServer([geminiReply(reply)]);
  try {
    const run = await runTool(project.root, ["--sandbox", "off"], { server });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(await project.read("index.js"), "const x = 1;\n");
    assert.match(
      run.stderr,
      /warning: line 1: the content of "index\.js" was wrapped in a markdown fence \("```javascript" … "```"\); the two fence lines were dropped/,
    );
    const [runDir] = await project.logRuns();
    const log = await Deno.readTextFile(
      join(project.root, "logs", runDir, "1-initial-query-build.txt"),
    );
    assert.match(log, /^\[code-commit warning: line 1: the content of "index\.js" was wrapped/);
  } finally {
    await server.close();
  }
});

/** A build the sandbox refuses: it writes under /usr, read-only inside the sandbox. */
const OUTSIDE_BUILD = `#!/bin/sh
if [ "$(cat src/status.txt)" = "ok" ]; then echo "build ok"; exit 0; fi
mkdir /usr/code-commit-refusal-test || exit 1
`;

bwrapTest(
  "a build the sandbox refused a path outside the project stops before any repair (exit 3)",
  async () => {
    await using project = await makeProject({
      buildScript: OUTSIDE_BUILD,
      files: { "src/status.txt": "broken\n" },
    });
    const server = await startFakeLlmServer([geminiReply(BREAK), geminiReply(FIX)]);
    try {
      const run = await runTool(project.root, ["--sandbox", "on"], { server });
      assert.equal(run.code, 3, run.stderr);
      assert.equal(server.requests.length, 1, "no repair was asked for");
      assert.match(
        run.stderr,
        /code-commit: \.\/build\.sh failed because the sandbox refused it \/usr\/code-commit-refusal-test, which is outside the project \(.*Read-only file system.*\); no change to the code can fix that, so no repair was asked for\. .*--sandbox off.*code-commit --undo/,
      );
      assert.equal(await project.read("src/status.txt"), "still broken\n");
    } finally {
      await server.close();
    }
  },
);

bwrapTest(
  "a build that writes into a protected path of the project is repaired as usual",
  async () => {
    await using project = await makeProject({
      buildScript: `#!/bin/sh
if [ "$(cat src/status.txt)" = "ok" ]; then echo "build ok"; exit 0; fi
touch "$PWD/.git/code-commit-test" || exit 1
`,
      files: { "src/status.txt": "broken\n" },
    });
    const server = await startFakeLlmServer([geminiReply(BREAK), geminiReply(FIX)]);
    try {
      const run = await runTool(project.root, ["--sandbox", "on"], { server });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(server.requests.length, 2);
      assert.match(
        geminiText(server.requests[1]),
        /\.git\/code-commit-test.*Read-only file system/,
      );
    } finally {
      await server.close();
    }
  },
);
