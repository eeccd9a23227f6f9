import assert from "node:assert/strict";
import { isBlockHeader, itemAt, scanBlocks } from "../../lib/reply/blocks.ts";

Deno.test("blocks, deletes, stray markers and empty headers come out in line order", () => {
  const reply = [
    "Some prose.", // 1
    "^^^src/a.ts", // 2
    "a", // 3
    "^^^end", // 4
    "^^^end", // 5: stray
    "^^^src/b.ts  ", // 6
    "^^^delete", // 7
    "^^^   ", // 8: empty header
    "^^^src/c.ts", // 9
    "^^^other is content", // 10
    "^^^end  ", // 11
    "^^^src/d.ts", // 12
    "cut off", // 13
  ].join("\r\n");
  const { lines, items } = scanBlocks(reply);
  assert.equal(lines.length, 13);
  assert.deepEqual(items, [
    {
      kind: "block",
      line: 2,
      path: "src/a.ts",
      deletes: false,
      content: ["a"],
      closed: true,
      lastLine: 4,
    },
    { kind: "stray", line: 5, text: "^^^end" },
    {
      kind: "block",
      line: 6,
      path: "src/b.ts",
      deletes: true,
      content: [],
      closed: true,
      lastLine: 7,
    },
    { kind: "empty-header", line: 8 },
    {
      kind: "block",
      line: 9,
      path: "src/c.ts",
      deletes: false,
      content: ["^^^other is content"],
      closed: true,
      lastLine: 11,
    },
    {
      kind: "block",
      line: 12,
      path: "src/d.ts",
      deletes: false,
      content: ["cut off"],
      closed: false,
      lastLine: 13,
    },
  ]);
});

Deno.test("a reply without markers has no items", () => {
  assert.deepEqual(scanBlocks("just text\n  ^^^not at line start\n").items, []);
});

Deno.test("itemAt reads the one item at a line, as scanBlocks does", () => {
  const lines = ["prose", "^^^a.ts", "x", "^^^delete", "^^^end", "^^^b.ts", "^^^delete", "^^^"];
  assert.equal(itemAt(lines, 0), undefined);
  assert.deepEqual(itemAt(lines, 1), {
    kind: "block",
    line: 2,
    path: "a.ts",
    deletes: false,
    content: ["x", "^^^delete"],
    closed: true,
    lastLine: 5,
  });
  assert.deepEqual(itemAt(lines, 4), { kind: "stray", line: 5, text: "^^^end" });
  assert.deepEqual(itemAt(lines, 5), {
    kind: "block",
    line: 6,
    path: "b.ts",
    deletes: true,
    content: [],
    closed: true,
    lastLine: 7,
  });
  assert.deepEqual(itemAt(lines, 7), { kind: "empty-header", line: 8 });
  assert.equal(itemAt(lines, 8), undefined);
  assert.deepEqual(scanBlocks(lines.join("\n")).items, [
    itemAt(lines, 1),
    itemAt(lines, 5),
    itemAt(lines, 7),
  ]);
});

Deno.test("isBlockHeader: ^^^ and a name, never ^^^end, ^^^delete or ^^^ alone", () => {
  for (const line of ["^^^a.ts", "^^^ a.ts", "^^^end.ts", "^^^deleted"]) {
    assert.ok(isBlockHeader(line), line);
  }
  for (const line of ["^^^end", "^^^end  ", "^^^delete", "^^^", "^^^   ", " ^^^a.ts", "a.ts"]) {
    assert.ok(!isBlockHeader(line), line);
  }
});
