/**
 * Tests of the temporary file name: the one format the writer builds and
 * the journal recognizes, `.<name>.code-commit-<16 hex digits>.tmp`, within
 * the file systems' 255 bytes.
 */

import assert from "node:assert/strict";
import { isTemporaryName, temporaryName } from "../../lib/file_system/temporary_name.ts";

Deno.test("temporaryName: a hidden sibling with 16 random hex digits, different each time", () => {
  const name = temporaryName("main.ts");
  assert.match(name, /^\.main\.ts\.code-commit-[0-9a-f]{16}\.tmp$/);
  assert.notEqual(temporaryName("main.ts"), name);
});

Deno.test("temporaryName: given digits make a name another process can find again", () => {
  assert.equal(
    temporaryName("a.txt", "0123456789abcdef"),
    ".a.txt.code-commit-0123456789abcdef.tmp",
  );
});

Deno.test("temporaryName: a long name is shortened to 255 bytes, whole characters only", () => {
  for (const long of ["x".repeat(255), "é".repeat(127), "\u{1F600}".repeat(63)]) {
    const name = temporaryName(long);
    const bytes = new TextEncoder().encode(name).length;
    assert.ok(bytes <= 255, `${bytes} bytes`);
    assert.ok(bytes > 250 - 3, `${bytes} bytes`);
    assert.ok(name.isWellFormed());
    assert.ok(isTemporaryName(name));
  }
});

Deno.test("isTemporaryName: recognizes what temporaryName makes, and nothing else", () => {
  for (const name of ["a", "main.ts", "x".repeat(300), "line\nbreak", "é"]) {
    assert.ok(isTemporaryName(temporaryName(name)), name);
    assert.ok(isTemporaryName(temporaryName(name, "fedcba9876543210")), name);
  }
  for (
    const name of [
      "a.txt",
      "a.txt.code-commit-0123456789abcdef.tmp", // not hidden
      ".a.txt.code-commit-0123456789ABCDEF.tmp", // upper case
      ".a.txt.code-commit-0123456789abcde.tmp", // 15 digits
      ".a.txt.code-commit-0123456789abcdef.tmp.x",
      "dir/.a.txt.code-commit-0123456789abcdef.tmpx",
    ]
  ) {
    assert.ok(!isTemporaryName(name), name);
  }
});
