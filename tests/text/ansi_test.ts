import assert from "node:assert/strict";
import { stripAnsi } from "../../lib/text/ansi.ts";

Deno.test("stripAnsi: colours, cursor moves and titles go, the text stays", () => {
  const tsc =
    "\x1b[96msrc/a.ts\x1b[0m:\x1b[93m3\x1b[0m:\x1b[93m5\x1b[0m - \x1b[91merror\x1b[0m\x1b[90m TS2322: \x1b[0mType";
  assert.equal(stripAnsi(tsc), "src/a.ts:3:5 - error TS2322: Type");
  assert.equal(stripAnsi("\x1b[1;31mFAIL\x1b[39;22m x"), "FAIL x");
  assert.equal(stripAnsi("\x1b[2K\x1b[1Gdone"), "done");
  assert.equal(stripAnsi("\x1b]0;title\x07text"), "text");
  assert.equal(stripAnsi("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\"), "link");
  assert.equal(stripAnsi("\x1b(Bplain"), "plain");
  assert.equal(stripAnsi("no escapes\n"), "no escapes\n");
});
