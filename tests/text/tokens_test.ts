import assert from "node:assert/strict";
import { estimateTokens, tokensOfBytes } from "../../lib/text/tokens.ts";

Deno.test("estimateTokens: about one token per 4 bytes of UTF-8", () => {
  assert.equal(tokensOfBytes(123_456), 30_864);
  assert.equal(estimateTokens(""), 0);
  assert.equal(estimateTokens("abcd".repeat(1000)), 1000);
  // Multi-byte characters count by their bytes: é is 2, € is 3, 😀 is 4.
  assert.equal(estimateTokens("éé€😀"), Math.round(11 / 4));
});

Deno.test("estimateTokens: bytes counted as TextEncoder counts them, lone surrogates included", () => {
  for (const text of ["", "plain", "é", "€uro", "😀 x", "a\ud800b", "\udc00", "x\ud83d"]) {
    // Four copies make the estimate exactly the byte length of one.
    const bytes = new TextEncoder().encode(text).length;
    assert.equal(estimateTokens(text.repeat(4)), bytes, JSON.stringify(text));
  }
});
