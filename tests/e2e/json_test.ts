/**
 * `--json` end to end: for every way a run ends, stdout is exactly one
 * object the schema takes (checked by `runToolJson`), its exit status is the
 * process's, and its fields say what the run did; what a run normally
 * prints on stdout is on stderr instead.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { EXIT } from "../../lib/errors/errors.ts";
import { REPORT_HEADINGS } from "../../lib/workflows/consistency_report/report.ts";
import {
  geminiError,
  geminiReply,
  type ScriptStep,
  startFakeLlmServer,
} from "../support/fake_llm_server.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import { GEMINI_KEY, makeProject, type Project, STATUS_BUILD } from "../support/project.ts";
import { type JsonToolRun, runTool, runToolJson, type ToolRun } from "../support/run_tool.ts";
import { fixtureFiles } from "../workflows/auto_workflow/helpers.ts";

const START_FILES = { "src/status.txt": "broken\n", "src/keep.txt": "keep\n" };
const FIX = "I will fix it.\n^^^src/status.txt\nok\n^^^end\n";
const BREAK = "^^^src/status.txt\nstill broken\n^^^end\n";
const LOG_DIR = /^logs\/\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d-committing-code$/;

/** Runs `code-commit <args> --json` in a fresh STATUS_BUILD project with `script`; checks no key leaked. */
async function commit(
  script: ScriptStep[],
  args: string[] = [],
  options: { keys?: { gemini?: string | null } } = {},
): Promise<{ run: JsonToolRun; project: Project }> {
  const project = await makeProject({
    buildScript: STATUS_BUILD,
    files: START_FILES,
    keys: options.keys,
  });
  const server = await startFakeLlmServer(script);
  try {
    const run = await runToolJson(project.root, args, { server });
    await assertNoKeyLeak(project.root, [run], server);
    return { run, project };
  } finally {
    await server.close();
  }
}

Deno.test("--json, the build passes: exit 0, one attempt, the file changed, tokens, cost, log, prose", async () => {
  const { run, project } = await commit([geminiReply(FIX)]);
  await using _ = project;
  const { result } = run;
  assert.equal(run.code, EXIT.ok, run.stderr);
  assert.equal(result.workflow, "commit");
  assert.equal(result.model, "gemini-2.5-pro");
  assert.deepEqual([result.attempts, result.repairs, result.calls], [1, 0, 1]);
  assert.deepEqual(result.changes, [
    { path: "src/status.txt", kind: "replaced", added: 1, removed: 1 },
  ]);
  assert.ok(result.tokens.input > 0 && result.tokens.output > 0, JSON.stringify(result.tokens));
  assert.ok(result.costUsd !== null && result.costUsd > 0);
  assert.match(result.log!, LOG_DIR);
  assert.deepEqual(result.prose, [
    { log: `${result.log}/1-initial-query-response.txt`, text: "I will fix it." },
  ]);
  assert.equal(result.error, null);
  assert.equal(result.dryRun, false);
  // The lines a run prints on stdout went to stderr.
  assert.match(run.stderr, /^committing code: build passed after 1 attempt \(0 repairs\)/m);
  assert.match(run.stderr, /^1 file changed by this run \(1 replaced\):$/m);
});

Deno.test("--json, the build still fails after the repairs: exit 1, four attempts, three repairs", async () => {
  const { run, project } = await commit([1, 2, 3, 4].map(() => geminiReply(BREAK)));
  await using _ = project;
  assert.equal(run.code, EXIT.failed, run.stderr);
  assert.equal(run.result.exit.class, "failed");
  assert.deepEqual([run.result.attempts, run.result.repairs, run.result.calls], [4, 3, 4]);
  assert.deepEqual(run.result.changes.map((change) => change.path), ["src/status.txt"]);
  assert.equal(run.result.prose.length, 4);
  assert.equal(run.result.error, null);
});

