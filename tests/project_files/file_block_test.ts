import assert from "node:assert/strict";
import { blockOf, fileBlock } from "../../lib/project_files/file_block.ts";

Deno.test("fileBlock: the rollup's block format, a final newline added where missing", () => {
  assert.equal(fileBlock("a.ts", "x\n"), "--- a.ts ---\nx\n");
  assert.equal(fileBlock("a.ts", "x"), "--- a.ts ---\nx\n");
  assert.equal(fileBlock("empty", ""), "--- empty ---\n");
  assert.equal(fileBlock("two.txt", "a\n\n"), "--- two.txt ---\na\n\n");
});

Deno.test("blockOf: a read file in full, a withheld one as a note, a refused one not at all", () => {
  assert.equal(blockOf({ ok: true, path: "a.ts", text: "x" }), "--- a.ts ---\nx\n");
  assert.equal(
    blockOf({
      ok: false,
      path: "logo.png",
      reason: "is a binary file (it holds NUL bytes)",
      withheld: true,
    }),
    "--- logo.png ---\n(its content is not shown: it is a binary file (it holds NUL bytes))\n",
  );
  assert.equal(
    blockOf({
      ok: false,
      path: "big.txt",
      reason: "is 2 MiB, more than the 1 MiB a file may have in a prompt",
      withheld: true,
    }),
    "--- big.txt ---\n(its content is not shown: it is 2 MiB, more than the 1 MiB a file may " +
      "have in a prompt)\n",
  );
  assert.equal(
    blockOf({ ok: false, path: "x.key", reason: "is ignored by .gitignore", withheld: false }),
    undefined,
  );
});
