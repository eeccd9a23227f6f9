import assert from "node:assert/strict";
import {
  isBlockHeader,
  itemAt,
  outlineBlocks,
  replyProse,
  scanBlocks,
} from "../../lib/reply/blocks.ts";

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
      content: "a\n",
      closed: true,
      lastLine: 4,
    },
    { kind: "stray", line: 5, text: "^^^end" },
    {
      kind: "block",
      line: 6,
      path: "src/b.ts",
      deletes: true,
      content: "",
      closed: true,
      lastLine: 7,
    },
    { kind: "empty-header", line: 8 },
    {
      kind: "block",
      line: 9,
      path: "src/c.ts",
      deletes: false,
      content: "^^^other is content\n",
      closed: true,
      lastLine: 11,
    },
    {
      kind: "block",
      line: 12,
      path: "src/d.ts",
      deletes: false,
      content: "cut off\n",
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
    content: "x\n^^^delete\n",
    closed: true,
    lastLine: 5,
  });
  assert.deepEqual(itemAt(lines, 4), { kind: "stray", line: 5, text: "^^^end" });
  assert.deepEqual(itemAt(lines, 5), {
    kind: "block",
    line: 6,
    path: "b.ts",
    deletes: true,
    content: "",
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

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LINES = [
  "prose",
  "",
  "  ",
  "^^^a.ts",
  "^^^b.ts  ",
  "^^^end",
  "^^^end \t",
  "^^^delete",
  "^^^delete ",
  "^^^",
  "^^^   ",
  "  ^^^end",
  "^^^endx",
  "^^^other",
  "x^^^end",
  "content",
  "^^^end\u2028",
];

Deno.test("scanBlocks reads every reply as itemAt reads it line by line, items and lines", () => {
  for (let seed = 1; seed <= 400; seed++) {
    const random = prng(seed);
    const count = Math.floor(random() * 14);
    const lines = Array.from({ length: count }, () => LINES[Math.floor(random() * LINES.length)]);
    const end = random() < 0.5 ? "\n" : "";
    const reply = lines.join(random() < 0.3 ? "\r\n" : "\n") + end;
    const expectedLines = reply.replaceAll("\r\n", "\n").split("\n");
    const expected = [];
    for (let index = 0; index < expectedLines.length;) {
      const item = itemAt(expectedLines, index);
      if (item === undefined) {
        index++;
        continue;
      }
      expected.push(item);
      index = item.kind === "block" ? item.lastLine : item.line;
    }
    const scan = scanBlocks(reply);
    assert.deepEqual(scan.items, expected, JSON.stringify(reply));
    assert.deepEqual(scan.lines, expectedLines);
  }
});

Deno.test("outlineBlocks: each block's content becomes one note; headers, markers and prose stay as they are", () => {
  const note = (lines: number, characters: number) => `[${lines} lines, ${characters} chars]`;
  assert.equal(
    outlineBlocks(
      "Intro\n^^^a.ts\nx\nyz\n^^^end\nmid\n^^^b.ts\n^^^delete\n^^^empty.ts\n^^^end\n^^^d.ts\nopen\n",
      note,
    ),
    "Intro\n^^^a.ts\n[2 lines, 5 chars]\n^^^end\nmid\n^^^b.ts\n^^^delete\n^^^empty.ts\n^^^end\n" +
      "^^^d.ts\n[1 lines, 5 chars]\n",
  );
  // CRLF line ends are kept, and the end marker is still found.
  assert.equal(
    outlineBlocks("^^^a.ts\r\nx\r\n^^^end\r\nafter", note),
    "^^^a.ts\r\n[1 lines, 3 chars]\n^^^end\r\nafter",
  );
  assert.equal(outlineBlocks("no blocks at all\n", note), "no blocks at all\n");
});

Deno.test("replyProse: the words outside the blocks, trimmed, without fences", () => {
  const reply = [
    "",
    "I will fix the parser.  ",
    "",
    "",
    "```ts",
    "^^^src/a.ts",
    "prose inside a block is content",
    "^^^end",
    "```",
    "^^^src/old.ts",
    "^^^delete",
    "Then run the tests.",
    "^^^end",
    "",
  ].join("\n");
  assert.deepEqual(replyProse(reply), ["I will fix the parser.", "", "Then run the tests."]);
});

Deno.test("replyProse: nothing for a reply of blocks only; everything for a reply without blocks", () => {
  assert.deepEqual(replyProse("^^^a\nx\n^^^end\n"), []);
  assert.deepEqual(replyProse("No change is needed.\r\n"), ["No change is needed."]);
  assert.deepEqual(replyProse(""), []);
  // Control characters are kept: the console shows them as escapes.
  assert.deepEqual(replyProse("\u001b[2Kdone\n"), ["\u001b[2Kdone"]);
});

Deno.test("replyProse: an unterminated block hides everything after its header", () => {
  assert.deepEqual(replyProse("before\n^^^a.ts\nrest of the reply\n"), ["before"]);
});

/** The prose as the lines outside every item, read line by line with itemAt. */
function proseLineByLine(reply: string): string[] {
  const lines = reply.replaceAll("\r\n", "\n").split("\n");
  const prose: string[] = [];
  for (let index = 0; index < lines.length;) {
    const item = itemAt(lines, index);
    if (item !== undefined) {
      index = item.kind === "block" ? item.lastLine : item.line;
      continue;
    }
    const line = lines[index++];
    if (/^\s*(```+|~~~+)[\w.+-]*\s*$/.test(line)) continue;
    const trimmed = line.trimEnd();
    if (trimmed === "" && (prose.length === 0 || prose.at(-1) === "")) continue;
    prose.push(trimmed);
  }
  while (prose.at(-1) === "") prose.pop();
  return prose;
}

Deno.test("replyProse keeps exactly the lines outside the items, read line by line", () => {
  const vocabulary = ["words", "", "  ", "```ts", "^^^a.ts", "^^^end", "^^^delete", "^^^", "x"];
  for (let seed = 1; seed <= 300; seed++) {
    const random = prng(seed);
    const lines = Array.from(
      { length: Math.floor(random() * 12) },
      () => vocabulary[Math.floor(random() * vocabulary.length)],
    );
    const reply = lines.join(random() < 0.3 ? "\r\n" : "\n") + (random() < 0.5 ? "\n" : "");
    assert.deepEqual(replyProse(reply), proseLineByLine(reply), JSON.stringify(reply));
  }
});
