/**
 * Tests of the journal's content hash: the same value for the same bytes
 * in every process (journals written before keep matching), 16 hex digits,
 * and a different value for bytes that differ anywhere.
 */

import assert from "node:assert/strict";
import { contentHash } from "../../lib/apply/content_hash.ts";

const encoder = new TextEncoder();

Deno.test("contentHash gives the values journals on disk were written with", () => {
  // Each length modulo 4 (the words, and a tail of 1 to 3 bytes), and bytes of every range.
  assert.equal(contentHash(encoder.encode("")), "86e3cee6f0c08540");
  assert.equal(contentHash(encoder.encode("a")), "1827ddae2cf293d9");
  assert.equal(contentHash(encoder.encode("abc")), "d1c59417c0964d6b");
  assert.equal(contentHash(encoder.encode("abcd")), "4fd2947982c07730");
  assert.equal(contentHash(encoder.encode("hello world\n")), "14587d949f016b44");
  assert.equal(contentHash(encoder.encode("x".repeat(1000))), "ea297ad7fdafdc35");
  assert.equal(contentHash(new Uint8Array([0xff, 0x00, 0x80, 0x7f, 0x01])), "843746caa671cdd5");
});

Deno.test("contentHash is 16 lowercase hex digits, and changes with any byte or the length", () => {
  const data = encoder.encode("const value = compute(input);\n".repeat(40));
  const hash = contentHash(data);
  assert.match(hash, /^[0-9a-f]{16}$/);
  const seen = new Set([hash]);
  for (let i = 0; i < data.length; i += 7) {
    const changed = data.slice();
    changed[i] ^= 1;
    seen.add(contentHash(changed));
  }
  seen.add(contentHash(data.subarray(0, data.length - 1)));
  seen.add(contentHash(new Uint8Array([...data, 0])));
  assert.equal(seen.size, Math.ceil(data.length / 7) + 3);
});
