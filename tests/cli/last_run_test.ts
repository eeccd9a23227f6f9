/**
 * `agent-config/last-run.json`: written atomically, a link planted at its
 * name replaced and never followed, nothing when the lock's folder holds
 * only the lock, a failure one warning that never changes the exit status,
 * and keys masked as `--json` masks them (the real tool, without `--json`);
 * git ignores it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { keepLastRun, LAST_RUN_FILE } from "../../lib/cli/last_run.ts";
import { EXIT } from "../../lib/errors/errors.ts";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { GEMINI_KEY, git, makeProject, STATUS_BUILD, tempProject } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";

const LINE = '{"workflow":"undo"}';

/** Keeps `line` in `root` as a run would; returns the warnings. */
async function keep(root: string, line = LINE, madeFolder = false): Promise<string[]> {
  const warnings: string[] = [];
  await keepLastRun(root, line, madeFolder, (warning) => warnings.push(warning));
  return warnings;
}

Deno.test("the line and a newline go to agent-config/last-run.json, readable by the owner only", async () => {
  await using project = await tempProject({ "agent-config/query.txt": "q\n" });
  assert.deepEqual(await keep(project.root), []);
  assert.equal(await project.read(LAST_RUN_FILE), `${LINE}\n`);
  assert.equal((await Deno.stat(join(project.root, LAST_RUN_FILE))).mode! & 0o777, 0o600);
  // The next run's replaces it, and no temporary file is left.
  assert.deepEqual(await keep(project.root, '{"workflow":"rollup"}'), []);
  assert.equal(await project.read(LAST_RUN_FILE), '{"workflow":"rollup"}\n');
  const names = [...Deno.readDirSync(join(project.root, "agent-config"))].map((e) => e.name);
  assert.deepEqual(names.sort(), ["last-run.json", "query.txt"]);
});

Deno.test("a link planted as last-run.json is replaced, never followed", async () => {
  await using project = await tempProject({
    "agent-config/query.txt": "q\n",
    "outside.txt": "mine\n",
  });
  await Deno.symlink("../outside.txt", join(project.root, LAST_RUN_FILE));
  assert.deepEqual(await keep(project.root), []);
  assert.equal(await project.read("outside.txt"), "mine\n");
  const info = await Deno.lstat(join(project.root, LAST_RUN_FILE));
  assert.ok(info.isFile && !info.isSymlink);
  assert.equal(await project.read(LAST_RUN_FILE), `${LINE}\n`);
});

Deno.test("agent-config a link to the user's folder: nothing is written through it", async () => {
  await using project = await tempProject({ "keys/query.txt": "q\n" });
  await Deno.symlink("keys", join(project.root, "agent-config"));
  assert.deepEqual(await keep(project.root), []);
  assert.deepEqual([...Deno.readDirSync(join(project.root, "keys"))].map((e) => e.name), [
    "query.txt",
  ]);
});

Deno.test("a folder the lock made, holding only the lock: nothing written, so it goes with the lock", async () => {
  await using project = await tempProject({ "agent-config/code-commit.lock": "" });
  assert.deepEqual(await keep(project.root, LINE, true), []);
  assert.equal(await project.exists(LAST_RUN_FILE), false);
  // Anything else in it (--init's files, say): the folder stays, and so does the file.
  await project.write("agent-config/query.txt", "q\n");
  assert.deepEqual(await keep(project.root, LINE, true), []);
  assert.equal(await project.read(LAST_RUN_FILE), `${LINE}\n`);
});

Deno.test("a write that fails is one warning naming the file and the reason, never a throw", async () => {
  await using project = await tempProject({ "agent-config/last-run.json/inside.txt": "x\n" });
  const warnings = await keep(project.root);
  assert.equal(warnings.length, 1, warnings.join("\n"));
  assert.match(
    warnings[0],
    /^cannot write agent-config\/last-run\.json: renaming "[^"]+" to "agent-config\/last-run\.json" failed: /,
  );
  assert.equal(await project.read("agent-config/last-run.json/inside.txt"), "x\n");
  // No temporary file is left beside it.
  const names = [...Deno.readDirSync(join(project.root, "agent-config"))].map((e) => e.name);
  assert.deepEqual(names, ["last-run.json"]);
  // No agent-config at all: a warning too (main only calls it while the lock holds the folder).
  await using bare = await tempProject({});
  assert.equal((await keep(bare.root)).length, 1);
});

/** Whether `chattr +i` works here (root on ext4): the real way to make a folder read-only to root. */
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
  name: "a read-only agent-config/: one warning on stderr, the exit status unchanged",
  ignore: !(await immutableFoldersWork()),
  fn: async () => {
    await using project = await makeProject({ files: { "src/a.txt": "a\n" } });
    const args = ["--check-build", "--sandbox", "off"];
    const writable = await runTool(project.root, args);
    assert.equal(writable.code, EXIT.ok, writable.stderr);
    assert.doesNotMatch(writable.stderr, /warning/);
    await Deno.remove(join(project.root, LAST_RUN_FILE));
    // The lock file is there already: the run can take the lock in a folder it cannot add to.
    await project.write("agent-config/code-commit.lock", "");
    const folder = join(project.root, "agent-config");
    await new Deno.Command("chattr", { args: ["+i", folder] }).output();
    try {
      const run = await runTool(project.root, args, { noLastRun: "agent-config/ is immutable" });
      assert.equal(run.code, EXIT.ok, run.stderr);
      const warnings = run.stderr.split("\n").filter((line) => line.startsWith("warning:"));
      assert.equal(warnings.length, 1, run.stderr);
      assert.match(warnings[0], /^warning: cannot write agent-config\/last-run\.json: .*failed: /);
      assert.equal(await project.exists(LAST_RUN_FILE), false);
    } finally {
      await new Deno.Command("chattr", { args: ["-i", folder] }).output();
    }
  },
});

Deno.test("a key in the model's prose is masked in the file, without --json", async () => {
  await using project = await makeProject({
    buildScript: STATUS_BUILD,
    files: { "src/status.txt": "broken\n" },
  });
  const fix = "^^^src/status.txt\nok\n^^^end\n";
  const server = await startFakeLlmServer([geminiReply(`The key is ${GEMINI_KEY}.\n${fix}`)]);
  try {
    const run = await runTool(project.root, ["--sandbox", "off"], { server });
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.equal(run.stdout.includes("{"), false, "no object on stdout without --json");
    const kept = await project.read(LAST_RUN_FILE);
    assert.ok(!kept.includes(GEMINI_KEY), kept);
    const object = JSON.parse(kept);
    assert.match(object.prose[0].text, /^The key is \*{8}XY\.$/);
    assert.equal(object.exit.status, EXIT.ok);
    // Git ignores it with the rest of agent-config/.
    assert.doesNotMatch(await git(project.root, "status", "--porcelain"), /agent-config/);
  } finally {
    await server.close();
  }
});
