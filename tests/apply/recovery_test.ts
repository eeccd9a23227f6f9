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
import { contentHash } from "../../lib/apply/content_hash.ts";
import { RunJournal } from "../../lib/apply/journal.ts";
import { JournalError, readJournal } from "../../lib/apply/journal_store.ts";
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

/** Where the journal lives, as docs/undo-and-recovery.md says. */
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

Deno.test("the record says, before the first write, what the apply means to leave at each path (mode, size, hash)", async () => {
  await withProject(PROJECT, async (root) => {
    const { fs, dead } = dyingAt(1);
    void applyOperations(root, REPLY, {
      fs,
      journal: new RunJournal(root, { workflow: "committing code" }),
      parallelism: 1,
    });
    await dead; // the first mutating call: nothing written to the project yet
    const mainMode = ((await Deno.lstat(join(root, "src/main.ts"))).mode ?? 0) & 0o7777;
    const [apply] = (await readJournal(root)).applies;
    const state = (content: string, mode: number | null) => {
      const data = new TextEncoder().encode(content);
      return { mode, size: data.length, hash: contentHash(data) };
    };
    assert.deepEqual(
      Object.fromEntries(apply.record.entries.map((entry) => [entry.path, entry.intended])),
      {
        "src/features/auth/login.ts": [state("login\n", null)],
        "src/tool.sh": [state("#!/bin/sh\necho changed\n", 0o755)],
        "src/old.ts": [null],
        "new/deep/file.txt": [state("deep\n", null)],
        "src/main.ts": [state("changed\n", mainMode), state("changed twice\n", mainMode)],
      },
    );
  });
});

/** Hand edits made after a crash, one of each kind, to paths the apply touched. */
async function editAfterCrash(root: string): Promise<void> {
  await Deno.writeTextFile(join(root, "src/main.ts"), "my own edit\n"); // replaced by the apply
  await Deno.writeTextFile(join(root, "src/old.ts"), "mine now\n"); // deleted by the apply
  await Deno.remove(join(root, "src/tool.sh")); // replaced by the apply
}

Deno.test("recovery never replaces an edit made after the crash: it restores nothing, names the paths, and --undo --force (force) restores them", async () => {
  for (const k of [1, 4, 8]) {
    await withProject(PROJECT, async (root) => {
      const before = await snapshot(root);
      const { fs, dead } = dyingAt(k);
      const journal = new RunJournal(root, { workflow: "committing code" });
      void applyOperations(root, REPLY, { fs, journal, parallelism: 1 });
      await dead;
      await editAfterCrash(root);
      const edited = await snapshot(root);
      await assert.rejects(
        () => recoverInterruptedApply(root),
        (error: Error) => {
          assert.ok(error instanceof JournalError, String(error));
          assert.match(
            error.message,
            /^an interrupted apply of the committing code run started .* left 3 paths that have changed since: src\/tool\.sh \(removed\), src\/old\.ts \(edited\), src\/main\.ts \(edited\); nothing was restored\. .*code-commit --undo --force .*remove agent-config\/journal\/ to keep the project as it is/,
          );
          assert.doesNotMatch(error.message, /\n/);
          return true;
        },
        `stopped at mutating call ${k}`,
      );
      assert.deepEqual(await snapshot(root), edited, `stopped at ${k}: something was restored`);
      // Still there for the next try; forced, the apply is rolled back over the edits.
      assert.equal((await readJournal(root)).applies.length, 1);
      let line: string | undefined;
      assert.equal(await recoverFirst(root, (said) => (line = said), { force: true }), true);
      assert.match(
        line ?? "",
        /3 of them over changes made since \(--force\): src\/tool\.sh \(removed\), src\/old\.ts \(edited\), src\/main\.ts \(edited\), so the project is exactly as it was before that apply$/,
      );
      assert.deepEqual(await snapshot(root), before);
    });
  }
});

Deno.test("recovery goes on over edits to paths the apply did not touch, and over every state the apply itself could have left", async () => {
  await withProject(PROJECT, async (root) => {
    const before = await snapshot(root);
    const { fs, dead } = dyingAt(9); // some renames made, some not
    void applyOperations(root, REPLY, {
      fs,
      journal: new RunJournal(root, { workflow: "committing code" }),
      parallelism: 1,
    });
    await dead;
    // The apply wrote main.ts twice: its first content is a state the apply could have left too.
    await Deno.writeTextFile(join(root, "src/main.ts"), "changed\n");
    await Deno.writeTextFile(join(root, "docs/guide.md"), "my own guide\n"); // not the apply's
    const recovery = await recoverInterruptedApply(root);
    assert.match(recovery.line ?? "", /^recovered from an interrupted apply/);
    assert.deepEqual(await snapshot(root), {
      ...before,
      "docs/guide.md": before["docs/guide.md"].replace("guide\n", "my own guide\n"),
    });
  });
});

