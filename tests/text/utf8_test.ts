/** Strict UTF-8: the first byte that is not part of a valid character, and a decode that refuses. */
import assert from "node:assert/strict";
import { decodeStrictly, firstInvalidUtf8 } from "../../lib/text/utf8.ts";

const bytes = (...values: number[]) => new Uint8Array(values);

Deno.test("firstInvalidUtf8 agrees with a fatal TextDecoder and names the first bad byte", () => {
  const cases: [Uint8Array, number | undefined][] = [
    [new TextEncoder().encode("plain ascii, é, 漢, 😀"), undefined],
    [bytes(0x61, 0xff, 0x62), 1], // never a UTF-8 byte
    [bytes(0x61, 0x80), 1], // a stray continuation byte
    [bytes(0xc3), 0], // cut short at the end
    [bytes(0xc3, 0x41), 0], // cut short by an ASCII byte
    [bytes(0xc0, 0xaf), 0], // overlong
    [bytes(0xe0, 0x80, 0xaf), 0], // overlong, three bytes
    [bytes(0x41, 0xed, 0xa0, 0x80), 1], // a surrogate
    [bytes(0xf4, 0x90, 0x80, 0x80), 0], // past U+10FFFF
    [bytes(0xf0, 0x9f, 0x98, 0x80, 0xf0, 0x9f, 0x98), 4], // a whole emoji, then a cut one
  ];
  for (const [input, expected] of cases) {
    assert.equal(firstInvalidUtf8(input), expected, `${[...input]}`);
    assert.equal(decodeStrictly(input) === undefined, expected !== undefined, `${[...input]}`);
  }
});
