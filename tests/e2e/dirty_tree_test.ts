/**
 * The dirty-tree check, end to end in real git repositories: committing
 * code and the auto workflow refuse, before any LLM call, to run on
 * uncommitted changes a reply could write (naming up to ten and `--force`);
 * protected and ignored paths do not count; `--force` runs anyway; outside
 * a repository, one warning and the run goes on.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { git, makeProject, type Project } from "../support/project.ts";
import { runTool, type ToolRun } from "../support/run_tool.ts";

const FIX = "^^^src/status.txt\nok\n^^^end\n";

/** Runs the tool in `project` with one scripted reply; returns the run and how many calls it made. */
async function run(project: Project, args: string[] = []): Promise<ToolRun & { calls: number }> {
  const server = await startFakeLlmServer([geminiReply(FIX)]);
  try {
    const result = await runTool(project.root, args, { server });
    return { ...result, calls: server.requests.length };
  } finally {
    await server.close();
  }
}

function project(): Promise<Project> {
  return makeProject({
    files: {
      "src/status.txt": "broken\n",
      "src/a.ts": "a\n",
      "src/b.ts": "b\n",
      "src/c.ts": "c\n",
    },
  });
}

Deno.test("committing code refuses uncommitted changes before any LLM call, naming them and --force", async () => {
  await using p = await project();
  await p.write("src/a.ts", "my own edit\n"); // modified
  await Deno.remove(join(p.root, "src/b.ts")); // deleted
  await p.write("notes/todo.txt", "mine\n"); // untracked
  await p.write("src/staged.ts", "staged\n");
  await git(p.root, "add", "src/staged.ts"); // added
  await git(p.root, "mv", "src/c.ts", "src/renamed.ts"); // renamed
  const result = await run(p);
  assert.equal(result.code, 3);
  assert.equal(result.calls, 0, "no LLM call");
  assert.match(
    result.stderr,
    /^code-commit: the project has uncommitted changes in 6 paths a reply could write: .*run with --force to go on anyway$/m,
  );
  for (
    const named of [
      "src/a.ts (modified)",
      "src/b.ts (deleted)",
      "notes/todo.txt (untracked)",
      "src/staged.ts (added)",
      "src/c.ts (deleted)",
      "src/renamed.ts (added)",
    ]
  ) {
    assert.ok(result.stderr.includes(named), `${named} in ${result.stderr}`);
  }
  assert.equal(await p.read("src/a.ts"), "my own edit\n");
  assert.deepEqual(await p.logRuns(), [], "refused before the run's log folder was made");
});

Deno.test("the refusal names ten paths and counts the rest", async () => {
  await using p = await project();
  for (let i = 0; i < 13; i++) await p.write(`new/file${String(i).padStart(2, "0")}.txt`, "x\n");
  const result = await run(p);
  assert.equal(result.code, 3);
  assert.match(
    result.stderr,
    /uncommitted changes in 13 paths .*new\/file09\.txt \(untracked\), and 3 more\. /,
  );
  assert.ok(!result.stderr.includes("new/file10.txt"));
});

Deno.test("protected and ignored paths do not count: the run goes on", async () => {
  await using p = await makeProject({
    gitignore: "/agent-config\n/logs\nnode_modules/\n*.log\n",
    files: { "src/status.txt": "broken\n" },
  });
  await p.write("agent-config/notes.txt", "ignored folder\n");
  await p.write("logs/old/x.txt", "old logs\n");
  await p.write("node_modules/pkg/index.js", "ignored\n");
  await p.write("debug.log", "ignored by a pattern\n");
  await p.write("agent-state/specifications/x", "protected, not ignored\n");
  await p.write("build.sh", "#!/bin/sh\necho edited by hand\nexit 0\n"); // protected
  await Deno.chmod(join(p.root, "build.sh"), 0o755);
  await p.write("src/sub/.gitignore", "*.tmp\n"); // protected (a .gitignore anywhere)
  const result = await run(p);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.calls, 1);
  assert.equal(await p.read("src/status.txt"), "ok\n");
});

Deno.test("--force runs on uncommitted changes, and leaves them be", async () => {
  await using p = await project();
  await p.write("src/a.ts", "my own edit\n");
  const result = await run(p, ["--force"]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(await p.read("src/a.ts"), "my own edit\n");
  assert.equal(await p.read("src/status.txt"), "ok\n");
});

Deno.test("outside a git repository: one warning, and the run goes on", async () => {
  await using p = await makeProject({ git: false, files: { "src/status.txt": "broken\n" } });
  // Unconfined: without bubblewrap, --sandbox auto would add a warning of its own.
  const result = await run(p, ["--sandbox", "off"]);
  assert.equal(result.code, 0, result.stderr);
  const warnings = result.stderr.split("\n").filter((line) => line.startsWith("warning:"));
  assert.deepEqual(warnings, [
    "warning: cannot check for uncommitted changes: it is not a git repository; going on " +
    "(git status, git diff and git stash are how you keep your own work apart from a run's)",
  ]);
});

Deno.test("the auto workflow refuses uncommitted changes too, before any call", async () => {
  await using p = await makeProject({
    query: null,
    rollup: null,
    files: {
      "UserSpecification.md": "# The root\n",
      "src/ModuleDependencies.md": "# Module Dependencies\n",
    },
  });
  await p.write("src/mine.ts", "mine\n");
  const result = await run(p, ["--aw"]);
  assert.equal(result.code, 3);
  assert.equal(result.calls, 0);
  assert.match(
    result.stderr,
    /uncommitted changes in 1 path a reply could write: src\/mine\.ts \(untracked\)/,
  );
});
