import assert from "node:assert/strict";
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
