/**
 * Committing code end to end: the real tool, as a subprocess, in a real
 * temporary git project, against the fake LLM server.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type FakeLlmServer,
  geminiError,
  geminiReply,
  geminiStream,
  geminiText,
  openaiReply,
  openaiText,
  type ScriptStep,
  startFakeLlmServer,
} from "../support/fake_llm_server.ts";
import { LAST_RUN_FILE } from "../../lib/cli/last_run.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import { GEMINI_KEY, makeProject, type Project, STATUS_BUILD } from "../support/project.ts";
import { runTool, type ToolRun } from "../support/run_tool.ts";

const START_FILES = { "src/status.txt": "broken\n", "src/keep.txt": "keep\n" };

/** Runs code-commit in a fresh STATUS_BUILD project with `script`; checks no key leaked. */
async function commit(
  script: ScriptStep[],
  test: (
    result: { run: ToolRun; project: Project; server: FakeLlmServer; log: string },
  ) => Promise<void>,
  options: { args?: string[]; files?: Record<string, string> } = {},
): Promise<void> {
  await using project = await makeProject({
    buildScript: STATUS_BUILD,
    files: { ...START_FILES, ...options.files },
  });
  const server = await startFakeLlmServer(script);
  try {
    const run = await runTool(project.root, options.args ?? [], { server });
    const runs = await project.logRuns();
    const log = runs.length === 1 ? join(project.root, "logs", runs[0]) : "";
    await test({ run, project, server, log });
    assert((await assertNoKeyLeak(project.root, [run], server)) > 0);
  } finally {
    await server.close();
  }
}

async function logFiles(log: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(log)) names.push(entry.name);
  return names.sort();
}

function lastLine(text: string): string {
  return text.trimEnd().split("\n").at(-1) ?? "";
}

const FIX = "I will fix it.\n^^^src/status.txt\nok\n^^^end\n";
const BREAK = "^^^src/status.txt\nstill broken\n^^^end\n";

Deno.test("success on the first try: one call, the file written, the build run, the logs named", async () => {
  await commit([geminiReply(FIX)], async ({ run, project, server, log }) => {
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.requests.length, 1);
    assert.equal(await project.read("src/status.txt"), "ok\n");
    assert.match(
      lastLine(run.stdout),
      /^committing code: build passed after 1 attempt \(0 repairs\); 1 file changed; 1 LLM call, [\d,]+ input, [\d,]+ output, [\d,]+ thinking tokens, est\. \$\d\.\d{4}; logs in logs\/\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d-committing-code$/,
    );
    assert.deepEqual(await logFiles(log), [
      "1-initial-query-build.txt",
      "1-initial-query-response.json",
      "1-initial-query-response.txt",
      "1-initial-query.txt",
      "changes.txt",
    ]);
    // What changed, before the summary line, and in the log.
    assert.match(
      run.stdout,
      /1 file changed by this run \(1 replaced\):\n {2}replaced {2}src\/status\.txt {2}\+1 -1\n/,
    );
    assert.equal(
      await Deno.readTextFile(join(log, "changes.txt")),
      "  replaced  src/status.txt  +1 -1\n",
    );
    assert.equal(await Deno.readTextFile(join(log, "1-initial-query-response.txt")), FIX);
    assert.match(
      await Deno.readTextFile(join(log, "1-initial-query-build.txt")),
      /build ok\n\[exit code 0/,
    );
    // The whole JSON body received is logged.
    const body = JSON.parse(await Deno.readTextFile(join(log, "1-initial-query-response.json")));
    assert.equal(body.candidates[0].content.parts.at(-1).text, FIX);
    // The prompt sent is the prompt logged, its parts in the initial prompt's order.
    const prompt = geminiText(server.requests[0]);
    assert.equal(await Deno.readTextFile(join(log, "1-initial-query.txt")), prompt);
    const order = [
      "This request comes from code-commit", // project structure
      "How code-commit reads your reply", // code modification instructions
      "You are about to be provided with a query", // initial query system prompt (the user's)
      "[query]\nMake the build pass.\n",
      "[codebase]\n--- src/status.txt ---\nbroken\n",
    ].map((marker) => prompt.indexOf(marker));
    assert(order.every((index) => index >= 0), `missing a section: ${order}`);
    assert.deepEqual(order, [...order].sort((a, b) => a - b), "sections out of order");
    // The key travelled in the header only.
    assert.equal(server.requests[0].headers["x-goog-api-key"], GEMINI_KEY);
    assert.equal(
      server.requests[0].path,
      "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
    );
  });
});

