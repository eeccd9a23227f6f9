/**
 * The README's second way to install, `deno install --global` from the
 * clone, run as it is written: the command it makes works in a project (the
 * relative permissions resolve against the folder it is started in), and its
 * flags are the tool's.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import config from "../../deno.json" with { type: "json" };
import { RUN_FLAGS } from "../../lib/permissions/permissions.ts";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { makeProject, STATUS_BUILD } from "../support/project.ts";

const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const README = await Deno.readTextFile(join(TOOL_ROOT, "README.md"));

/** The README's shell block that starts with `deno install`. */
function installBlock(): string {
  const block = README.match(/\n```sh\n(deno install [^]*?)\n```\n/);
  assert(block, "the README shows no deno install command");
  return block[1];
}

async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("the README's deno install command passes exactly the tool's flags", async () => {
  // The shell splits the command into words, as it will for the user.
  const split = await run("sh", ["-c", `set -f; printf '%s\\n' ${installBlock()}`]);
  assert.equal(split.code, 0, split.stderr);
  const words = split.stdout.trimEnd().split("\n");
  assert.deepEqual(words.slice(words.indexOf("--quiet") + 1), [...RUN_FLAGS, "main.ts"]);
});

Deno.test("deno install as the README shows it makes a command that works in any project", async () => {
  const root = await Deno.makeTempDir({ prefix: "code-commit-install-" });
  try {
    const bin = join(root, "bin");
    const env = {
      PATH: `${bin}:${join(Deno.execPath(), "..")}:/usr/bin:/bin`,
      HOME: Deno.env.get("HOME") ?? root,
      NO_COLOR: "1",
    };
    if (Deno.env.get("DENO_DIR")) Object.assign(env, { DENO_DIR: Deno.env.get("DENO_DIR") });
    const installed = await run("sh", ["-c", installBlock()], {
      cwd: TOOL_ROOT,
      env: { ...env, DENO_INSTALL_ROOT: root },
    });
    assert.equal(installed.code, 0, installed.stderr);

    const version = await run("code-commit", ["--version"], { cwd: root, env });
    assert.equal(version.stdout, `code-commit ${config.version}\n`, version.stderr);
    await using plain = await makeProject({ rollup: null, files: { "a.js": "a\n" } });
    const rollup = await run("code-commit", ["--rollup"], { cwd: plain.root, env });
    assert.equal(rollup.code, 0, rollup.stderr);
    assert.match(rollup.stdout, /^agent-config\/codeRollup\.txt: 3 files, /);

    // A run: the model over loopback, the reply written, ./build.sh started.
    await using project = await makeProject({ buildScript: STATUS_BUILD });
    const server = await startFakeLlmServer([geminiReply("^^^src/status.txt\nok\n^^^end\n")]);
    try {
      const result = await run("code-commit", ["--sandbox", "off"], {
        cwd: project.root,
        env: { ...env, ...server.env },
      });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(await project.read("src/status.txt"), "ok\n");
    } finally {
      await server.close();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
