import assert from "node:assert/strict";
import { outputTail } from "../../lib/build/output_tail.ts";

Deno.test("outputTail: the last lines and how many came before", () => {
  const output = Array.from({ length: 25 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  const tail = outputTail(output, 20);
  assert.equal(tail.omitted, 5);
  assert.equal(tail.lines.length, 20);
  assert.equal(tail.lines[0], "line 6");
  assert.equal(tail.lines.at(-1), "line 25");
  assert.deepEqual(outputTail("a\nb", 20), { lines: ["a", "b"], omitted: 0 });
  assert.deepEqual(outputTail("", 20), { lines: [], omitted: 0 });
});

Deno.test("outputTail: a line rewritten with carriage returns shows its last version", () => {
  assert.deepEqual(outputTail("10%\r50%\r100%\r\nerror: x\r\n", 20).lines, ["100%", "error: x"]);
});
