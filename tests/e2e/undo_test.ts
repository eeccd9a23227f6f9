/**
 * `code-commit --undo`, end to end on real projects: a run of several
 * attempts is taken back as a whole (contents, modes, created files and
 * folders, deleted files); a path edited by hand since the run stops it
 * (nothing restored) unless `--force`; a run is undone once; no LLM call,
 * no key, no network.
 */
import assert from "node:assert/strict";
import { LAST_RUN_FILE } from "../../lib/cli/last_run.ts";
import { EXIT } from "../../lib/errors/errors.ts";
import { join } from "node:path";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import { git, makeProject, type Project, STATUS_BUILD } from "../support/project.ts";
import { runTool, type ToolRun } from "../support/run_tool.ts";

/** Every entry under `root` but `.git/`, `logs/`, the journal and the last run's object: path → content and mode, or a folder. */
async function tree(root: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const visit = async (folder: string) => {
    for await (const entry of Deno.readDir(join(root, folder))) {
      const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (path === ".git" || path === "logs" || path === "agent-config/journal") continue;
      if (path === LAST_RUN_FILE) continue; // the last run's object: runTool checks it
      const info = await Deno.lstat(join(root, path));
      if (info.isDirectory) {
        result[path] = "<folder>";
        await visit(path);
      } else {
        const mode = ((info.mode ?? 0) & 0o7777).toString(8);
        result[path] = `${mode} ${await Deno.readTextFile(join(root, path))}`;
      }
    }
  };
  await visit("");
  return Object.fromEntries(Object.entries(result).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The files before the run. */
const START = {
  "src/status.txt": "broken\n",
  "src/keep.txt": "keep\n",
  "src/tool.sh": "#!/bin/sh\necho tool\n",
  "src/gone.txt": "to be deleted\n",
};

/** Two attempts: the first breaks the build, the second fixes it. */
const ATTEMPTS = [
  "^^^src/status.txt\nnope\n^^^end\n^^^src/new/deep/made.txt\nmade\n^^^end\n" +
  "^^^src/gone.txt\n^^^delete\n^^^src/tool.sh\n#!/bin/sh\necho changed\n^^^end\n",
  "^^^src/status.txt\nok\n^^^end\n^^^src/new/deep/made.txt\nmade again\n^^^end\n" +
  "^^^src/also.txt\nalso\n^^^end\n",
];

/** A project that ran committing code with {@link ATTEMPTS}: the tree before, and the run. */
async function afterRun(): Promise<
  { project: Project; before: Record<string, string>; run: ToolRun }
> {
  const project = await makeProject({ buildScript: STATUS_BUILD, files: START });
  await Deno.chmod(join(project.root, "src/tool.sh"), 0o755);
  await git(project.root, "add", "-A");
  await git(project.root, "commit", "-q", "-m", "modes");
  const before = await tree(project.root);
  const server = await startFakeLlmServer(ATTEMPTS.map((text) => geminiReply(text)));
  try {
    const run = await runTool(project.root, [], { server });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /build passed after 2 attempts/);
    return { project, before, run };
  } finally {
    await server.close();
  }
}

/** Runs `--undo` with no key files and no server: whatever it needs, it is not those. */
async function undo(project: Project, ...args: string[]): Promise<ToolRun> {
  const keys: Record<string, string> = {};
  for (const name of ["gemini-key.txt", "openai-key.txt"]) {
    const path = join(project.root, "agent-config", name);
    keys[name] = await Deno.readTextFile(path).catch(() => "");
    await Deno.remove(path).catch(() => {});
  }
  try {
    return await runTool(project.root, ["--undo", ...args]);
  } finally {
    for (const [name, key] of Object.entries(keys)) {
      if (key !== "") await Deno.writeTextFile(join(project.root, "agent-config", name), key);
    }
  }
}

Deno.test("--undo takes a run of two attempts back as a whole: contents, modes, created files and folders, deleted files; no key, no call", async () => {
  const { project, before, run } = await afterRun();
  await using _project = project;
  assert.notDeepEqual(await tree(project.root), before);
  const undone = await undo(project);
  assert.equal(undone.code, 0, undone.stderr);
  assert.deepEqual(await tree(project.root), before);
  assert.equal(await project.exists("src/new"), false, "the folders the run made are gone");
  const lines = undone.stdout.trimEnd().split("\n");
  assert.deepEqual(lines.slice(0, -1), [
    "  removed   src/also.txt  +0 -1 (the run created it)",
    "  put back  src/gone.txt  +1 -0 (the run deleted it)",
    "  removed   src/new/deep/made.txt  +0 -1 (the run created it)",
    "  restored  src/status.txt  +1 -1",
    "  restored  src/tool.sh  +1 -1",
  ]);
  assert.match(
    lines.at(-1)!,
    /^undo: took back the committing code run logged in logs\/[\d-]+-committing-code: 5 files \(2 removed, 2 restored, 1 put back\); it cannot be undone again; list in logs\/[\d-]+-undo\/undo\.txt$/,
  );
  await assertNoKeyLeak(project.root, [run, undone]);

  // Not twice.
  const again = await undo(project);
  assert.equal(again.code, EXIT.setup);
  assert.match(
    again.stderr,
    /^code-commit: nothing to undo: the most recent run that changed files \(committing code, started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\) was undone already \(on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\); a run is undone once$/m,
  );
  assert.deepEqual(await tree(project.root), before);
});

Deno.test("--undo restores nothing when a path the run changed was edited by hand since, names it, and restores anyway with --force", async () => {
  const { project, before } = await afterRun();
  await using _project = project;
  await project.write("src/status.txt", "ok, and my own edit\n");
  await Deno.remove(join(project.root, "src/also.txt"));
  const edited = await tree(project.root);

  const refused = await undo(project);
  assert.equal(refused.code, EXIT.setup);
  assert.match(
    refused.stderr,
    /^code-commit: nothing was restored: 2 paths the run changed have changed since: src\/also\.txt \(removed\), src\/status\.txt \(edited\)\. Save what you want to keep, then run code-commit --undo --force to restore them anyway \(what changed since is lost\)$/m,
  );
  assert.deepEqual(await tree(project.root), edited, "all or nothing: nothing was restored");

  const forced = await undo(project, "--force");
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(
    forced.stderr,
    /warning: src\/status\.txt was edited since the run; restored anyway \(--force\)/,
  );
  assert.deepEqual(await tree(project.root), before);
});

Deno.test("--undo from a subfolder says where to run and restores nothing; from the root it undoes", async () => {
  const { project, before } = await afterRun();
  await using _project = project;
  const after = await tree(project.root);
  for (const sub of ["src", "src/new/deep"]) {
    const run = await runTool(join(project.root, sub), ["--undo"]);
    assert.equal(run.code, EXIT.setup, sub);
    assert.match(
      run.stderr,
      new RegExp(
        `^code-commit: ${project.root}/${sub} is inside the git repository ` +
          `${project.root}, not at its root: run code-commit from ${project.root}$`,
        "m",
      ),
      sub,
    );
    assert.deepEqual(await tree(project.root), after, sub);
  }
  const undone = await undo(project);
  assert.equal(undone.code, 0, undone.stderr);
  assert.deepEqual(await tree(project.root), before);
});

Deno.test("--undo with no run recorded says there is nothing to undo (exit 3)", async () => {
  await using project = await makeProject();
  const run = await undo(project);
  assert.equal(run.code, EXIT.setup);
  assert.match(
    run.stderr,
    /^code-commit: nothing to undo: no run of code-commit has changed files in this project/m,
  );
  assert.equal(run.stdout, "");
});

Deno.test("--undo takes back the most recent run only: the one before it is forgotten", async () => {
  const { project } = await afterRun();
  await using _project = project;
  await git(project.root, "add", "-A");
  await git(project.root, "commit", "-q", "-m", "the first run");
  const middle = await tree(project.root);
  const server = await startFakeLlmServer([geminiReply("^^^src/third.txt\nthird\n^^^end\n")]);
  try {
    const second = await runTool(project.root, [], { server });
    assert.equal(second.code, 0, second.stderr);
  } finally {
    await server.close();
  }
  const undone = await undo(project);
  assert.equal(undone.code, 0, undone.stderr);
  assert.deepEqual(await tree(project.root), middle);
  assert.match(undone.stdout, /1 file \(1 removed\)/);
});
