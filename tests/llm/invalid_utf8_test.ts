/** The message for an answer that is not valid UTF-8: the byte offset, and the file block it falls in. */
import assert from "node:assert/strict";
import { invalidUtf8Message } from "../../lib/llm/invalid_utf8.ts";

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("the message names the offset, and the file block only when the bad byte is inside one", () => {
  const inside = encode(JSON.stringify({ text: "^^^src/a.ts\nconst x = 1;\n" }));
  assert.equal(
    invalidUtf8Message(inside, inside.length - 3),
    `the reply is not valid UTF-8: byte ${inside.length - 3} of its body (in the block of the ` +
      "file src/a.ts) is not part of a UTF-8 character; refused (its files are never written " +
      "with bytes replaced): ask again",
  );
  const after = encode(JSON.stringify({ text: "^^^src/a.ts\nx\n^^^end\nprose" }));
  assert.doesNotMatch(invalidUtf8Message(after, after.length - 2), /in the block/);
  const deleted = encode(JSON.stringify({ text: "^^^src/a.ts\n^^^delete\nprose" }));
  assert.doesNotMatch(invalidUtf8Message(deleted, deleted.length - 2), /in the block/);
  assert.doesNotMatch(invalidUtf8Message(encode("{}"), 1), /in the block/);
});