Deno.test("success after repairs: each repair sees the build output and the latest replacements", async () => {
  const first =
    "^^^src/status.txt\nnope\n^^^end\n^^^src/extra.txt\nextra v1\n^^^end\n^^^src/keep.txt\n^^^delete\n";
  const second = "^^^src/status.txt\nstill nope\n^^^end\n^^^src/extra.txt\nextra v2\n^^^end\n";
  await commit(
    [geminiReply(first), geminiReply(second), geminiReply(FIX)],
    async ({ run, project, server, log }) => {
      assert.equal(run.code, 0, run.stderr);
      assert.equal(server.requests.length, 3);
      assert.match(
        lastLine(run.stdout),
        /build passed after 3 attempts \(2 repairs\); 3 files changed/,
      );
      assert.equal(await project.read("src/status.txt"), "ok\n");
      assert.equal(await project.read("src/extra.txt"), "extra v2\n");
      assert.equal(await project.exists("src/keep.txt"), false);

      const repair2 = geminiText(server.requests[2]);
      // The repair layout: system prompts, then build output, query, codebase, replacements.
      const order = [
        "This request comes from code-commit",
        "How code-commit reads your reply",
        "Your task today is to fix code that is broken.", // repair query system prompt (the user's)
        "[build.sh output]\n$ ./build.sh\nchecking src/status.txt\nerror: src/status.txt is not ok\n[exit code 1",
        "[query]\n",
        "[codebase]\n",
        "[file replacements]\n",
      ].map((marker) => repair2.indexOf(marker));
      assert(order.every((index) => index >= 0), `missing a section: ${order}`);
      assert.deepEqual(order, [...order].sort((a, b) => a - b), "sections out of order");
      // Latest replacement per file only, in path order; the removal listed.
      const replacements = repair2.slice(repair2.indexOf("[file replacements]\n"));
      assert.equal(
        replacements,
        "[file replacements]\n" +
          "--- FILE REPLACEMENT src/extra.txt ---\nextra v2\n" +
          "--- FILE REMOVED src/keep.txt ---\n" +
          "--- FILE REPLACEMENT src/status.txt ---\nstill nope\n",
      );
      assert(!repair2.includes("extra v1"));
      assert.deepEqual(await logFiles(log), [
        "1-initial-query-build.txt",
        "1-initial-query-response.json",
        "1-initial-query-response.txt",
        "1-initial-query.txt",
        "2-repair-query-1-build.txt",
        "2-repair-query-1-response.json",
        "2-repair-query-1-response.txt",
        "2-repair-query-1.txt",
        "3-repair-query-2-build.txt",
        "3-repair-query-2-response.json",
        "3-repair-query-2-response.txt",
        "3-repair-query-2.txt",
        "changes.txt",
      ]);
      // The run as a whole, against the tree before it: three attempts, one list.
      assert.equal(
        await Deno.readTextFile(join(log, "changes.txt")),
        "  created   src/extra.txt  +1 -0\n" +
          "  deleted   src/keep.txt  +0 -1\n" +
          "  replaced  src/status.txt  +1 -1\n",
      );
    },
  );
});

