/**
 * The build's helper scripts: the launcher ./code-commit, which finds its
 * folder wherever the clone is, and the one line that says why deno compile
 * failed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import config from "../../deno.json" with { type: "json" };
import { RUN_FLAGS } from "../../lib/permissions/permissions.ts";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { makeProject, STATUS_BUILD } from "../support/project.ts";

const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    clearEnv: options.env !== undefined,
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

/**
 * A copy of the tool in `folder/name` as a clone holds it, with `.tools/` as build.sh fills it:
 * Deno at `.tools/node_modules/deno/deno` (a link to this test's Deno) and the npm packages of
 * the dependency cache this test runs with in `.tools/deno_dir`. Returns the copy's path.
 */
async function copyTool(folder: string, name: string): Promise<string> {
  const copy = join(folder, name);
  await Deno.mkdir(copy);
  for (const entry of ["deno.json", "deno.lock", "main.ts", "lib", "scripts"]) {
    const copied = await run("cp", ["-R", join(TOOL_ROOT, entry), join(copy, entry)]);
    assert.equal(copied.code, 0, copied.stderr);
  }
  await Deno.mkdir(join(copy, ".tools/node_modules/deno"), { recursive: true });
  await Deno.symlink(Deno.execPath(), join(copy, ".tools/node_modules/deno/deno"));
  const info = await run(Deno.execPath(), ["info", "--json"]);
  const { denoDir } = JSON.parse(info.stdout) as { denoDir: string };
  await Deno.mkdir(join(copy, ".tools/deno_dir"));
  const npm = await run("cp", ["-R", join(denoDir, "npm"), join(copy, ".tools/deno_dir/npm")]);
  assert.equal(npm.code, 0, npm.stderr);
  return copy;
}

/** Runs make_launcher.sh of the tool in `tool` with `deno`; returns the launcher's text. */
async function makeLauncher(tool: string, deno: string): Promise<string> {
  const made = await run(join(tool, "scripts/make_launcher.sh"), [deno]);
  assert.equal(made.code, 0, made.stderr);
  return await Deno.readTextFile(join(tool, "code-commit"));
}