Deno.test("--json, an API error: exit 4 with its message, no call counted", async () => {
  const { run, project } = await commit([
    geminiError(400, "the request failed", "INVALID_ARGUMENT"),
  ]);
  await using _ = project;
  assert.equal(run.code, EXIT.model, run.stderr);
  assert.equal(run.result.exit.class, "model");
  assert.match(run.result.error!, /HTTP 400 INVALID_ARGUMENT: the request failed/);
  assert.equal(run.result.calls, 0);
  assert.equal(run.result.attempts, 1);
  assert.match(run.result.log!, LOG_DIR);
});

Deno.test("--json, a missing key: exit 3 before any call, no log", async () => {
  const { run, project } = await commit([geminiReply(FIX)], [], { keys: { gemini: null } });
  await using _ = project;
  assert.equal(run.code, EXIT.setup, run.stderr);
  assert.match(run.result.error!, /agent-config\/gemini-key\.txt not found/);
  assert.deepEqual([run.result.calls, run.result.attempts, run.result.log], [0, 0, null]);
});

Deno.test("--json, a usage error: exit 2, the object still printed, no workflow", async () => {
  await using project = await makeProject();
  for (const args of [["--bogus"], ["--cc", "--aw"], ["--model", "nope"]]) {
    const run = await runToolJson(project.root, args);
    assert.equal(run.code, EXIT.usage, run.stderr);
    assert.equal(run.result.workflow, null);
    assert.equal(run.result.model, null);
    assert.ok(run.result.error !== null && run.stderr.includes(run.result.error), run.stderr);
  }
});

Deno.test("--json --help and --version: the text on stderr, the object alone on stdout", async () => {
  await using project = await makeProject();
  const help = await runToolJson(project.root, ["--help"]);
  assert.equal(help.result.workflow, "help");
  assert.match(help.stderr, /^Exit status, the same for every workflow:$/m);
  const version = await runToolJson(project.root, ["--version"]);
  assert.equal(version.result.workflow, "version");
  assert.match(version.stderr, /^code-commit \d/);
});

Deno.test("--json with a key in the reply's prose: the object masks it", async () => {
  const { run, project } = await commit([geminiReply(`The key is ${GEMINI_KEY}.\n${FIX}`)]);
  await using _ = project;
  assert.equal(run.code, EXIT.ok, run.stderr);
  assert.match(run.result.prose[0].text, /^The key is \*{8}XY\.\nI will fix it\.$/);
});

Deno.test("--json --dry-run: exit 0, what the reply would change, nothing written", async () => {
  const { run, project } = await commit([geminiReply(FIX)], ["--dry-run"]);
  await using _ = project;
  assert.equal(run.code, EXIT.ok, run.stderr);
  assert.equal(run.result.dryRun, true);
  assert.deepEqual(run.result.changes, [
    { path: "src/status.txt", kind: "replaced", added: 1, removed: 1 },
  ]);
  assert.equal(run.result.attempts, 1);
  assert.equal(await project.read("src/status.txt"), "broken\n");
});

Deno.test("--json --cc: exit 0, the report's call; an empty reply: exit 4", async () => {
  const report = REPORT_HEADINGS.map((heading) => `${heading}\n\nNothing to report.\n`).join("\n");
  for (const [reply, status] of [[report, EXIT.ok], ["  \n", EXIT.model]]) {
    await using project = await makeProject({ query: "Check it.\n", rollup: "the code\n" });
    const server = await startFakeLlmServer([geminiReply(reply as string)]);
    try {
      const run = await runToolJson(project.root, ["--cc"], { server });
      assert.equal(run.code, status, run.stderr);
      assert.equal(run.result.workflow, "consistency");
      assert.equal(run.result.calls, 1);
      assert.match(run.result.log!, /^logs\/[\d-]+-consistency-report$/);
      assert.deepEqual(run.result.changes, []);
    } finally {
      await server.close();
    }
  }
});

Deno.test("--json --aw: a task that needs the user is exit 7 (needsUser)", async () => {
  await using project = await makeProject({
    files: await fixtureFiles("five_modules"),
    query: null,
    rollup: null,
  });
  const server = await startFakeLlmServer([geminiReply("@@@@changes-requested@@@@\n")]);
  try {
    const run = await runToolJson(project.root, ["--aw"], { server });
    assert.equal(run.code, EXIT.needsUser, run.stderr);
    assert.equal(run.result.exit.class, "needsUser");
    assert.equal(run.result.workflow, "auto");
    assert.equal(run.result.calls, 1);
    assert.match(run.stderr, /^auto workflow: stopped at .*changes requested/m);
  } finally {
    await server.close();
  }
});

