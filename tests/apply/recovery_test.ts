/**
 * Crash recovery on real folders, at every step: an apply is stopped dead
 * (its file system call never returns, as if the process had been killed
 * there) at each mutating call in turn, and recovery then puts the project
 * back exactly as it was. The real SIGKILL of the real tool is
 * `tests/e2e/crash_recovery_test.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type ApplyFileSystem,
  type ApplyOperation,
  applyOperations,
  denoFileSystem,
} from "../../lib/apply/apply.ts";
import { readJournal, RunJournal } from "../../lib/apply/journal.ts";
import { recoverFirst } from "../../lib/apply/recovery.ts";

/** Runs recovery; returns the line it said, if any. */
async function recoverInterruptedApply(root: string): Promise<{ line: string | undefined }> {
  let line: string | undefined;
  await recoverFirst(root, (said) => (line = said));
  return { line };
}
import { type Files, withProject } from "../support/project.ts";

/** Every entry under `root` but `agent-config/` (the journal): path → mode and content, or a folder. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const visit = async (folder: string) => {
    for await (const entry of Deno.readDir(join(root, folder))) {
      const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (path === "agent-config") continue;
      const info = await Deno.lstat(join(root, path));
      if (info.isDirectory) {
        result[path] = "<folder>";
        await visit(path);
      } else {
        result[path] = `${((info.mode ?? 0) & 0o7777).toString(8)} ${await Deno.readTextFile(
          join(root, path),
        )}`;
      }
    }
  };
  await visit("");
  return Object.fromEntries(Object.entries(result).sort(([a], [b]) => (a < b ? -1 : 1)));
}

const PROJECT: Files = {
  "src/main.ts": { content: "main\n" },
  "src/tool.sh": { content: "#!/bin/sh\n", mode: 0o755 },
  "src/old.ts": { content: "old\n", mode: 0o600 },
  "docs/guide.md": { content: "guide\n" },
};

const REPLY: ApplyOperation[] = [
  { kind: "write", path: "src/features/auth/login.ts", content: "login\n" },
  { kind: "write", path: "src/tool.sh", content: "#!/bin/sh\necho changed\n" },
  { kind: "delete", path: "src/old.ts" },
  { kind: "write", path: "new/deep/file.txt", content: "deep\n" },
  { kind: "write", path: "src/main.ts", content: "changed\n" },
  { kind: "write", path: "src/main.ts", content: "changed twice\n" },
];

/** Where the journal lives, as the README says. */
const JOURNAL = "agent-config/journal";

const MUTATING = new Set(["writeNewFile", "rename", "remove", "mkdir"]);

/**
 * The real file system, except that from mutating call `k` on, no call
 * returns (a process killed there: nothing after it happens); `dead`
 * resolves once that call is reached.
 */
function dyingAt(k: number): { fs: ApplyFileSystem; calls: () => number; dead: Promise<void> } {
  let count = 0;
  let died = () => {};
  const dead = new Promise<void>((resolve) => (died = resolve));
  const fs = { ...denoFileSystem } as Record<string, unknown>;
  for (const method of MUTATING) {
    const real = (denoFileSystem as unknown as Record<
      string,
      (...args: unknown[]) => Promise<unknown>
    >)[method];
    fs[method] = (...args: unknown[]) => {
      count++;
      if (k > 0 && count >= k) {
        died();
        return new Promise(() => {});
      }
      return real(...args);
    };
  }
  return { fs: fs as unknown as ApplyFileSystem, calls: () => count, dead };
}

Deno.test("an apply stopped dead at any mutating call is rolled back by recovery, exactly", async () => {
  const total = await withProject(PROJECT, async (root) => {
    const { fs, calls } = dyingAt(0);
    await applyOperations(root, REPLY, { fs, journal: new RunJournal(root, { workflow: "t" }) });
    return calls();
  });
  assert.ok(total >= 10, `only ${total} mutating calls`);
  for (let k = 1; k <= total; k++) {
    await withProject(PROJECT, async (root) => {
      const before = await snapshot(root);
      const { fs, dead } = dyingAt(k);
      const journal = new RunJournal(root, { workflow: "committing code" });
      // One write at a time, so that "killed at call k" means every call before it is done.
      void applyOperations(root, REPLY, { fs, journal, parallelism: 1 }); // never settles
      await dead;
      const recovery = await recoverInterruptedApply(root);
      assert.deepEqual(await snapshot(root), before, `stopped at mutating call ${k}`);
      assert.match(
        recovery.line ?? "",
        /^recovered from an interrupted apply of the committing code run/,
      );
      // Nothing left to recover, and recovering again changes nothing.
      assert.equal((await recoverInterruptedApply(root)).line, undefined);
      assert.deepEqual(await snapshot(root), before);
    });
  }
});

Deno.test("an apply killed after its last rename but before its completion mark is rolled back whole", async () => {
  await withProject(PROJECT, async (root) => {
    const before = await snapshot(root);
    const journal = new RunJournal(root, { workflow: "committing code" });
    const begin = journal.begin.bind(journal);
    journal.begin = async () => {
      const recorder = await begin();
      return {
        add: (path, image) => recorder.add(path, image),
        commit: (plan) => recorder.commit(plan),
        preImage: (path) => recorder.preImage(path),
        complete: () => new Promise<void>(() => {}), // killed before the mark
        discard: () => recorder.discard(),
      };
    };
    void applyOperations(root, REPLY, { journal });
    for (let i = 0; i < 500; i++) {
      const main = await Deno.readTextFile(join(root, "src/main.ts")).catch(() => "");
      if (main === "changed twice\n") break;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    assert.notDeepEqual(await snapshot(root), before, "the apply went through");
    await recoverInterruptedApply(root);
    assert.deepEqual(await snapshot(root), before);
  });
});

Deno.test("recovery keeps the run's completed applies (it can still be undone) and tidies what a crash left", async () => {
  await withProject(PROJECT, async (root) => {
    const journal = new RunJournal(root, { workflow: "committing code" });
    await applyOperations(root, [REPLY[0]], { journal });
    await Deno.writeTextFile(join(root, JOURNAL, "apply-2.record.tmp"), "half");
    await Deno.writeTextFile(join(root, JOURNAL, "apply-9.first"), "no record");
    const recovery = await recoverInterruptedApply(root);
    assert.equal(recovery.line, undefined);
    assert.deepEqual(
      [...Deno.readDirSync(join(root, JOURNAL))].map((entry) => entry.name).sort(),
      ["apply-1.done", "apply-1.record", "run.json"],
    );
    assert.equal((await readJournal(root)).applies.length, 1);
  });
});
