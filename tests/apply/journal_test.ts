/**
 * The apply journal on real folders: written and synced before the first
 * write to the project, marked complete after, the run's pre-images kept
 * across applies and the previous run's dropped, and nothing read back
 * that code-commit did not write.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ApplyFileSystem, applyOperations, denoFileSystem } from "../../lib/apply/apply.ts";
import { RunJournal } from "../../lib/apply/journal.ts";
import { JournalError, markUndone, readJournal } from "../../lib/apply/journal_store.ts";
import { withProject } from "../support/project.ts";

/** Where the journal lives, as docs/undo-and-recovery.md says. */
const JOURNAL = "agent-config/journal";

const write = (path: string, content: string) => ({ kind: "write" as const, path, content });
const del = (path: string) => ({ kind: "delete" as const, path });

function journalNames(root: string): string[] {
  try {
    return [...Deno.readDirSync(join(root, JOURNAL))].map((entry) => entry.name).sort();
  } catch {
    return [];
  }
}

Deno.test("the journal's record is on disk before the first write to the project, and marked complete after", async () => {
  await withProject({ "src/a.ts": "a\n", "src/gone.ts": "gone\n" }, async (root) => {
    const seen: string[][] = [];
    const fs: ApplyFileSystem = {
      ...denoFileSystem,
      mkdir: async (path) => {
        seen.push(journalNames(root));
        await denoFileSystem.mkdir(path);
      },
      writeNewFile: async (path, data, mode, onCreated) => {
        seen.push(journalNames(root));
        await denoFileSystem.writeNewFile(path, data, mode, onCreated);
      },
    };
    const journal = new RunJournal(root, { workflow: "committing code" });
    await applyOperations(
      root,
      [write("src/a.ts", "A\n"), write("src/new/b.ts", "b\n"), del("src/gone.ts")],
      { fs, journal },
    );
    assert.ok(seen.length >= 3);
    for (const names of seen) {
      assert.deepEqual(names, ["apply-1.first", "apply-1.record", "run.json"]);
    }
    assert.deepEqual(journalNames(root), [
      "apply-1.done",
      "apply-1.first",
      "apply-1.record",
      "run.json",
    ]);
    const stored = await readJournal(root);
    assert.equal(stored.run?.workflow, "committing code");
    const [apply] = stored.applies;
    assert.deepEqual(apply.record.entries.map((entry) => entry.path), [
      "src/a.ts",
      "src/new/b.ts",
      "src/gone.ts",
    ]);
    assert.deepEqual(apply.record.folders, ["src/new"]);
    assert.equal(apply.record.temporaries.length, 2);
    assert.deepEqual(apply.done?.post.map((state) => [state.path, state.after?.size ?? null]), [
      ["src/a.ts", 2],
      ["src/new/b.ts", 2],
      ["src/gone.ts", null],
    ]);
    // The pre-images, back to back: a.ts and gone.ts (b.ts was not there).
    assert.equal(
      await Deno.readTextFile(join(root, JOURNAL, "apply-1.first")),
      "a\ngone\n",
    );
  });
});

Deno.test("the run keeps its first pre-image of each path across applies; a later apply's copies of paths it touched again go once it completes", async () => {
  await withProject({ "a.txt": "original\n" }, async (root) => {
    const journal = new RunJournal(root, { workflow: "committing code" });
    await applyOperations(root, [write("a.txt", "first attempt\n")], { journal });
    await applyOperations(root, [write("a.txt", "second attempt\n"), write("b.txt", "b\n")], {
      journal,
    });
    assert.deepEqual(journalNames(root), [
      "apply-1.done",
      "apply-1.first",
      "apply-1.record",
      "apply-2.done",
      "apply-2.record",
      "run.json",
    ]);
    const changes = await journal.runChanges();
    assert.equal(new TextDecoder().decode(changes.get("a.txt")!.before!.data), "original\n");
    assert.equal(changes.get("a.txt")!.after?.size, "second attempt\n".length);
    assert.equal(changes.get("a.txt")!.after?.lines, 1);
    assert.equal(changes.get("b.txt")!.before, null);
  });
});

