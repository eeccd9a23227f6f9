/**
 * Line diffs: the counts are git's (a minimal diff's, whichever), and the
 * unified diff is one `git apply` applies exactly, on random texts and on
 * the edge cases (no line end at the end, created and deleted files,
 * nothing changed).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  countByteLineChanges,
  countFileLineChanges,
  countLineChanges,
  unifiedDiff,
} from "../../lib/text/diff.ts";
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
    const encoder = new TextEncoder();
    assert.deepEqual(
      countByteLineChanges(encoder.encode(before), encoder.encode(after)),
      counts,
      `round ${round}: the bytes are counted as the text`,
    );
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

Deno.test("unifiedDiff: a few lines changed in a long text, git apply turns the old text into the new one", async () => {
  await using project = await tempProject({}, { git: true });
  const next = random(11);
  for (let round = 0; round < 12; round++) {
    const before = text(next, 300 + Math.floor(next() * 300), next() > 0.3);
    const lines = before.split("\n");
    for (let edit = 0; edit < 1 + round; edit++) {
      const at = Math.floor(next() * lines.length);
      if (next() > 0.5) lines.splice(at, 1 + Math.floor(next() * 3));
      else lines.splice(at, 0, `inserted ${edit}`);
    }
    const after = lines.join("\n");
    const path = "long.txt";
    await Deno.writeTextFile(join(project.root, path), before);
    await git(project.root, "add", "-A");
    await git(project.root, "commit", "-q", "--allow-empty", "-m", `round ${round}`);
    const diff = unifiedDiff(path, before, after);
    await Deno.writeTextFile(join(project.root, "change.diff"), diff);
    await git(project.root, "apply", "change.diff");
    assert.equal(await Deno.readTextFile(join(project.root, path)), after, `round ${round}`);
    const numstat = (await git(project.root, "diff", "--numstat", "--", path)).trim();
    const counts = countLineChanges(before, after);
    assert.equal(numstat, `${counts.added}\t${counts.removed}\t${path}`, `round ${round}`);
    await Deno.remove(join(project.root, "change.diff"));
  }
});

/** `lines` numbered lines, each ending with a line end. */
function numbered(lines: number, name = "line"): string[] {
  return Array.from({ length: lines }, (_, i) => `${name} ${i}`);
}

Deno.test("a million lines with one changed: +1 -1 as text and as bytes, and one hunk with the right line numbers", () => {
  const lines = numbered(1_000_000);
  const before = `${lines.join("\n")}\n`;
  lines[765_432] = "changed";
  const after = `${lines.join("\n")}\n`;
  assert.deepEqual(countLineChanges(before, after), { added: 1, removed: 1 });
  const encoder = new TextEncoder();
  assert.deepEqual(
    countByteLineChanges(encoder.encode(before), encoder.encode(after)),
    { added: 1, removed: 1 },
  );
  assert.equal(
    unifiedDiff("big.txt", before, after),
    "--- a/big.txt\n+++ b/big.txt\n@@ -765430,7 +765430,7 @@\n" +
      " line 765429\n line 765430\n line 765431\n-line 765432\n+changed\n" +
      " line 765433\n line 765434\n line 765435\n",
  );
});

Deno.test("a million lines with a line added at the start and the end: counted and diffed", () => {
  const lines = numbered(1_000_000);
  const before = lines.join("\n"); // no line end at the end
  const after = `first\n${before}\nlast\n`;
  assert.deepEqual(countLineChanges(before, after), { added: 3, removed: 1 });
  const diff = unifiedDiff("big.txt", before, after);
  assert.ok(diff.startsWith("--- a/big.txt\n+++ b/big.txt\n@@ -1,3 +1,4 @@\n+first\n line 0\n"));
  assert.ok(
    diff.endsWith(
      "@@ -999997,4 +999998,5 @@\n line 999996\n line 999997\n line 999998\n-line 999999\n" +
        "\\ No newline at end of file\n+line 999999\n+last\n",
    ),
    diff.slice(-300),
  );
});

Deno.test("past the search's bounds, the lines between the common head and tail count as replaced whole", () => {
  // Changes every 300 lines over a million: more edits than the search follows.
  const lines = numbered(1_000_000);
  const before = `${lines.join("\n")}\n`;
  for (let i = 10; i < lines.length; i += 300) lines[i] = `changed ${i}`;
  const after = `${lines.join("\n")}\n`;
  const whole = { added: 999_901, removed: 999_901 }; // from line 10 to line 999,910
  assert.deepEqual(countLineChanges(before, after), whole);
  const encoder = new TextEncoder();
  assert.deepEqual(countByteLineChanges(encoder.encode(before), encoder.encode(after)), whole);
  const diff = unifiedDiff("big.txt", before, after);
  assert.equal(
    diff.split("\n").filter((line) => line.startsWith("+") && !line.startsWith("+++")).length,
    whole.added,
  );
});

Deno.test("countByteLineChanges compares bytes: lines that are not UTF-8 count, and line ends at the edges", () => {
  const bytes = (...parts: (string | number[])[]) =>
    new Uint8Array(
      parts.flatMap((part) =>
        typeof part === "string" ? [...new TextEncoder().encode(part)] : part
      ),
    );
  // Two different invalid bytes decode alike as text, but are different lines.
  assert.deepEqual(
    countByteLineChanges(bytes("a\n", [0xff], "\nz\n"), bytes("a\n", [0xfe], "\nz\n")),
    { added: 1, removed: 1 },
  );
  assert.deepEqual(countByteLineChanges(bytes("a\nb"), bytes("a\nb\n")), { added: 1, removed: 1 });
  assert.deepEqual(countByteLineChanges(bytes("x\nb"), bytes("y\nb")), { added: 1, removed: 1 });
  assert.deepEqual(countByteLineChanges(bytes(""), bytes("a\nb")), { added: 2, removed: 0 });
  assert.deepEqual(countByteLineChanges(bytes("a\n\n"), bytes("a\n\n\n")), {
    added: 1,
    removed: 0,
  });
  assert.deepEqual(countByteLineChanges(bytes("same\n"), bytes("same\n")), {
    added: 0,
    removed: 0,
  });
});

Deno.test("countFileLineChanges never throws: a count that fails is unknown", () => {
  assert.deepEqual(countFileLineChanges(null, new TextEncoder().encode("a\nb\n")), {
    added: 2,
    removed: 0,
  });
  const failing = new Proxy(new Uint8Array(4), {
    get() {
      throw new RangeError("out of memory");
    },
  });
  assert.equal(countFileLineChanges(failing, new Uint8Array(2)), undefined);
});