Deno.test("the launcher finds its folder: moved, through a link on PATH, with another HOME", async () => {
  const folder = await Deno.makeTempDir({ prefix: "code-commit-launcher-" });
  try {
    const built = await copyTool(folder, "built");
    const text = await makeLauncher(built, join(built, ".tools/node_modules/deno/deno"));
    // Nothing of the folder it was made in is written into it.
    assert(!text.includes(built), text);
    assert(!text.includes(TOOL_ROOT), text);
    for (const flag of RUN_FLAGS) assert(text.includes(`'${flag}'`), flag);
    assert.match(text, / run --quiet --cached-only --frozen /);

    const moved = join(folder, "moved elsewhere");
    await Deno.rename(built, moved);
    const bin = join(folder, "bin");
    await Deno.mkdir(bin);
    await Deno.symlink(join(moved, "code-commit"), join(bin, "code-commit"));
    const home = join(folder, "another-home");
    await Deno.mkdir(home);
    const env = { PATH: `${bin}:/usr/bin:/bin`, HOME: home, NO_COLOR: "1" };

    for (const launcher of [join(moved, "code-commit"), "code-commit"]) {
      const version = await run(launcher, ["--version"], { env });
      assert.deepEqual(version, { code: 0, stdout: `code-commit ${config.version}\n`, stderr: "" });
    }
    await using project = await makeProject({ rollup: null, files: { "a.js": "a\n" } });
    const rollup = await run("code-commit", ["--rollup"], { cwd: project.root, env });
    assert.equal(rollup.code, 0, rollup.stderr);
    assert.match(rollup.stdout, /^agent-config\/codeRollup\.txt: 3 files, /);

    // A run that calls the model loads zod, from the cache in the moved folder.
    const runWithModel = async () => {
      await using project = await makeProject({ buildScript: STATUS_BUILD });
      const server = await startFakeLlmServer([geminiReply("^^^src/status.txt\nok\n^^^end\n")]);
      try {
        const result = await run("code-commit", ["--sandbox", "off"], {
          cwd: project.root,
          env: { ...env, ...server.env },
        });
        return { ...result, status: await project.read("src/status.txt").catch(() => "") };
      } finally {
        await server.close();
      }
    };
    const result = await runWithModel();
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.status, "ok\n");
    // Without the cache in the folder it fails: the launcher reads no other.
    await Deno.remove(join(moved, ".tools/deno_dir"), { recursive: true });
    const uncached = await runWithModel();
    assert.notEqual(uncached.code, 0, "the launcher found a cache outside its folder");
    assert.match(uncached.stderr, /zod/);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("a launcher made with a Deno outside the folder runs that Deno by its absolute path", async () => {
  const folder = await Deno.makeTempDir({ prefix: "code-commit-launcher-" });
  try {
    const tool = await copyTool(folder, "tool");
    await Deno.remove(join(tool, ".tools/node_modules"), { recursive: true });
    const text = await makeLauncher(tool, Deno.execPath());
    assert.match(text, new RegExp(`^exec '${Deno.execPath()}' run `, "m"));
    const version = await run(join(tool, "code-commit"), ["--version"], {
      env: { PATH: "/usr/bin:/bin", HOME: folder },
    });
    assert.equal(version.stdout, `code-commit ${config.version}\n`, version.stderr);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("the launcher is made under the name given, in the tool's folder only", async () => {
  const folder = await Deno.makeTempDir({ prefix: "code-commit-launcher-" });
  try {
    const tool = await copyTool(folder, "tool");
    const script = join(tool, "scripts/make_launcher.sh");
    const made = await run(script, [Deno.execPath(), "code-commit.tmp"], { cwd: folder });
    assert.equal(made.code, 0, made.stderr);
    assert.equal(
      (await run(join(tool, "code-commit.tmp"), ["--version"])).stdout,
      `code-commit ${config.version}\n`,
    );
    const elsewhere = await run(script, [Deno.execPath(), join(folder, "code-commit")]);
    assert.equal(elsewhere.code, 2);
    assert.match(elsewhere.stderr, /give a file name; the launcher is made in the tool's folder/);
    assert.equal(await Deno.stat(join(folder, "code-commit")).catch(() => null), null);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("build.sh takes no argument but test, and says so", async () => {
  const result = await run(join(TOOL_ROOT, "build.sh"), ["tests"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /^usage: \.\/build\.sh \[test\]/);
});

Deno.test("the reason deno compile failed is one line, cut between words, keeping its root cause", async () => {
  const folder = await Deno.makeTempDir({ prefix: "code-commit-reason-" });
  try {
    const log = join(folder, "compile.log");
    const dns = "error: error sending request for url " +
      "(https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip): client error " +
      "(Connect): dns error: failed to lookup address information: Name or service not known";
    await Deno.writeTextFile(log, `Check main.ts\n${dns}\n    0: more detail\n`);
    const reason = await run(join(TOOL_ROOT, "scripts/compile_reason.sh"), [log]);
    assert.equal(reason.code, 0, reason.stderr);
    const line = reason.stdout.trimEnd();
    assert(!line.includes("\n"));
    assert.equal(
      line,
      "error sending request for url … client error (Connect): dns error: failed to lookup address information: Name or service not known",
    );
    await Deno.writeTextFile(log, "error: short reason\n");
    assert.equal(
      (await run(join(TOOL_ROOT, "scripts/compile_reason.sh"), [log])).stdout,
      "short reason\n",
    );
    await Deno.writeTextFile(log, "nothing wrong\n");
    assert.equal((await run(join(TOOL_ROOT, "scripts/compile_reason.sh"), [log])).stdout, "\n");
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
