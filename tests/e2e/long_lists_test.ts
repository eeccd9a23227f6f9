/**
 * No message names more than twenty paths: a reply refused for 1,000 paths
 * shows twenty of them and a count on the terminal, with every one of them
 * in the run's log.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { makeProject } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";

const REFUSED = 1_000;

/** A reply that writes {@link REFUSED} files in `logs/`, which no reply may write. */
function refusedReply(): string {
  return Array.from({ length: REFUSED }, (_, i) => `^^^logs/x${i}.txt\nx\n^^^end\n`).join("");
}

for (const dryRun of [false, true]) {
  Deno.test(`a reply refused for ${REFUSED} paths names twenty on the terminal (dry run: ${dryRun})`, async () => {
    await using project = await makeProject();
    const server = await startFakeLlmServer([
      geminiReply(refusedReply()),
      geminiReply("Nothing to change.\n"),
    ]);
    try {
      const run = await runTool(project.root, dryRun ? ["--dry-run"] : [], { server });
      const named = run.stderr.split("\n").filter((line) => /logs\/x\d+\.txt/.test(line));
      assert.equal(named.length, 20, run.stderr);
      const more = /and 980 more \(all of them in (logs\/[^)]+)\)/.exec(run.stderr);
      assert.ok(more !== null, run.stderr);
      assert.ok(run.stderr.split("\n").every((line) => line.length < 2_000));
      const log = await Deno.readTextFile(join(project.root, more[1]));
      assert.equal(log.split("\n").filter((line) => /logs\/x\d+\.txt/.test(line)).length, REFUSED);
    } finally {
      await server.close();
    }
  });
}
