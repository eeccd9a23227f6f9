/**
 * The live line end to end: the real tool with its stderr on a terminal (a
 * pseudo-terminal made by Python's `pty`), a streamed reply and a build that
 * prints as it runs. Skipped, with one line saying why, when Python is not
 * there to make the terminal.
 */
import assert from "node:assert/strict";
import { geminiStream, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { makeProject } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";

/** Runs the command that follows it with stdin, stdout and stderr on one pseudo-terminal. */
const PTY = [
  "python3",
  "-c",
  "import os, pty, sys; sys.exit(os.waitstatus_to_exitcode(pty.spawn(sys.argv[1:])))",
];

const python = await new Deno.Command("python3", { args: ["-c", "import pty"] }).output()
  .then((output) => output.success, () => false);

const SLOW_BUILD = `#!/bin/sh
printf '\\033[32mcompiling\\033[0m part one\\n'
sleep 0.6
echo "error: src/status.txt is $(cat src/status.txt)" >&2
sleep 0.6
[ "$(cat src/status.txt)" = "ok" ]
`;

Deno.test({
  name: "on a terminal: the tokens streamed, then the build's latest line, on the live line",
  ignore: !python,
  async fn() {
    await using project = await makeProject({
      buildScript: SLOW_BUILD,
      files: { "src/status.txt": "broken\n" },
    });
    const reply = "^^^src/status.txt\nok\n^^^end\n";
    const server = await startFakeLlmServer([
      geminiStream(reply, { piece: 4, intervalMs: 250, usage: { candidates: 9, thoughts: 700 } }),
    ]);
    try {
      const run = await runTool(project.root, ["--sandbox", "off"], { server, wrapper: PTY });
      // stdout and stderr are the one terminal: everything is in stdout.
      const screen = run.stdout;
      assert.equal(run.code, 0, screen);
      assert.match(screen, /waiting for gemini-2\.5-pro… \ds · thinking 700 · answer \d tokens/);
      assert.match(screen, /\.\/build\.sh \ds · compiling part one/);
      assert.match(screen, /\.\/build\.sh \ds · error: src\/status\.txt is ok/);
      assert.ok(!screen.includes("\x1b[32m"), "the build's colours are removed");
    } finally {
      await server.close();
    }
  },
});

if (!python) console.log("live line e2e skipped: python3 with pty is not available");