Deno.test("the first apply of a new run drops the previous run's files", async () => {
  await withProject({ "a.txt": "a\n" }, async (root) => {
    const first = new RunJournal(root, { workflow: "committing code" });
    await applyOperations(root, [write("a.txt", "1\n")], { journal: first });
    const firstId = (await readJournal(root)).run?.id;
    const second = new RunJournal(root, { workflow: "auto workflow" });
    await applyOperations(root, [write("a.txt", "2\n")], { journal: second });
    const stored = await readJournal(root);
    assert.notEqual(stored.run?.id, firstId);
    assert.equal(stored.run?.workflow, "auto workflow");
    assert.deepEqual(
      stored.applies.map((apply) => apply.n),
      [2],
      "numbered after the previous run's",
    );
    assert.equal(
      new TextDecoder().decode((await second.runChanges()).get("a.txt")!.before!.data),
      "1\n",
      "the new run's pre-image is the tree the previous run left",
    );
  });
});

Deno.test("a reply that fails and is rolled back leaves no record of its apply", async () => {
  await withProject({ "a.txt": "a\n", "folder/x": "x\n" }, async (root) => {
    const journal = new RunJournal(root, { workflow: "committing code" });
    await assert.rejects(
      applyOperations(root, [write("a.txt", "changed\n"), write("folder", "not a file\n")], {
        journal,
      }),
    );
    assert.deepEqual(journalNames(root), ["run.json"]);
    assert.equal(journal.touched().size, 0);
  });
});

Deno.test("a journal record naming a protected path, or edited into something else, is refused, not obeyed", async () => {
  await withProject({ "a.txt": "a\n" }, async (root) => {
    const journal = new RunJournal(root, { workflow: "committing code" });
    await applyOperations(root, [write("a.txt", "changed\n")], { journal });
    const record = join(root, JOURNAL, "apply-1.record");
    const text = await Deno.readTextFile(record);
    for (
      const path of ["build.sh", "agent-config/gemini-key.txt", "../outside.txt", "/etc/passwd"]
    ) {
      await Deno.writeTextFile(record, text.replace('"a.txt"', JSON.stringify(path)));
      await assert.rejects(() => readJournal(root), JournalError, path);
    }
    await Deno.writeTextFile(record, "{ not json");
    await assert.rejects(() => readJournal(root), /is not a journal file code-commit wrote/);
  });
});

Deno.test("the run's changes count only the applies the journal still holds for the run: an --undo or a removal meanwhile is no error", async () => {
  await withProject({ "a.txt": "a\n", "b.txt": "b\n" }, async (root) => {
    const journal = new RunJournal(root, { workflow: "committing code" });
    await applyOperations(root, [write("a.txt", "changed\n")], { journal });
    // --undo from another terminal takes the run's first apply back, then the run goes on.
    const stored = await readJournal(root);
    await markUndone(stored, stored.run!);
    await applyOperations(root, [write("b.txt", "changed\n")], { journal });
    assert.deepEqual([...(await journal.runChanges()).keys()], ["b.txt"]);
    // A build that removed agent-config/: nothing is known of the run's changes any more.
    await Deno.remove(join(root, JOURNAL), { recursive: true });
    assert.deepEqual([...(await journal.runChanges()).keys()], []);
  });
  await withProject({ "a.txt": "a\n" }, async (root) => {
    const journal = new RunJournal(root, { workflow: "committing code" });
    await applyOperations(root, [write("a.txt", "changed\n")], { journal });
    // Another run started meanwhile: its packs are not this run's.
    const other = new RunJournal(root, { workflow: "committing code" });
    await applyOperations(root, [write("a.txt", "again\n")], { journal: other });
    assert.deepEqual([...(await journal.runChanges()).keys()], []);
    assert.deepEqual([...(await other.runChanges()).keys()], ["a.txt"]);
  });
});

