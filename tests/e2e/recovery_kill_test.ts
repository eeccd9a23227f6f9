/**
 * Recovery and `--undo` are themselves crash-safe, for real: the real tool
 * is killed (SIGKILL, or sent SIGTERM or SIGINT) at random moments while it rolls back an interrupted
 * apply of many files, or while `--undo` takes back a run of many files in
 * new folders, several times in a row. After the next start that is not
 * killed, the project is exactly the tree before the apply (or before the
 * run): no temporary file, no folder the run made, and what that start
 * says is true.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { makeProject, type Project } from "../support/project.ts";
import { runTool, type ToolRun } from "../support/run_tool.ts";

const REPLACED = 200;
const CREATED = 600;
const KILLS = 4;
const TRIALS = 3;
/**
 * The signal of a trial's kill: the first kill of the trials sends SIGKILL,
 * SIGTERM and SIGINT (Ctrl-C) in turn (the run traps the last two and
 * finishes what it does: nothing is left for the kills after it); the
 * others SIGKILL.
 */
function signalOf(trial: number, kill: number): Deno.Signal {
  const signals: readonly Deno.Signal[] = ["SIGKILL", "SIGTERM", "SIGINT"];
  return kill === 1 ? signals[(trial - 1) % signals.length] : "SIGKILL";
}

function startFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < REPLACED; i++) files[`src/old/m${i % 10}/f${i}.ts`] = `old ${i}\n`.repeat(20);
  return files;
}

function replyText(): string {
  const line = "export const value = 'abcdefghijklmnopqrstuvwxyz0123456789';\n";
  const parts: string[] = [];
  for (let i = 0; i < REPLACED; i++) {
    parts.push(`^^^src/old/m${i % 10}/f${i}.ts\n${line.repeat(30)}^^^end\n`);
  }
  for (let i = 0; i < CREATED; i++) {
    parts.push(`^^^src/new/p${i % 40}/q${i % 3}/f${i}.ts\n${line.repeat(30)}^^^end\n`);
  }
  return parts.join("");
}

/** Every entry but `.git/`, `logs/` and `agent-config/`: path → content, or "/" for a folder. */
async function tree(root: string): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  const visit = async (folder: string) => {
    for await (const entry of Deno.readDir(join(root, folder))) {
      const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (path === ".git" || path === "logs" || path === "agent-config") continue;
      if (entry.isDirectory) {
        result.set(path, "/");
        await visit(path);
      } else {
        result.set(path, await Deno.readTextFile(join(root, path)));
      }
    }
  };
  await visit("");
  return result;
}

/** Paths of `after` that differ from `expected`, the first few. */
function differences(after: Map<string, string>, expected: Map<string, string>): string[] {
  const paths = new Set([...after.keys(), ...expected.keys()]);
  return [...paths].filter((path) => after.get(path) !== expected.get(path)).slice(0, 6);
}

/** A small deterministic generator, so a failing trial can be told and repeated. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Runs the tool; once `when()` holds (looked at every millisecond), kills
 * it `delayMs` later (unless it ended first). Returns the run and whether
 * `when()` held.
 */
async function runKilled(
  root: string,
  args: string[],
  when: () => boolean,
  delayMs: number,
  reply = "Nothing to change.\n",
  signal: Deno.Signal = "SIGKILL",
): Promise<ToolRun & { aimed: boolean }> {
  const server = await startFakeLlmServer([geminiReply(reply)]);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ended = false;
  let aimed = false;
  try {
    const run = await runTool(root, args, {
      server,
      onSpawn: (child) => {
        const look = () => {
          if (ended) return;
          if (!when()) {
            timer = setTimeout(look, 1);
            return;
          }
          aimed = true;
          timer = setTimeout(() => {
            try {
              child.kill(signal);
            } catch {
              // it ended first
            }
          }, delayMs);
        };
        look();
      },
    });
    return { ...run, aimed };
  } finally {
    ended = true;
    clearTimeout(timer);
    await server.close();
  }
}

/** A run not killed. */
function runWhole(root: string, args: string[]): Promise<ToolRun> {
  return runKilled(root, args, () => false, 0);
}

/** Names in `folder` (none when it is gone). */
function names(folder: string): string[] {
  try {
    return [...Deno.readDirSync(folder)].map((entry) => entry.name);
  } catch {
    return [];
  }
}

/** Whether a temporary file not in `before` is in `folder` now: a rollback is writing there. */
function newTemporary(folder: string, before: readonly string[]): () => boolean {
  return () =>
    names(folder).some((name) => name.includes(".code-commit-") && !before.includes(name));
}

/**
 * Applies the reply and kills the run once it has renamed its first new
 * file into place (every replaced file is written by then, as the reply
 * lists them first): inside the apply, with much to roll back. Returns
 * whether the kill landed inside the apply.
 */
