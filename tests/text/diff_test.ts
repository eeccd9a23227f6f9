/**
 * Line diffs: the counts are git's (a minimal diff's, whichever), and the
 * unified diff is one `git apply` applies exactly, on random texts and on
 * the edge cases (no line end at the end, created and deleted files,
 * nothing changed).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { countLineChanges, unifiedDiff } from "../../lib/text/diff.ts";
import { git, tempProject } from "../support/project.ts";

/** A small deterministic generator. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** Random text of `lines` lines from a small alphabet of lines (so that many match). */
function text(next: () => number, lines: number, end = true): string {
  const words = ["alpha", "beta", "gamma", "delta", "", "}", "  return x;", "epsilon"];
  const out = Array.from({ length: lines }, () => words[Math.floor(next() * words.length)]);
  return out.length === 0 ? "" : out.join("\n") + (end ? "\n" : "");
}

Deno.test("countLineChanges: created, deleted, unchanged and edited files", () => {
  assert.deepEqual(countLineChanges("", "a\nb\n"), { added: 2, removed: 0 });
  assert.deepEqual(countLineChanges("a\nb\n", ""), { added: 0, removed: 2 });
  assert.deepEqual(countLineChanges("a\nb\n", "a\nb\n"), { added: 0, removed: 0 });
  assert.deepEqual(countLineChanges("a\nb\nc\n", "a\nB\nc\nd\n"), { added: 2, removed: 1 });
  // A last line end added or removed changes that line.
  assert.deepEqual(countLineChanges("a\nb", "a\nb\n"), { added: 1, removed: 1 });
});

Deno.test("unifiedDiff: git apply turns the old text into the new one, and the counts are git's", async () => {
  await using project = await tempProject({}, { git: true });
  const next = random(7);
  for (let round = 0; round < 40; round++) {
    const before = text(next, Math.floor(next() * 30), next() > 0.2);
    const after = next() > 0.5
      ? text(next, Math.floor(next() * 30), next() > 0.2)
      : before.split("\n").map((line) => (next() > 0.8 ? "changed" : line)).join("\n");
    const path = "file.txt";
    await Deno.writeTextFile(join(project.root, path), before);
    await git(project.root, "add", "-A");
    await git(project.root, "commit", "-q", "--allow-empty", "-m", `round ${round}`);
    const diff = unifiedDiff(path, before, after);
    if (before === after) {
      assert.equal(diff, "");
      continue;
    }
    await Deno.writeTextFile(join(project.root, "change.diff"), diff);
    await git(project.root, "apply", "change.diff");
    assert.equal(
      await Deno.readTextFile(join(project.root, path)),
      after,
      `round ${round}:\n${diff}`,
    );
    const numstat = (await git(project.root, "diff", "--numstat", "--", path)).trim();
    const counts = countLineChanges(before, after);
    assert.equal(numstat, `${counts.added}\t${counts.removed}\t${path}`, `round ${round}`);
    await Deno.remove(join(project.root, "change.diff"));
  }
});

Deno.test("unifiedDiff: a created and a deleted file, as git writes them", () => {
  assert.equal(
    unifiedDiff("src/new.ts", null, "one\ntwo\n"),
    "--- /dev/null\n+++ b/src/new.ts\n@@ -0,0 +1,2 @@\n+one\n+two\n",
  );
  assert.equal(
    unifiedDiff("src/old.ts", "one\n", null),
    "--- a/src/old.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n",
  );
  assert.equal(
    unifiedDiff("x", "a", "a\n"),
    "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n",
  );
  assert.equal(unifiedDiff("x", "same\n", "same\n"), "");
});

Deno.test("a file rewritten from end to end costs linear time: past the edit limit the middle is replaced whole", () => {
  const lines = 10_000; // far past the edit limit
  const before = Array.from({ length: lines }, (_, i) => `old ${i}`).join("\n") + "\n";
  const after = Array.from({ length: lines }, (_, i) => `new ${i}`).join("\n") + "\n";
  const started = performance.now();
  assert.deepEqual(countLineChanges(before, after), { added: lines, removed: lines });
  assert.ok(performance.now() - started < 30_000);
});
