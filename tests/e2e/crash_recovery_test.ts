/**
 * Crash recovery, for real: the real tool applies a large reply (1,200
 * files created in new folders, 300 replaced, 60 deleted) and is killed
 * with SIGKILL at a random moment once the reply has arrived, many times.
 * Whatever the moment, after the next start's recovery the project is
 * exactly the tree before the reply or exactly the fully applied one —
 * never anything in between.
 *
 * The kill lands inside the apply reliably: a first, unkilled run measures
 * how long the apply takes from the moment its journal record is on disk;
 * each trial watches for that record and kills a random share of that time
 * after it appears. Where each kill landed is read from
 * the journal before recovery (no record: before the apply; a record
 * without its completion mark: inside it; a mark: after it), and the test
 * requires most kills inside and reports the count.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { LAST_RUN_FILE } from "../../lib/cli/last_run.ts";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { listFiles, makeProject, type Project } from "../support/project.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import { runTool, type ToolRun } from "../support/run_tool.ts";

const REPLACED = 300;
const DELETED = 60;
const CREATED = 1_200;
const TRIALS = 10;

/** The project's own files before the reply. */
function startFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < REPLACED + DELETED; i++) {
    files[`src/old/m${i % 12}/file${i}.ts`] = `export const old${i} = ${i};\n`.repeat(20);
  }
  return files;
}

/** The reply: replaces, creates in new folders, deletes. */
function replyText(): string {
  const parts: string[] = [];
  const line = "export const value = 'abcdefghijklmnopqrstuvwxyz0123456789';\n";
  for (let i = 0; i < CREATED; i++) {
    if (i < REPLACED) parts.push(`^^^src/old/m${i % 12}/file${i}.ts\n${line.repeat(30)}^^^end\n`);
    parts.push(`^^^src/new/p${i % 30}/q${i % 7}/file${i}.ts\n${line.repeat(40)}^^^end\n`);
  }
  for (let i = REPLACED; i < REPLACED + DELETED; i++) {
    parts.push(`^^^src/old/m${i % 12}/file${i}.ts\n^^^delete\n`);
  }
  return parts.join("");
}