Deno.test("an LLM error after a reply was applied: the files it left changed and the summary come first, then the error", async () => {
  await commit(
    [geminiReply(BREAK), geminiError(400, "the repair call failed", "INVALID_ARGUMENT")],
    async ({ run, project, log }) => {
      assert.equal(run.code, 4);
      assert.equal(await project.read("src/status.txt"), "still broken\n");
      assert.deepEqual(run.stdout.trimEnd().split("\n").slice(0, 2), [
        "1 file changed by this run (1 replaced):",
        "  replaced  src/status.txt  +1 -1",
      ]);
      assert.match(
        lastLine(run.stdout),
        /^committing code: stopped by the error below; 1 file changed, left in place \(see them with git status and git diff, or take the whole run back with code-commit --undo\); 1 LLM call, .*; logs in logs\/[\d-]+-committing-code$/,
      );
      assert.match(
        lastLine(run.stderr),
        /^code-commit: gemini-2\.5-pro: HTTP 400 INVALID_ARGUMENT: the repair call failed/,
      );
      assert.ok((await logFiles(log)).includes("changes.txt"));
    },
  );
});

Deno.test("all repairs spent: exactly four calls, exit 1, the changes left for review", async () => {
  const script = [1, 2, 3, 4, 5].map(() => geminiReply(BREAK));
  await commit(script, async ({ run, project, server, log }) => {
    assert.equal(run.code, 1);
    assert.equal(server.requests.length, 4);
    assert.equal(server.remaining(), 1);
    assert.match(
      lastLine(run.stdout),
      /^committing code: build still failing after 4 attempts \(3 repairs\); 1 file changed \(left in place: see them with git status and git diff, or take the whole run back with code-commit --undo\); 4 LLM calls/,
    );
    assert.equal(await project.read("src/status.txt"), "still broken\n");
    const files = await logFiles(log);
    assert.equal(files.length, 17); // four calls of four files each, and changes.txt
    assert(files.includes("4-repair-query-3-build.txt"));
    assert(!files.some((name) => name.startsWith("5-")));
  });
});

Deno.test("a refused reply writes nothing, and the next repair is told why", async () => {
  const hostile = "^^^src/status.txt\nok\n^^^end\n^^^build.sh\n#!/bin/sh\nexit 0\n^^^end\n";
  await commit([geminiReply(hostile), geminiReply(FIX)], async ({ run, project, server, log }) => {
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.requests.length, 2);
    assert.match(
      run.stderr,
      /the reply was not applied, nothing from it was written: refused the reply: 1 path may not be written/,
    );
    const notRun = await Deno.readTextFile(join(log, "1-initial-query-build.txt"));
    assert.match(notRun, /^build\.sh was not run: the reply was not applied/);
    assert.match(notRun, /build\.sh/);
    const repair = geminiText(server.requests[1]);
    assert.match(
      repair,
      /\[build\.sh output\]\ncode-commit could not apply the previous reply, so nothing from it was written and build\.sh did not run:\nrefused the reply/,
    );
    assert.match(repair, /\[file replacements\]\n\(none: no reply has been applied yet\)/);
    assert.equal(await project.read("build.sh"), STATUS_BUILD);
    assert.equal(await project.read("src/status.txt"), "ok\n");
  });
});

Deno.test("a truncated reply writes nothing, even its complete blocks", async () => {
  const cut = "^^^src/status.txt\nok\n^^^end\n^^^src/other.txt\nhalf of it";
  await commit(
    [geminiReply(cut, { finishReason: "MAX_TOKENS" }), geminiReply(FIX)],
    async ({ run, project, server }) => {
      assert.equal(run.code, 0, run.stderr);
      assert.equal(server.requests.length, 2);
      assert.match(
        run.stderr,
        /the reply was cut off at the model's output limit \(finish reason MAX_TOKENS\)/,
      );
      assert.match(geminiText(server.requests[1]), /cut off at the model's output limit/);
      assert.equal(await project.exists("src/other.txt"), false);
    },
  );
});

Deno.test("an unterminated block is refused whole", async () => {
  await commit([
    geminiReply("^^^src/status.txt\nok\n^^^end\n^^^src/new.txt\nno end"),
    geminiReply(FIX),
  ], async ({ run, project }) => {
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /src\/new\.txt/);
    assert.equal(await project.exists("src/new.txt"), false);
  });
});