Deno.test("--json --init, --rollup, --check-build, --undo: their exit and log", async () => {
  await using project = await makeProject({
    buildScript: STATUS_BUILD,
    files: START_FILES,
    rollup: null,
  });
  const init = await runToolJson(project.root, ["--init"]);
  assert.equal(init.code, EXIT.ok, init.stderr);
  assert.equal(init.result.workflow, "init");
  const rollup = await runToolJson(project.root, ["--rollup"]);
  assert.equal(rollup.code, EXIT.ok, rollup.stderr);
  assert.equal(rollup.result.workflow, "rollup");
  const check = await runToolJson(project.root, ["--check-build", "--sandbox", "off"]);
  assert.equal(check.code, EXIT.failed, check.stderr);
  assert.match(check.result.log!, /^logs\/[\d-]+-check-build$/);
  assert.match(check.stderr, /^build failed/m);
  // Nothing to undo yet: set-up (3); after a run, the undo's own changes.
  const nothing = await runToolJson(project.root, ["--undo"]);
  assert.equal(nothing.code, EXIT.setup, nothing.stderr);
  const server = await startFakeLlmServer([geminiReply(FIX)]);
  let changed: ToolRun;
  try {
    changed = await runTool(project.root, ["--force"], { server });
  } finally {
    await server.close();
  }
  const undo = await runToolJson(project.root, ["--undo"]);
  assert.equal(undo.code, EXIT.ok, `${changed.stderr}\n${undo.stderr}`);
  assert.deepEqual(undo.result.changes, [
    { path: "src/status.txt", kind: "replaced", added: 1, removed: 1 },
  ]);
  assert.match(undo.result.log!, /^logs\/[\d-]+-undo$/);
  assert.equal(await project.read("src/status.txt"), "broken\n");
});

Deno.test("--json, interrupted (SIGINT during the build): exit 130, the object still printed", async () => {
  await using project = await makeProject({
    buildScript: "#!/bin/sh\necho building\nsleep 60\n",
    files: START_FILES,
  });
  const server = await startFakeLlmServer([geminiReply(FIX)]);
  let sent = false;
  try {
    const run = await runToolJson(project.root, [], {
      server,
      onStderr(soFar, child) {
        if (sent || !soFar.includes("running ./build.sh")) return;
        sent = true;
        setTimeout(() => child.kill("SIGINT"), 300);
      },
    });
    assert.equal(run.code, EXIT.interrupted, run.stderr);
    assert.match(run.result.error!, /^interrupted \(Ctrl-C\)/);
    assert.deepEqual(run.result.changes.map((change) => change.path), ["src/status.txt"]);
    assert.equal(run.result.calls, 1);
  } finally {
    await server.close();
  }
});

Deno.test("--json, another code-commit holds the project: exit 6 (locked)", async () => {
  const waiting = `#!/bin/sh
n=0
while [ ! -e go ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n+1)); done
[ "$(cat src/status.txt)" = "ok" ]
`;
  await using project = await makeProject({ buildScript: waiting, files: START_FILES });
  const server = await startFakeLlmServer([geminiReply(FIX)]);
  try {
    let second: Promise<JsonToolRun> | undefined;
    const first = await runTool(project.root, ["--sandbox", "off"], {
      server,
      onStderr(soFar) {
        if (second !== undefined || !soFar.includes("running ./build.sh")) return;
        second = runToolJson(project.root, ["--rollup"])
          .finally(() => Deno.writeTextFile(join(project.root, "go"), ""));
      },
    });
    assert.ok(second !== undefined, first.stderr);
    const locked = await second;
    assert.equal(first.code, EXIT.ok, first.stderr);
    assert.equal(locked.code, EXIT.locked, locked.stderr);
    assert.equal(locked.result.exit.class, "locked");
    assert.equal(locked.result.workflow, "rollup");
  } finally {
    await server.close();
  }
});