Deno.test("an apply numbered as a stale mark left behind does not look complete: the mark goes before the record is written", async () => {
  await withProject({ "a.txt": "a\n" }, async (root) => {
    const journal = new RunJournal(root, { workflow: "committing code" });
    await applyOperations(root, [write("a.txt", "changed\n")], { journal });
    // A mark of apply 2 that a forgotten apply left behind.
    const done = await Deno.readTextFile(join(root, JOURNAL, "apply-1.done"));
    await Deno.writeTextFile(
      join(root, JOURNAL, "apply-2.done"),
      done.replace('"apply":1', '"apply":2'),
    );
    const recorder = await journal.begin();
    await recorder.add("a.txt", { data: new TextEncoder().encode("changed\n"), mode: 0o644 });
    await recorder.commit({ folders: [], temporaries: [], intended: new Map() });
    const applies = (await readJournal(root)).applies;
    assert.deepEqual(applies.map((apply) => [apply.n, apply.done !== undefined]), [[1, true], [
      2,
      false,
    ]]);
    await recorder.discard();
  });
});

Deno.test("with marks only, a completed apply is read by its headers; an apply whose mark is another run's is read whole", async () => {
  await withProject({ "a.txt": "a\n" }, async (root) => {
    const journal = new RunJournal(root, { workflow: "committing code" });
    await applyOperations(root, [write("a.txt", "changed\n")], { journal });
    const whole = await readJournal(root);
    const marks = await readJournal(root, { completed: "marks" });
    assert.equal(whole.applies[0].record.entries.length, 1);
    assert.deepEqual(marks.applies.map((apply) => [apply.n, apply.done !== undefined]), [[
      1,
      true,
    ]]);
    assert.deepEqual(marks.applies[0].record.entries, []);
    assert.equal(marks.applies[0].record.kind, "reply");

    // The entries are not looked at (recovery acts on no completed apply; --undo reads whole).
    const record = join(root, JOURNAL, "apply-1.record");
    const text = await Deno.readTextFile(record);
    await Deno.writeTextFile(record, text.replace('"a.txt"', JSON.stringify("build.sh")));
    await assert.rejects(() => readJournal(root), JournalError);
    assert.equal((await readJournal(root, { completed: "marks" })).applies.length, 1);
    // A header that is not the run's still is.
    await Deno.writeTextFile(record, text.replace('"version":1', '"version":2'));
    await assert.rejects(() => readJournal(root, { completed: "marks" }), JournalError);

    // A mark of another run: the apply did not complete, and its record is read whole.
    await Deno.writeTextFile(record, text);
    const done = join(root, JOURNAL, "apply-1.done");
    const mark = await Deno.readTextFile(done);
    await Deno.writeTextFile(done, mark.replace(/"run":"[^"]+"/, '"run":"another"'));
    const incomplete = await readJournal(root, { completed: "marks" });
    assert.equal(incomplete.applies[0].done, undefined);
    assert.deepEqual(incomplete.applies[0].record, whole.applies[0].record);
  });
});

Deno.test("the journal folder must be a real folder; agent-config itself may be a link kept elsewhere", async () => {
  await withProject({ "a.txt": "a\n" }, async (root) => {
    await withProject({}, async (elsewhere) => {
      await Deno.symlink(elsewhere, join(root, "agent-config"));
      const journal = new RunJournal(root, { workflow: "committing code" });
      await applyOperations(root, [write("a.txt", "b\n")], { journal });
      assert.ok((await Deno.lstat(join(elsewhere, "journal/run.json"))).isFile);
      await Deno.remove(join(elsewhere, "journal"), { recursive: true });
      await Deno.symlink(elsewhere, join(elsewhere, "journal"));
      await assert.rejects(
        () => readJournal(root),
        /is a symbolic link; code-commit keeps its apply journal only in a real folder/,
      );
    });
  });
});
