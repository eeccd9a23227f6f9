import assert from "node:assert/strict";
import {
  countKinds,
  cutList,
  formatChangedFiles,
  formatLineCounts,
  nameSome,
} from "../../lib/text/change_list.ts";

Deno.test("formatChangedFiles: one line per file, kinds aligned, counts with separators", () => {
  assert.deepEqual(
    formatChangedFiles([
      { path: "src/a.ts", kind: "created", added: 1234, removed: 0 },
      { path: "src/b.ts", kind: "replaced", added: 3, removed: 1 },
      { path: "src/c.ts", kind: "deleted", added: 0, removed: 40 },
    ]),
    [
      "  created   src/a.ts  +1,234 -0",
      "  replaced  src/b.ts  +3 -1",
      "  deleted   src/c.ts  +0 -40",
    ],
  );
});

Deno.test("cutList: the first twenty and a count saying where the rest is", () => {
  const lines = Array.from({ length: 2_000 }, (_, i) => `line ${i}`);
  const cut = cutList(lines, "logs/x/changes.txt");
  assert.equal(cut.length, 21);
  assert.equal(cut[19], "line 19");
  assert.equal(cut[20], "  … and 1,980 more (all of them in logs/x/changes.txt)");
  assert.deepEqual(cutList(lines.slice(0, 20), "where"), lines.slice(0, 20));
});

Deno.test("countKinds: the kinds there are, in a fixed order", () => {
  const file = (kind: "created" | "replaced" | "deleted") => ({
    path: "p",
    kind,
    added: 0,
    removed: 0,
  });
  assert.equal(
    countKinds([file("deleted"), file("created"), file("created")]),
    "2 created, 1 deleted",
  );
  assert.equal(countKinds([]), "");
});

Deno.test("formatLineCounts: counts that could not be made are said to be unknown", () => {
  assert.equal(formatLineCounts({ added: 1200, removed: 3 }), "+1,200 -3");
  assert.equal(formatLineCounts({ added: undefined, removed: undefined }), "(lines not counted)");
  assert.deepEqual(
    formatChangedFiles([{
      path: "big.bin",
      kind: "replaced",
      added: undefined,
      removed: undefined,
    }]),
    ["  replaced  big.bin  (lines not counted)"],
  );
});

Deno.test("nameSome: at most twenty names, the rest a count, and where the whole list is", () => {
  const paths = Array.from({ length: 1_622 }, (_, i) => `src/f${i}.ts`);
  const named = nameSome(paths, { where: "logs/run/changes.txt" });
  assert.equal(named.split(", ").length, 21);
  assert.ok(named.startsWith("src/f0.ts, src/f1.ts, "));
  assert.ok(named.endsWith(", src/f19.ts, and 1,602 more; all in logs/run/changes.txt"));
  assert.equal(nameSome(paths.slice(0, 20)), paths.slice(0, 20).join(", "));
  assert.equal(
    nameSome(paths.slice(0, 3), { separator: "; ", limit: 2 }),
    "src/f0.ts; src/f1.ts; and 1 more",
  );
  assert.equal(nameSome([]), "");
});