Deno.test("recovery tells a file made since, a folder, a permission change and a larger file from the apply's own states", async () => {
  await withProject(PROJECT, async (root) => {
    const { fs, dead } = dyingAt(1); // nothing written yet: every path holds its pre-image
    void applyOperations(root, REPLY, {
      fs,
      journal: new RunJournal(root, { workflow: "committing code" }),
      parallelism: 1,
    });
    await dead;
    await Deno.chmod(join(root, "src/old.ts"), 0o644);
    await Deno.mkdir(join(root, "new/deep/file.txt"), { recursive: true });
    await Deno.writeTextFile(join(root, "src/main.ts"), "x".repeat(100_000));
    const edited = await snapshot(root);
    await assert.rejects(
      () => recoverInterruptedApply(root),
      /changed since: src\/old\.ts \(permissions changed\), new\/deep\/file\.txt \(no longer a regular file\), src\/main\.ts \(edited\); nothing was restored/,
    );
    assert.deepEqual(await snapshot(root), edited);
  });
  await withProject(PROJECT, async (root) => {
    const { fs, dead } = dyingAt(1);
    void applyOperations(root, [{ kind: "delete", path: "src/old.ts" }], {
      fs,
      journal: new RunJournal(root, { workflow: "committing code" }),
    });
    await dead;
    await Deno.remove(join(root, "src/old.ts")); // what the apply meant: fine
    await Deno.writeTextFile(join(root, "src/features.ts"), "untouched by the apply\n");
    assert.match((await recoverInterruptedApply(root)).line ?? "", /rolled back 1 path/);
    assert.equal(await Deno.readTextFile(join(root, "src/old.ts")), "old\n");
  });
});

/** Rewrites every apply record as an older code-commit wrote it: without `intended`. */
async function asOlderRecords(root: string): Promise<void> {
  for await (const entry of Deno.readDir(join(root, JOURNAL))) {
    if (!entry.name.endsWith(".record")) continue;
    const path = join(root, JOURNAL, entry.name);
    const record = JSON.parse(await Deno.readTextFile(path));
    for (const item of record.entries) {
      assert.ok("intended" in item);
      delete item.intended;
    }
    await Deno.writeTextFile(path, `${JSON.stringify(record)}\n`);
  }
}

Deno.test("a record of an older code-commit (no intended states) is recovered when nothing was written yet, and refused safely once the apply wrote: only --undo --force rolls it back", async () => {
  const total = await withProject(PROJECT, async (root) => {
    const { fs, calls } = dyingAt(0);
    await applyOperations(root, REPLY, { fs, journal: new RunJournal(root, { workflow: "t" }) });
    return calls();
  });
  await withProject(PROJECT, async (root) => {
    const before = await snapshot(root);
    const { fs, dead } = dyingAt(1);
    const journal = new RunJournal(root, { workflow: "committing code" });
    void applyOperations(root, REPLY, { fs, journal, parallelism: 1 });
    await dead;
    await asOlderRecords(root);
    assert.match((await recoverInterruptedApply(root)).line ?? "", /^recovered from/);
    assert.deepEqual(await snapshot(root), before);
    assert.equal((await readJournal(root)).applies.length, 0);
  });
  await withProject(PROJECT, async (root) => {
    const before = await snapshot(root);
    const { fs, dead } = dyingAt(total); // its last call: every rename but the last made
    const journal = new RunJournal(root, { workflow: "committing code" });
    void applyOperations(root, REPLY, { fs, journal, parallelism: 1 });
    await dead;
    await asOlderRecords(root);
    const left = await snapshot(root);
    assert.notEqual(
      left["src/main.ts"],
      before["src/main.ts"],
      "the apply wrote nothing before it died",
    );
    await assert.rejects(
      () => recoverInterruptedApply(root),
      (error: Error) => {
        assert.ok(error instanceof JournalError, String(error));
        assert.match(
          error.message,
          /changed since: .*\(its record, written by an older code-commit, does not say what the apply meant to write, so any change from before it counts\); nothing was restored\. .*code-commit --undo --force/,
        );
        return true;
      },
    );
    assert.deepEqual(await snapshot(root), left);
    assert.equal(await recoverFirst(root, () => {}, { force: true }), true);
    assert.deepEqual(await snapshot(root), before);
  });
});
