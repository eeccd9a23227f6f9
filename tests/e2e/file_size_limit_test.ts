/**
 * Under a file size limit (`ulimit -f`), for real: a write past it ends
 * the run with a message naming what could not be written, never a silent
 * death by SIGXFSZ, and the project is as it was.
 */
import assert from "node:assert/strict";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { makeProject } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";
import { ownDenoDir } from "../support/deno_dir.ts";

/** Starts the tool under `ulimit -f` of `blocks` 1024-byte blocks. */
function limited(blocks: number): string[] {
  return ["sh", "-c", `ulimit -f ${blocks} && exec "$@"`, "sh"];
}

Deno.test("a file size limit the reply's log passes: one line naming the log file, not a silent death", async () => {
  await using project = await makeProject();
  // Deno writes its own caches as it starts and ends: a cache folder of its own keeps them small.
  await using denoDir = await ownDenoDir();
  const line = "z".repeat(1023) + "\n";
  const reply = `^^^src/a.txt\n${line.repeat(20 * 1024)}^^^end\n`;
  const server = await startFakeLlmServer([geminiReply(reply)]);
  try {
    const run = await runTool(project.root, [], {
      server,
      wrapper: limited(16 * 1024),
      env: { DENO_DIR: denoDir.path },
    });
    assert.notEqual(run.code, 153, "killed by SIGXFSZ (128 + 25)");
    assert.notEqual(run.code, 0, run.stderr);
    assert.match(run.stderr, /^code-commit: .*(logs\/|src\/a\.txt).*File too large/m);
    console.log(run.stderr.split("\n").filter((line) => /File too large/.test(line)).join("\n"));
  } finally {
    await server.close();
  }
});
