/**
 * A read-only `agent-config/` (a read-only bind mount), for real: a run
 * that would apply a reply stops with a set-up error before any call to
 * the model, naming the folder.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { EXIT } from "../../lib/errors/errors.ts";
import { IN_CI } from "../support/ci.ts";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { makeProject } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";

function mount(...args: string[]): boolean {
  return new Deno.Command("mount", { args, stdout: "null", stderr: "null" }).outputSync().success;
}

Deno.test("a read-only agent-config/ is a set-up error before any call", async () => {
  await using project = await makeProject({ files: { "src/a.txt": "a\n" } });
  const folder = join(project.root, "agent-config");
  if (!mount("--bind", folder, folder)) {
    if (IN_CI) throw new Error("cannot bind-mount in CI");
    console.log("skipped: cannot bind-mount here (not root?)");
    return;
  }
  try {
    assert.ok(mount("-o", "remount,bind,ro", folder));
    const server = await startFakeLlmServer([geminiReply("^^^src/a.txt\nb\n^^^end\n")]);
    try {
      const run = await runTool(project.root, [], {
        server,
        noLastRun: "agent-config/ is mounted read-only",
      });
      assert.equal(run.code, EXIT.setup, run.stderr);
      assert.match(
        run.stderr,
        // The project's lock, made in agent-config/ before anything else, is what finds it.
        /^code-commit: cannot lock the project: cannot make agent-config\/code-commit\.lock: Read-only file system.*; code-commit keeps its lock and its apply journal in agent-config\/, so it cannot run; make agent-config\/ writable .* nothing was sent to the model$/m,
      );
      assert.equal(server.requests.length, 0);
      assert.equal(await project.read("src/a.txt"), "a\n");
    } finally {
      await server.close();
    }
  } finally {
    new Deno.Command("umount", { args: ["-l", folder] }).outputSync();
  }
});