async function killedInsideApply(project: Project): Promise<boolean> {
  const first = join(project.root, "src/new/p0/q0/f0.ts");
  const run = await runKilled(
    project.root,
    [],
    () => {
      try {
        Deno.lstatSync(first);
        return true;
      } catch {
        return false;
      }
    },
    0,
    replyText(),
  );
  const journal = names(join(project.root, "agent-config/journal"));
  return run.aimed && journal.includes("apply-1.record") && !journal.includes("apply-1.done");
}

Deno.test("recovery killed at random moments (SIGKILL, SIGTERM, SIGINT), again and again: the next start finishes it, with no temporary file or folder left, and says so truly", async () => {
  const seed = Number(Deno.env.get("CRASH_SEED") ?? Date.now() % 100_000);
  const next = random(seed);
  let aimed = 0;
  let missed = 0;
  for (let trial = 1; trial <= TRIALS; trial++) {
    await using project = await makeProject({ files: startFiles() });
    const old = await tree(project.root);
    if (!await killedInsideApply(project)) {
      missed++;
      continue;
    }
    const watched = join(project.root, "src/old/m0");
    for (let kill = 1; kill <= KILLS; kill++) {
      // Killed while the rollback writes: a few milliseconds after its first temporary file
      // (the first two kills early, so that they land even on a busy machine; later ones anywhere).
      const when = newTemporary(watched, names(watched));
      const run = await runKilled(
        project.root,
        ["--dry-run"],
        when,
        (kill <= 2 ? 5 : 40) * next(),
        undefined,
        signalOf(trial, kill),
      );
      if (run.aimed) aimed++;
    }
    const context = `trial ${trial} (seed ${seed})`;
    const last = await runWhole(project.root, ["--dry-run"]);
    assert.equal(last.code, 0, `${context}: ${last.stderr}`);
    const after = await tree(project.root);
    assert.deepEqual(
      [...after.keys()].filter((path) => path.includes(".code-commit-")),
      [],
      `${context}: a temporary file was left`,
    );
    assert.deepEqual(differences(after, old), [], `${context}: the tree is not the old one`);
    assert.doesNotMatch(last.stderr, /could not/, context);
  }
  console.log(`${aimed} kills landed while a rollback wrote; ${missed} applies missed`);
  // The first of each trial at least, and the second of the first (after a SIGKILL).
  assert.ok(aimed >= TRIALS + 1, `only ${aimed} kills landed while a rollback wrote`);
});

Deno.test("--undo killed at random moments (SIGKILL, SIGTERM, SIGINT), again and again: the next start finishes it, with no temporary file or empty folder left", async () => {
  const seed = Number(Deno.env.get("CRASH_SEED") ?? Date.now() % 100_000);
  const next = random(seed + 1);
  let aimed = 0;
  for (let trial = 1; trial <= TRIALS; trial++) {
    await using project = await makeProject({ files: startFiles() });
    const old = await tree(project.root);
    const server = await startFakeLlmServer([geminiReply(replyText())]);
    try {
      const run = await runTool(project.root, [], { server });
      assert.equal(run.code, 0, run.stderr);
    } finally {
      await server.close();
    }
    const journal = join(project.root, "agent-config/journal");
    const watched = join(project.root, "src/old/m0");
    for (let kill = 1; kill <= KILLS; kill++) {
      // Killed right after the undo's apply completed (while it removes the run's folders),
      // or while it (or a rollback of it) writes.
      const marks = names(journal).filter((name) => name.endsWith(".done"));
      const when = kill % 2 === 0
        ? () => names(journal).some((name) => name.endsWith(".done") && !marks.includes(name))
        : newTemporary(watched, names(watched));
      const run = await runKilled(
        project.root,
        ["--undo"],
        when,
        10 * next(),
        undefined,
        signalOf(trial, kill),
      );
      if (run.aimed) aimed++;
    }
    const context = `trial ${trial} (seed ${seed})`;
    const last = await runWhole(project.root, ["--undo"]);
    const after = await tree(project.root);
    assert.deepEqual(
      [...after.keys()].filter((path) => path.includes(".code-commit-")),
      [],
      `${context}: a temporary file was left`,
    );
    assert.deepEqual(differences(after, old), [], `${context}: ${last.stderr}`);
    if (last.code !== 0) {
      // Only when an earlier --undo completed: then it says so.
      assert.match(last.stderr, /was undone already/, `${context}: ${last.stderr}`);
    }
  }
  console.log(`${aimed} kills were aimed inside an undo`);
  // The first of each trial at least, and the second of the first (after a SIGKILL): once an
  // undo went through, the next starts have nothing left to undo.
  assert.ok(aimed >= TRIALS + 1, `only ${aimed} kills were aimed inside an undo`);
});
