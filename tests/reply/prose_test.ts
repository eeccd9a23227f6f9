import assert from "node:assert/strict";
import { itemAt } from "../../lib/reply/blocks.ts";
import { replyProse } from "../../lib/reply/prose.ts";

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
