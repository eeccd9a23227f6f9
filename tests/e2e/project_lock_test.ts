/**
 * One code-commit at a time per project, and no build outliving its run,
 * with the real tool: a run held in its build keeps `--undo`, `--rollup`
 * and a second run out (exit 6, naming it), and its change is intact after;
 * a run SIGKILLed at several moments around its build's start leaves no
 * process of that build once the next code-commit has started there, nor
 * does a SIGKILLed run block the next.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { EXIT } from "../../lib/errors/errors.ts";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { makeProject } from "../support/project.ts";
import { runTool, type ToolRun } from "../support/run_tool.ts";
import { BWRAP_MISSING } from "../support/sandbox.ts";

/** A build that waits until the file `go` is in the project, then checks src/status.txt. */
const WAITING_BUILD = `#!/bin/sh
n=0
while [ ! -e go ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n+1)); done
[ "$(cat src/status.txt)" = "ok" ]
`;

Deno.test("a second code-commit in the project exits 6 naming the first; the first's change is intact", async () => {
  await using project = await makeProject({
    buildScript: WAITING_BUILD,
    files: { "src/status.txt": "broken\n" },
  });
  const server = await startFakeLlmServer([geminiReply("^^^src/status.txt\nok\n^^^end\n")]);
  try {
    let seconds: Promise<ToolRun[]> | undefined;
    const first = await runTool(project.root, ["--sandbox", "off"], {
      server,
      onStderr(soFar) {
        if (seconds !== undefined || !soFar.includes("running ./build.sh")) return;
        seconds = Promise.all([
          runTool(project.root, ["--undo"]),
          runTool(project.root, ["--rollup"]),
          runTool(project.root, [], { server }),
          runTool(project.root, ["--init"]),
        ]).finally(() => Deno.writeTextFile(join(project.root, "go"), ""));
      },
    });
    assert.ok(seconds !== undefined, first.stderr);
    const others = await seconds;
    assert.equal(first.code, EXIT.ok, first.stderr);
    const held = /PID (\d+), a run, started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/;
    for (const other of others) {
      assert.equal(other.code, EXIT.locked, other.stderr);
      assert.match(other.stderr, held);
      assert.equal(other.stderr.trim().split("\n").length, 1, other.stderr);
    }
    assert.equal(server.requests.length, 1, "the second run called the model");
    assert.equal(await project.read("src/status.txt"), "ok\n");
    // The first run ended: its lock is gone, and the next run takes it.
    assert.equal(await project.exists("agent-config/code-commit.lock"), false);
    const undo = await runTool(project.root, ["--undo"]);
    assert.equal(undo.code, EXIT.ok, undo.stderr);
    assert.equal(await project.read("src/status.txt"), "broken\n");
  } finally {
    await server.close();
  }
});

/** The PIDs of every process whose command line holds `marker`. */
async function processesWith(marker: string): Promise<number[]> {
  const output = await new Deno.Command("ps", { args: ["-e", "-o", "pid=,args="] }).output();
  return new TextDecoder().decode(output.stdout).split("\n")
    .filter((line) => line.includes(marker) && !line.includes("ps -e"))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** Waits up to `ms` for no process to hold `marker`; returns those left. */
async function goneWithin(marker: string, ms: number): Promise<number[]> {
  const until = performance.now() + ms;
  let left = await processesWith(marker);
  while (left.length > 0 && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = await processesWith(marker);
  }
  return left;
}

for (const sandbox of ["off", "on"] as const) {
  Deno.test({
    name: `a SIGKILLed run leaves no build running once the next starts (--sandbox ${sandbox})`,
    ignore: sandbox === "on" && BWRAP_MISSING !== undefined && !Deno.env.get("CI"),
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      // Moments after the run says it starts the build: before, around and after bubblewrap
      // starts and sets its parent-death signal.
      for (const delayMs of [0, 4, 8, 12, 16, 20, 40, 150]) {
        const marker = `${Math.floor(Math.random() * 1e9)}`;
        const build = `#!/bin/sh\nsleep 300.${marker} &\nsleep 301.${marker}\n`;
        await using project = await makeProject({ buildScript: build });
        const server = await startFakeLlmServer([geminiReply("Nothing to change.\n")]);
        try {
          let killed = false;
          const run = await runTool(project.root, ["--sandbox", sandbox], {
            server,
            onStderr(soFar, child) {
              if (killed || !soFar.includes("running ./build.sh")) return;
              killed = true;
              setTimeout(() => child.kill("SIGKILL"), delayMs);
            },
          });
          assert.ok(killed, run.stderr);
          assert.equal(run.code, 137, run.stderr);
          // The next start in the project: not blocked by the killed run, and it ends its build.
          const next = await runTool(project.root, ["--undo"]);
          assert.notEqual(next.code, EXIT.locked, next.stderr);
          const left = await goneWithin(marker, 2_000);
          assert.deepEqual(
            left,
            [],
            `build processes left after a kill at ${delayMs} ms: ${next.stderr}`,
          );
          if (next.stderr.includes("ended the build")) {
            assert.match(next.stderr, /ended the build a killed code-commit \(PID \d+\) left/);
          }
          assert.equal(await project.exists("agent-config/code-commit.build"), false, next.stderr);
        } finally {
          await server.close();
        }
      }
    },
  });
}
