/**
 * A file of a million lines with one line changed, end to end: the run
 * applies it and lists it `+1 -1`, `--dry-run` shows it `+1 -1` with a
 * one-line hunk, and `--undo` (with and without `--force`) takes it back
 * `+1 -1` (the diff sets the common lines aside and never spreads an array
 * into a call, so no stack limit is reached).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import { makeProject, type Project, STATUS_BUILD } from "../support/project.ts";
import { runTool, type ToolRun } from "../support/run_tool.ts";

/**
 * Lines of the big file: about 12 MiB, far under the limit on a file a
 * reply replaces (512 MiB) and on a reply's body (64 MiB).
 */
const LINES = 1_000_000;
/** The line the reply changes (0-based). */
const CHANGED = 654_321;

const lines = Array.from({ length: LINES }, (_, i) => `line ${i}`);
const BIG = `${lines.join("\n")}\n`;
lines[CHANGED] = "the one line changed";
const BIG_CHANGED = `${lines.join("\n")}\n`;

/** The reply: the big file with one line changed, and the build fixed. */
const REPLY = `^^^src/big.txt\n${BIG_CHANGED}^^^end\n^^^src/status.txt\nok\n^^^end\n`;

/** A project holding the big file. */
function bigProject(): Promise<Project> {
  return makeProject({
    buildScript: STATUS_BUILD,
    files: { "src/status.txt": "broken\n", "src/big.txt": BIG },
  });
}

/** Runs the tool with `args` against a fake server answering {@link REPLY}. */
async function runWithReply(project: Project, args: string[]): Promise<ToolRun> {
  const server = await startFakeLlmServer([geminiReply(REPLY)]);
  try {
    const run = await runTool(project.root, args, { server });
    await assertNoKeyLeak(project.root, [run], server);
    return run;
  } finally {
    await server.close();
  }
}

Deno.test("a million-line file with one line changed: the run lists it +1 -1, and --undo takes it back +1 -1", async () => {
  for (const force of [false, true]) {
    await using project = await bigProject();
    const run = await runWithReply(project, []);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^ {2}replaced {2}src\/big\.txt {2}\+1 -1$/m);
    assert.equal(await project.read("src/big.txt"), BIG_CHANGED);
    const undone = await runTool(project.root, force ? ["--undo", "--force"] : ["--undo"]);
    assert.equal(undone.code, 0, undone.stderr);
    assert.match(undone.stdout, /^ {2}restored {2}src\/big\.txt {2}\+1 -1$/m, undone.stdout);
    assert.equal(await project.read("src/big.txt"), BIG);
  }
});

Deno.test("a million-line file with one line changed: --dry-run shows it +1 -1 with a one-line hunk", async () => {
  await using project = await bigProject();
  const run = await runWithReply(project, ["--dry-run"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^ {2}replaced {2}src\/big\.txt {2}\+1 -1$/m);
  const [folder] = await project.logRuns();
  const diff = await Deno.readTextFile(
    join(project.root, "logs", folder, "1-initial-query-dry-run.diff"),
  );
  const at = CHANGED + 1 - 3; // the hunk starts three lines of context before the change
  assert.ok(
    diff.includes(
      `--- a/src/big.txt\n+++ b/src/big.txt\n@@ -${at},7 +${at},7 @@\n` +
        ` line ${CHANGED - 3}\n line ${CHANGED - 2}\n line ${CHANGED - 1}\n` +
        `-line ${CHANGED}\n+the one line changed\n` +
        ` line ${CHANGED + 1}\n line ${CHANGED + 2}\n line ${CHANGED + 3}\n`,
    ),
    diff.slice(0, 2000),
  );
  assert.equal(await project.read("src/big.txt"), BIG);
});