/** Every file and folder of the project but `.git/`, `logs/`, the journal, the lock and the last run's object: path → content (or "/" for a folder). */
async function tree(root: string): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  const visit = async (folder: string) => {
    for await (const entry of Deno.readDir(join(root, folder))) {
      const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (path === ".git" || path === "logs" || path === "agent-config/journal") continue;
      // The project lock a killed run left (each run takes it and removes it as it ends), and
      // the object of the last run that ended (runTool checks it after each run).
      if (path === "agent-config/code-commit.lock" || path === LAST_RUN_FILE) continue;
      if (entry.isDirectory) {
        result.set(path, "/");
        await visit(path);
      } else {
        result.set(path, await Deno.readTextFile(join(root, path)));
      }
    }
  };
  await visit("");
  return new Map([...result].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Where the kill landed, from the journal as the killed run left it. */
async function landed(project: Project): Promise<"before" | "inside" | "after"> {
  const dir = join(project.root, "agent-config/journal");
  const names = await listFiles(dir).catch(() => [] as string[]);
  if (!names.includes("apply-1.record")) return "before";
  return names.includes("apply-1.done") ? "after" : "inside";
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

/** Projects whose journal record is being watched for, and when it was seen. */
const watching = new Set<string>();
const recordSeen = new Map<string, number>();

/**
 * Watches (every millisecond) for the first apply's record in the journal of
 * the project at `root`; when it is there, notes the time and calls `then`.
 */
function watchRecord(root: string, then?: () => void): void {
  watching.add(root);
  const record = join(root, "agent-config/journal/apply-1.record");
  const look = () => {
    if (!watching.has(root)) return;
    try {
      Deno.lstatSync(record);
    } catch {
      setTimeout(look, 1);
      return;
    }
    recordSeen.set(root, performance.now());
    then?.();
  };
  look();
}

function sameTree(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [path, content] of a) if (b.get(path) !== content) return false;
  return true;
}

Deno.test("SIGKILL at random moments of a large apply: after the next start's recovery, the tree is exactly the old one or exactly the applied one", async () => {
  const reply = replyText();
  const seed = Number(Deno.env.get("CRASH_SEED") ?? Date.now() % 100_000);
  const next = random(seed);

  // Calibration: an unkilled run, for the applied tree and the apply's duration: from the
  // moment its journal record is on disk (the apply may write from then on) to "applied:".
  let applied: Map<string, string>;
  let applyMs = 0;
  {
    await using project = await makeProject({ files: startFiles() });
    const server = await startFakeLlmServer([geminiReply(reply)]);
    try {
      const run = await runTool(project.root, [], {
        server,
        onStderr: (text) => {
          if (text.includes(" answered in ") && !watching.has(project.root)) {
            watchRecord(project.root);
          }
          if (text.includes("\napplied: ") && applyMs === 0) {
            applyMs = performance.now() - (recordSeen.get(project.root) ?? performance.now());
          }
        },
      });
      assert.equal(run.code, 0, run.stderr);
      applied = await tree(project.root);
      assert.ok(applyMs > 0, "the apply was timed");
    } finally {
      await server.close();
    }
  }

  const counts = { before: 0, inside: 0, after: 0 };
  for (let trial = 1; trial <= TRIALS; trial++) {
    await using project = await makeProject({ files: startFiles() });
    const old = await tree(project.root);
    const share = next();
    const context = `trial ${trial} (seed ${seed}, kill ${
      (100 * share).toFixed(0)
    }% into the apply)`;
    const server = await startFakeLlmServer([geminiReply(reply)]);
    try {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let killer: Deno.ChildProcess | undefined;
      const run = await runTool(project.root, [], {
        server,
        onStderr: (text, child) => {
          killer = child;
          if (text.includes(" answered in ") && !watching.has(project.root)) {
            // Once the record is on disk, the kill comes a random share of the apply later.
            watchRecord(project.root, () => {
              timer = setTimeout(() => {
                try {
                  killer?.kill("SIGKILL");
                } catch {
                  // it ended first
                }
              }, applyMs * share);
            });
          }
          // The machine is shared and its disk's speed varies: the apply is timed again
          // whenever a run gets through it, so the next kill aims at its current length.
          const seen = recordSeen.get(project.root);
          if (seen !== undefined && text.includes("\napplied: ")) {
            applyMs = performance.now() - seen;
            recordSeen.delete(project.root);
          }
        },
      });
      clearTimeout(timer);
      watching.delete(project.root);
      const where = await landed(project);
      if (run.code === 0) assert.equal(where, "after", `${context}: it ended before the kill`);
      counts[where]++;

      // The next start: recovery comes first (a dry run writes nothing else).
      const again = await startFakeLlmServer([geminiReply("Nothing to change.\n")]);
      try {
        const next = await runTool(project.root, ["--dry-run"], { server: again });
        assert.equal(next.code, 0, `${context}: ${next.stderr}`);
        if (where === "inside") {
          assert.match(
            next.stderr,
            /^warning: recovered from an interrupted apply of the committing code run started .*: rolled back [\d,]+ paths? it had changed, so the project is exactly as it was before that apply$/m,
            context,
          );
        } else {
          assert.doesNotMatch(next.stderr, /recovered/, context);
        }
      } finally {
        await again.close();
      }
      const after = await tree(project.root);
      const expected = where === "after" ? applied : old;
      assert.ok(
        sameTree(after, expected),
        `${context}: landed ${where}; the tree is neither the old one nor the applied one ` +
          `(${
            [...after.keys()].filter((path) => after.get(path) !== expected.get(path)).slice(0, 5)
          })`,
      );
      assert.deepEqual(
        [...after.keys()].filter((path) => path.includes(".code-commit-")),
        [],
        `${context}: a temporary file was left`,
      );
    } finally {
      await server.close();
    }
  }
  console.log(
    `SIGKILL trials: ${counts.inside} of ${TRIALS} landed inside the apply ` +
      `(${counts.before} before it, ${counts.after} after it); apply ≈ ${applyMs.toFixed(0)} ms`,
  );
  assert.ok(
    counts.inside >= TRIALS * 0.7,
    `only ${counts.inside} of ${TRIALS} kills landed inside`,
  );
});

Deno.test("an edit made after a crash is never replaced by recovery: every workflow stops naming it, nothing is restored, and --undo --force rolls the apply back anyway", async () => {
  const reply = replyText();
  const edited = "src/old/m0/file0.ts"; // the reply replaces it
  const madeAgain = `src/old/m0/file${REPLACED}.ts`; // the reply deletes it
  for (let attempt = 1;; attempt++) {
    await using project = await makeProject({ files: startFiles() });
    const old = await tree(project.root);
    const server = await startFakeLlmServer([geminiReply(reply)]);
    const runs: ToolRun[] = [];
    try {
      // Killed the moment the apply's record is on disk: inside the apply.
      runs.push(
        await runTool(project.root, [], {
          server,
          onStderr: (text, child) => {
            if (text.includes(" answered in ") && !watching.has(project.root)) {
              watchRecord(project.root, () => {
                try {
                  child.kill("SIGKILL");
                } catch {
                  // it ended first
                }
              });
            }
          },
        }),
      );
      watching.delete(project.root);
      if (await landed(project) !== "inside") {
        assert.ok(attempt < 5, "five kills in a row missed the apply");
        continue;
      }
      // The user, after the crash, edits a file the apply replaced and makes one it deleted.
      await Deno.writeTextFile(join(project.root, edited), "my own edit\n");
      await Deno.writeTextFile(join(project.root, madeAgain), "mine again\n");
      const handEdited = await tree(project.root);

      const stop =
        /^code-commit: an interrupted apply of the committing code run started .* left 2 paths that have changed since: src\/old\/m0\/file0\.ts \(edited\), src\/old\/m0\/file300\.ts \(edited\); nothing was restored\. Save what you want to keep, then run code-commit --undo --force to roll that apply back anyway \(what changed since is lost; it also takes back the rest of that run\), or remove agent-config\/journal\/ to keep the project as it is \(that run can then not be undone\)$/m;
      for (const args of [["--rollup"], ["--init"], ["--dry-run"], ["--undo"]]) {
        const run = await runTool(project.root, args, { server });
        runs.push(run);
        assert.equal(run.code, 3, `${args}: ${run.stderr}`);
        assert.match(run.stderr, stop, args.join(" "));
        assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
        assert.ok(sameTree(await tree(project.root), handEdited), `${args} restored something`);
      }
      assert.equal(await landed(project), "inside", "the record is kept for the next try");

      const forced = await runTool(project.root, ["--undo", "--force"]);
      runs.push(forced);
      assert.equal(forced.code, 0, forced.stderr);
      assert.match(
        forced.stderr,
        /^warning: recovered from an interrupted apply of the committing code run started .*: rolled back [\d,]+ paths it had changed, 2 of them over changes made since \(--force\): src\/old\/m0\/file0\.ts \(edited\), src\/old\/m0\/file300\.ts \(edited\), so the project is exactly as it was before that apply$/m,
      );
      assert.match(
        forced.stdout,
        /^undo: took back the interrupted apply \(see above\); nothing else to undo: /m,
      );
      assert.ok(sameTree(await tree(project.root), old), "the tree is not the old one");
      assert.ok(await assertNoKeyLeak(project.root, runs, server) > 0);
      return;
    } finally {
      await server.close();
    }
  }
});