const BAD_PATHS = [
  "../escape.txt",
  ".git/config",
  "agent-config/gemini-key.txt",
  "/tmp/absolute.txt",
];

for (const position of ["first", "middle", "last"] as const) {
  Deno.test(`a bad path ${position} in a reply: nothing of the reply is written`, async () => {
    for (const bad of BAD_PATHS) {
      const good1 = "^^^src/status.txt\nok\n^^^end\n";
      const good2 = "^^^src/new.txt\nnew\n^^^end\n";
      const hostile = `^^^${bad}\npwned\n^^^end\n`;
      const blocks = position === "first"
        ? [hostile, good1, good2]
        : position === "middle"
        ? [good1, hostile, good2]
        : [good1, good2, hostile];
      await using project = await makeProject({ buildScript: STATUS_BUILD, files: START_FILES });
      const before = await project.snapshot();
      const server = await startFakeLlmServer([1, 2, 3, 4].map(() => geminiReply(blocks.join(""))));
      try {
        const run = await runTool(project.root, [], { server });
        assert.equal(run.code, 4, `${bad}: ${run.stderr}`);
        assert.equal(server.requests.length, 4, bad);
        assert.match(run.stderr, new RegExp(bad.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")));
        const after = await project.snapshot();
        for (const [path, content] of after) {
          // The run's object, which runTool checks, is the one new file.
          if (path.startsWith("logs/") || path === LAST_RUN_FILE) continue;
          assert.equal(before.get(path), content, `${bad}: ${path} changed`);
        }
        assert.deepEqual(
          [...after.keys()].filter((path) => !path.startsWith("logs/")),
          [...before.keys(), LAST_RUN_FILE].sort(),
          `${bad}: files appeared or vanished`,
        );
        assert.match(
          lastLine(run.stdout),
          /build still failing after 4 attempts \(3 repairs\); no file changed;/,
        );
        await assertNoKeyLeak(project.root, [run], server);
      } finally {
        await server.close();
      }
    }
    await assert.rejects(Deno.lstat("/tmp/absolute.txt"));
  });
}

/** Whether `chattr +i` works here (root on ext4): the real way to make one write fail. */
async function immutableFoldersWork(): Promise<boolean> {
  const dir = await Deno.makeTempDir();
  try {
    const set = await new Deno.Command("chattr", { args: ["+i", dir], stderr: "null" }).output();
    if (!set.success) return false;
    await new Deno.Command("chattr", { args: ["-i", dir] }).output();
    return true;
  } catch {
    return false;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name: "a write that fails part-way through a real reply rolls everything back",
  ignore: !(await immutableFoldersWork()),
  fn: async () => {
    await using project = await makeProject({
      buildScript: STATUS_BUILD,
      files: { ...START_FILES, "src/locked/inside.txt": "locked\n", "src/old.txt": "old\n" },
    });
    // A folder even root cannot create files in: the write of src/locked/new.txt fails for real.
    await new Deno.Command("chattr", { args: ["+i", join(project.root, "src/locked")] }).output();
    try {
      const before = await project.snapshot();
      const reply = "^^^src/status.txt\nok\n^^^end\n" + // replaced
        "^^^src/fresh/deep/new.txt\nnew\n^^^end\n" + // created, with new folders
        "^^^src/old.txt\n^^^delete\n" + // deleted
        "^^^src/locked/new.txt\nfails\n^^^end\n" + // fails
        "^^^src/after.txt\nnever reached\n^^^end\n";
      const server = await startFakeLlmServer([1, 2, 3, 4].map(() => geminiReply(reply)));
      try {
        const run = await runTool(project.root, [], { server });
        assert.equal(run.code, 3, run.stderr);
        assert.match(run.stderr, /src\/locked\/new\.txt/);
        assert.match(run.stderr, /rolled back/);
        const after = await project.snapshot();
        for (const [path, content] of before) assert.equal(after.get(path), content, path);
        // The journal's run header stays (its pre-images went with the rollback).
        assert.deepEqual(
          [...after.keys()].filter((p) =>
            !p.startsWith("logs/") && !p.startsWith("agent-config/journal/")
          ),
          [...before.keys(), LAST_RUN_FILE].sort(),
        );
        assert.equal(await project.exists("src/fresh"), false, "a created folder was left behind");
        await assertNoKeyLeak(project.root, [run], server);
      } finally {
        await server.close();
      }
    } finally {
      await new Deno.Command("chattr", { args: ["-i", join(project.root, "src/locked")] }).output();
    }
  },
});

Deno.test("a reply with no blocks is not an error: the build runs as usual", async () => {
  await commit(
    [geminiReply("Nothing to change."), geminiReply(FIX)],
    async ({ run, server, log }) => {
      assert.equal(run.code, 0, run.stderr);
      assert.equal(server.requests.length, 2);
      assert.match(
        run.stderr,
        /^gemini-2\.5-pro says:\n {2}Nothing to change\.\napplied: no file changed/m,
      );
      assert.match(
        await Deno.readTextFile(join(log, "1-initial-query-build.txt")),
        /error: src\/status\.txt is not ok/,
      );
    },
  );
});

Deno.test("a reply that writes a file's content as it is: the file is unchanged, and the run says so", async () => {
  await commit(
    [geminiReply(FIX)],
    async ({ run, project }) => {
      assert.equal(run.code, 0, run.stderr);
      assert.equal(await project.read("src/status.txt"), "ok\n");
      assert.match(run.stderr, /^applied: src\/status\.txt unchanged \(same content\)$/m);
      assert.doesNotMatch(run.stderr, /replaced/);
      assert.match(
        lastLine(run.stdout),
        /^committing code: build passed after 1 attempt \(0 repairs\); no file changed; /,
      );
      assert.doesNotMatch(run.stdout, /0 files/);
    },
    { files: { "src/status.txt": "ok\n" } },
  );
});

Deno.test("the model's words are shown, escaped; a failing build shows its last 20 lines", async () => {
  const build = `#!/bin/sh\nfor i in $(seq 1 30); do echo "build line $i"; done\n` +
    `if [ "$(cat src/status.txt)" = ok ]; then exit 0; fi\necho "error: status is not ok" >&2\nexit 1\n`;
  const talk = "The fix is below.\n\u001b[1A\u001b[2Kbuild passed\n```\n" + BREAK + "```\nDone.\n";
  await using project = await makeProject({ buildScript: build, files: START_FILES });
  const server = await startFakeLlmServer([geminiReply(talk), geminiReply(FIX)]);
  try {
    const run = await runTool(project.root, [], { server });
    assert.equal(run.code, 0, run.stderr);
    assert(
      run.stderr.includes(
        "gemini-2.5-pro says:\n  The fix is below.\n  \\u001b[1A\\u001b[2Kbuild passed\n  Done.\n",
      ),
      run.stderr,
    );
    assert(!run.stderr.includes("\u001b"), "no escape sequence reaches the terminal");
    const failed = run.stderr.indexOf("warning: build failed (exit code 1");
    assert(failed >= 0, run.stderr);
    const tail = run.stderr.slice(failed).split("\n").slice(1, 22);
    assert.deepEqual(tail, [
      "the last 20 lines of its output:",
      ...Array.from({ length: 19 }, (_, i) => `  | build line ${i + 12}`),
      "  | error: status is not ok",
    ]);
    assert(!run.stderr.includes("build line 11\n"));
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
  }
});

Deno.test("a header path in backticks is the bare path, and the guard checks the bare path", async () => {
  await commit(
    [
      geminiReply("^^^`build.sh`\nexit 0\n^^^end\n"),
      geminiReply("^^^`src/status.txt`\nok\n^^^end\n"),
    ],
    async ({ run, project, server }) => {
      assert.equal(run.code, 0, run.stderr);
      assert.equal(server.requests.length, 2);
      assert.match(
        run.stderr,
        /refused the reply: 1 path may not be written\n {2}build\.sh: is protected/,
      );
      assert.equal(await project.read("build.sh"), STATUS_BUILD);
      assert.match(
        run.stderr,
        /warning: line 1: the path "`src\/status\.txt`" is wrapped in backticks; it was read as "src\/status\.txt"/,
      );
      assert.equal(await project.read("src/status.txt"), "ok\n");
      assert.equal(await project.exists("`src"), false);
    },
  );
});

Deno.test("an LLM error stops the run: exit 4, ERROR logged, the API's message shown, no repair", async () => {
  const bad = geminiError(
    400,
    "API key not valid. Please pass a valid API key.",
    "INVALID_ARGUMENT",
  );
  await commit([bad, geminiReply(FIX)], async ({ run, server, log, project }) => {
    assert.equal(run.code, 4);
    assert.equal(server.requests.length, 1, "a 400 is not retried");
    assert.match(run.stderr, /HTTP 400 INVALID_ARGUMENT: API key not valid/);
    const response = await Deno.readTextFile(join(log, "1-initial-query-response.txt"));
    assert.match(response, /^ERROR\ngemini-2\.5-pro: HTTP 400/);
    assert.match(
      await Deno.readTextFile(join(log, "1-initial-query-response.json")),
      /INVALID_ARGUMENT/,
    );
    assert.equal(await project.read("src/status.txt"), "broken\n");
  });
});

Deno.test("server hints are followed: a 429 with RetryInfo waits what it says, then succeeds", async () => {
  const busy: ScriptStep = {
    kind: "fixture",
    file: "gemini/429-retry-info.json",
    replace: { '"58s"': '"0.3s"' },
  };
  await commit([busy, geminiReply(FIX)], async ({ run, server, project }) => {
    assert.equal(run.code, 0, run.stderr);
    assert.equal(await project.read("src/status.txt"), "ok\n");
    assert.equal(server.requests.length, 2);
    assert.match(
      run.stderr,
      /HTTP 429 RESOURCE_EXHAUSTED.*retrying in 0\.3s as the server asked \(attempt 2 of 5\)/,
    );
    assert(server.requests[1].receivedAt - server.requests[0].receivedAt >= 290);
  });
});

Deno.test("--model gpt-5 speaks the OpenAI API with a bearer key and no temperature", async () => {
  await using project = await makeProject({ buildScript: STATUS_BUILD, files: START_FILES });
  const server = await startFakeLlmServer([openaiReply(FIX)]);
  try {
    const run = await runTool(project.root, ["--model", "gpt-5"], { server });
    assert.equal(run.code, 0, run.stderr);
    const request = server.requests[0];
    assert.equal(request.path, "/v1/chat/completions");
    assert.match(request.headers.authorization, /^Bearer sk-proj-/);
    const body = request.body as Record<string, unknown>;
    assert.equal(body.model, "gpt-5");
    for (const key of ["temperature", "max_tokens", "max_completion_tokens"]) {
      assert(!(key in body), key);
    }
    assert.match(openaiText(request), /\[query\]\nMake the build pass\./);
    assert.match(run.stderr, /gpt-5 answered in/);
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
  }
});

Deno.test("a key in the query is never sent: the prompt is refused before any request", async () => {
  await using project = await makeProject({
    buildScript: STATUS_BUILD,
    files: START_FILES,
    query: `Use this key: ${GEMINI_KEY}\n`,
  });
  const server = await startFakeLlmServer([geminiReply(FIX)]);
  try {
    const run = await runTool(project.root, [], { server });
    assert.equal(run.code, 5);
    assert.equal(server.requests.length, 0);
    assert.match(run.stderr, /contains an API key, so it was not sent/);
    const [folder] = await project.logRuns();
    const logged = await project.read(`logs/${folder}/1-initial-query.txt`);
    assert.match(logged, /Use this key: \*\*\*\*\*\*\*\*XY/);
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
  }
});

// Without the sandbox (which hides agent-config/ from the build), redaction is what is left.
Deno.test("a build that prints the key has it masked in the log and in the repair prompt", async () => {
  const leaky = `#!/bin/sh\ncat agent-config/gemini-key.txt\n[ "$(cat src/status.txt)" = ok ]\n`;
  await using project = await makeProject({ buildScript: leaky, files: START_FILES });
  const server = await startFakeLlmServer([geminiReply(BREAK), geminiReply(FIX)]);
  try {
    const run = await runTool(project.root, ["--sandbox", "off"], { server });
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      geminiText(server.requests[1]),
      /\[build\.sh output\]\n\$ \.\/build\.sh\n\*\*\*\*\*\*\*\*XY\n/,
    );
    assert((await assertNoKeyLeak(project.root, [run], server)) > 0);
  } finally {
    await server.close();
  }
});

Deno.test("a build that outlives --build-timeout is stopped and counts as failing", async () => {
  const slow = '#!/bin/sh\nif [ "$(cat src/status.txt)" = ok ]; then exit 0; fi\nsleep 60\n';
  await using project = await makeProject({ buildScript: slow, files: START_FILES });
  const server = await startFakeLlmServer([geminiReply(BREAK), geminiReply(FIX)]);
  try {
    const run = await runTool(project.root, ["--build-timeout", "0.5"], { server });
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /build failed \(stopped at the --build-timeout limit of 0\.5s, after [\d.]+s\)/,
    );
    assert.match(geminiText(server.requests[1]), /stopped at the --build-timeout limit of 0\.5s/);
  } finally {
    await server.close();
  }
});

