/**
 * The undo record of the last run that changed files survives every run
 * that changes none, for real: run A (`--force`) replaces the user's
 * uncommitted file; run B's reply cannot be applied (a file it must write
 * is immutable), or B is killed while it applies; `--undo` then still takes
 * run A back, and the user's text comes back.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { IN_CI } from "../support/ci.ts";
import { makeProject, type Project, STATUS_BUILD } from "../support/project.ts";
import { runTool, type ToolRun } from "../support/run_tool.ts";

const MINE = "my uncommitted notes\n";

/** Whether `chattr +i` works here (root on a file system that has the flag). */
async function chattr(flag: "+i" | "-i", path: string): Promise<boolean> {
  const output = await new Deno.Command("chattr", { args: [flag, path], stderr: "null" }).output()
    .catch(() => undefined);
  return output?.success === true;
}

/** A project where run A replaced the uncommitted `src/notes.txt` (with `--force`). */
async function afterRunA(): Promise<Project> {
  const project = await makeProject({
    buildScript: STATUS_BUILD,
    files: { "src/status.txt": "ok\n", "src/notes.txt": "committed notes\n", "src/b.txt": "b\n" },
  });
  await project.write("src/notes.txt", MINE); // uncommitted
  const server = await startFakeLlmServer([
    geminiReply("^^^src/notes.txt\nthe model's notes\n^^^end\n"),
  ]);
  try {
    const run = await runTool(project.root, ["--force"], { server });
    assert.equal(run.code, 0, run.stderr);
  } finally {
    await server.close();
  }
  assert.equal(await Deno.readTextFile(join(project.root, "src/notes.txt")), "the model's notes\n");
  return project;
}

/** The runs that the journal's files whose name ends with `suffix` belong to (none when it is gone). */
function runsOf(journal: string, suffix: string): string[] {
  const runs: string[] = [];
  try {
    for (const entry of Deno.readDirSync(journal)) {
      if (!entry.name.endsWith(suffix)) continue;
      const text = Deno.readTextFileSync(join(journal, entry.name));
      runs.push(/"(?:run|id)":"([^"]+)"/.exec(text)?.[1] ?? "?");
    }
  } catch {
    // gone, or being replaced
  }
  return runs;
}

/** `--undo --force` (the tree is dirty: B's attempts may have left nothing, but A's change is uncommitted). */
function undo(project: Project): Promise<ToolRun> {
  return runTool(project.root, ["--undo"]);
}

Deno.test("a run whose reply cannot be applied (an immutable file) leaves the previous run undoable: --undo brings the user's text back", async () => {
  await using project = await afterRunA();
  const locked = join(project.root, "src/b.txt");
  if (!await chattr("+i", locked)) {
    if (IN_CI) throw new Error("chattr +i is unusable in CI");
    console.log(
      "skipped: chattr +i is unusable here (not root, or no such flag on this file system)",
    );
    return;
  }
  try {
    const reply = "^^^src/c.txt\nnew\n^^^end\n^^^src/b.txt\nchanged\n^^^end\n";
    const server = await startFakeLlmServer([1, 2, 3, 4].map(() => geminiReply(reply)));
    try {
      const run = await runTool(project.root, ["--force"], { server });
      assert.notEqual(run.code, 0, run.stderr);
      assert.match(run.stderr, /src\/b\.txt/);
    } finally {
      await server.close();
    }
  } finally {
    await chattr("-i", locked);
  }
  assert.equal(await project.exists("src/c.txt"), false, "B's apply was rolled back");
  const undone = await undo(project);
  assert.equal(undone.code, 0, undone.stderr);
  assert.match(undone.stdout, /undo: took back the committing code run/);
  assert.equal(await Deno.readTextFile(join(project.root, "src/notes.txt")), MINE);
});

Deno.test("a run killed inside its first apply leaves the previous run undoable: the next start rolls it back, --undo brings the user's text back", async () => {
  await using project = await afterRunA();
  const files: string[] = [];
  for (let i = 0; i < 400; i++) files.push(`^^^src/many/f${i}.txt\n${"x".repeat(2000)}\n^^^end\n`);
  const server = await startFakeLlmServer([geminiReply(files.join(""))]);
  const journal = join(project.root, "agent-config/journal");
  const [runA] = runsOf(journal, "run.json");
  assert.ok(runA !== undefined);
  let killed = false;
  try {
    await runTool(project.root, ["--force"], {
      server,
      onStderr: (text, child) => {
        if (killed || !text.includes(" answered in ")) return;
        // Killed the moment B's record is on disk: inside its apply.
        const look = () => {
          if (!runsOf(journal, ".record").some((run) => run !== runA && run !== "?")) {
            setTimeout(look, 1);
            return;
          }
          killed = true;
          try {
            child.kill("SIGKILL");
          } catch {
            // it ended first
          }
        };
        look();
      },
    });
  } finally {
    await server.close();
  }
  assert.ok(killed, "the run was killed");
  const marks = runsOf(journal, ".done").filter((run) => run !== runA);
  assert.deepEqual(marks, [], "the kill landed after B's apply");
  const undone = await undo(project);
  assert.equal(undone.code, 0, undone.stderr);
  assert.match(undone.stderr, /recovered from an interrupted apply/);
  assert.match(undone.stdout, /undo: took back the committing code run/);
  assert.equal(await Deno.readTextFile(join(project.root, "src/notes.txt")), MINE);
  assert.equal(await project.exists("src/many"), false);
});