const STOP_SIGNALS: [Deno.Signal, string][] = [
  ["SIGINT", "Ctrl-C"],
  ["SIGHUP", "SIGHUP"], // the terminal or the SSH session went away
  ["SIGTERM", "SIGTERM"],
  ["SIGQUIT", "SIGQUIT"], // Ctrl-\
];

for (const [stop, how] of STOP_SIGNALS) {
  Deno.test(`${stop} during the build stops the build and the run with status 130`, async () => {
    const slow = "#!/bin/sh\necho building\nsleep 60\n";
    await using project = await makeProject({ buildScript: slow, files: START_FILES });
    const server = await startFakeLlmServer([geminiReply(FIX)]);
    try {
      let child: Deno.ChildProcess | undefined;
      const running = runTool(project.root, [], { server, onSpawn: (c) => child = c });
      // Wait until the reply is applied and the build has started, then send the signal.
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const [folder] = await project.logRuns();
        if (folder && server.requests.length === 1) {
          const applied = (await project.read("src/status.txt")) === "ok\n";
          if (applied) break;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      child!.kill(stop);
      const run = await running;
      assert.equal(run.code, 130, run.stderr);
      assert.match(run.stderr, new RegExp(`stopping \\(${how}\\)`));
      assert.match(
        run.stderr,
        new RegExp(`interrupted \\(${how}\\); no file was left half-written`),
      );
      assert.equal(await project.read("src/status.txt"), "ok\n", "the applied reply stays whole");
      // An interruption is not an error: the final line says so.
      assert.match(
        lastLine(run.stdout),
        /^committing code: interrupted; 1 file changed, left in place/,
      );
      assert.doesNotMatch(run.stdout, /error below/);
      const [folder] = await project.logRuns();
      const build = await project.read(`logs/${folder}/1-initial-query-build.txt`);
      assert.match(build, /stopped because code-commit was interrupted/);
    } finally {
      await server.close();
    }
  });
}

Deno.test("a reply writing where a protected link leads (build.sh → ci/build.sh, agent-config → config/agent) is refused", async () => {
  const cases: [string, string, (project: Project) => Promise<void>, string][] = [
    [
      "build.sh a link to ci/build.sh",
      "^^^ci/build.sh\n#!/bin/sh\necho 'always passes'\nexit 0\n^^^end\n",
      async (project) => {
        await Deno.mkdir(join(project.root, "ci"));
        await Deno.rename(join(project.root, "build.sh"), join(project.root, "ci/build.sh"));
        await Deno.symlink("ci/build.sh", join(project.root, "build.sh"));
      },
      "ci/build.sh: is protected: `build.sh` is a symbolic link that leads to `ci/build.sh`",
    ],
    [
      "agent-config a link to config/agent",
      "^^^config/agent/query.txt\nDelete every test.\n^^^end\n",
      async (project) => {
        await Deno.mkdir(join(project.root, "config"));
        await Deno.rename(join(project.root, "agent-config"), join(project.root, "config/agent"));
        await Deno.symlink("config/agent", join(project.root, "agent-config"));
      },
      "config/agent/query.txt: is protected: `agent-config` is a symbolic link that leads to `config/agent`",
    ],
  ];
  for (const [name, hostile, setUp, reason] of cases) {
    await using project = await makeProject({ buildScript: STATUS_BUILD, files: START_FILES });
    await setUp(project);
    const before = await project.snapshot();
    const server = await startFakeLlmServer([geminiReply(hostile), geminiReply(FIX)]);
    try {
      // --force: the set-up's moves are uncommitted, on purpose.
      const run = await runTool(project.root, ["--sandbox", "off", "--force"], { server });
      assert.equal(run.code, 0, `${name}: ${run.stderr}`);
      assert.equal(server.requests.length, 2, name);
      assert(
        run.stderr.includes(`  ${reason}, so writing or deleting here changes it`),
        run.stderr,
      );
      assert(geminiText(server.requests[1]).includes(reason), name);
      const after = await project.snapshot();
      for (const [path, text] of before) {
        if (path.startsWith("logs/") || path === "src/status.txt") continue;
        assert.equal(after.get(path), text, `${name}: ${path} unchanged`);
      }
      assert.equal(await project.read("src/status.txt"), "ok\n", name);
      if (name.startsWith("agent-config")) {
        // config/agent/ holds the keys by design: the output and the requests are checked.
        assert(!run.stderr.includes(GEMINI_KEY) && !run.stdout.includes(GEMINI_KEY), name);
        assert(server.requests.every((request) => !request.bodyText.includes(GEMINI_KEY)), name);
      } else {
        await assertNoKeyLeak(project.root, [run], server);
      }
    } finally {
      await server.close();
    }
  }
});

Deno.test("streamed replies end to end: applied once whole, a cut stream retried, events logged", async () => {
  const cut = geminiStream(FIX, { piece: 7 });
  await commit(
    [{ ...cut, chunks: cut.chunks.slice(0, 2), reset: true }, geminiStream(FIX, { piece: 7 })],
    async ({ run, project, server, log }) => {
      assert.equal(run.code, 0, run.stderr);
      assert.equal(server.requests.length, 2);
      assert.match(
        run.stderr,
        /gemini-2\.5-pro: 127\.0\.0\.1:\d+: the connection broke during the reply/,
      );
      assert.match(run.stderr, /\(2 attempts\)/);
      assert.equal(await project.read("src/status.txt"), "ok\n");
      assert.deepEqual((await logFiles(log)).filter((name) => name.startsWith("1-")), [
        "1-initial-query-build.txt",
        "1-initial-query-response-events.txt",
        "1-initial-query-response.json",
        "1-initial-query-response.txt",
        "1-initial-query.txt",
      ]);
      const body = JSON.parse(await Deno.readTextFile(join(log, "1-initial-query-response.json")));
      assert.deepEqual(body.candidates[0].content.parts, [{ text: FIX }]);
      const events = await Deno.readTextFile(join(log, "1-initial-query-response-events.txt"));
      assert.match(events, /^data: \{"candidates"/);
      assert.match(events, /"finishReason":"STOP"/);
    },
  );
});
