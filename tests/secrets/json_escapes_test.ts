/**
 * JSON escapes decoded wherever they stand, and the way back from each
 * decoded character to the text it came from.
 */
import assert from "node:assert/strict";
import {
  decodeJsonEscapes,
  escapeJsonString,
  keyEscapeWindows,
  mayHoldKeyEscapes,
} from "../../lib/secrets/json_escapes.ts";

Deno.test("decodeJsonEscapes decodes what JSON.parse decodes, in a JSON string", () => {
  const values = [
    "plain",
    'a "quote" and a \\ backslash / slash',
    "tab\tline\nreturn\rfeed\fback\b",
    "é ü 中文 😀 \u0001 \u001f",
  ];
  for (const value of values) {
    const escaped = escapeJsonString(value);
    assert.equal(decodeJsonEscapes(escaped).text, value);
    // Every character escaped, upper-case hex; and `/` as `\/`.
    const every = value.split("").map((unit) =>
      `\\u${unit.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`
    ).join("");
    assert.equal(decodeJsonEscapes(every).text, value);
    assert.equal(decodeJsonEscapes(escaped.replaceAll("/", "\\/")).text, value);
  }
});

Deno.test("decodeJsonEscapes keeps a backslash that starts no escape, and a cut escape", () => {
  assert.equal(decodeJsonEscapes("C:\\x\\q").text, "C:\\x\\q");
  assert.equal(decodeJsonEscapes("cut \\u00").text, "cut \\u00");
  assert.equal(decodeJsonEscapes("end \\").text, "end \\");
  assert.equal(decodeJsonEscapes("\\\\u0041").text, "\\u0041", "an escaped backslash, then text");
  assert.equal(decodeJsonEscapes("\\u004G").text, "\\u004G");
});

Deno.test("source maps each decoded stretch back to the escapes that wrote it", () => {
  const escaped = 'ab\\u0063d\\/e\\"f\\\\g\\u00E9h';
  const decoded = decodeJsonEscapes(escaped);
  assert.equal(decoded.text, 'abcd/e"f\\géh');
  for (let start = 0; start <= decoded.text.length; start++) {
    for (let end = start; end <= decoded.text.length; end++) {
      const stretch = escaped.slice(decoded.source(start), decoded.source(end));
      assert.equal(
        decodeJsonEscapes(stretch).text,
        decoded.text.slice(start, end),
        `${start}-${end}`,
      );
    }
  }
  assert.equal(decoded.source(decoded.text.length), escaped.length);
  const plain = decodeJsonEscapes("no escapes");
  assert.equal(plain.text, "no escapes");
  assert.equal(plain.source(3), 3);
});

Deno.test("mayHoldKeyEscapes: only an escape of a key's character can hide one", () => {
  const characters = new Set("AIzaSy-0123456789+/");
  assert.equal(mayHoldKeyEscapes('line\\nand \\"quote\\" \\\\ \\t caf\\u00e9', characters), false);
  assert.equal(mayHoldKeyEscapes("\\u0041", characters), true);
  assert.equal(mayHoldKeyEscapes("\\u007A", characters), true, "upper-case hex");
  assert.equal(mayHoldKeyEscapes("\\u0042", characters), false, "B is in no key");
  assert.equal(mayHoldKeyEscapes("a\\/b", characters), true);
  assert.equal(mayHoldKeyEscapes("a\\/b", new Set("AIza")), false, "no slash in any form");
  assert.equal(mayHoldKeyEscapes("\\\\u0041", characters), true, "JSON in a JSON string");
  assert.equal(mayHoldKeyEscapes("a \\n b", new Set('ab"')), true, "a key holding a quote");
});

Deno.test("keyEscapeWindows: around each escape of a key's character, joined, never cutting a run of them", () => {
  const characters = new Set("ABCabc0123");
  assert.deepEqual(keyEscapeWindows("caf\\u00e9 \\n \\/", characters, 4), []);
  const far = `${"x".repeat(100)}\\u0041${"x".repeat(200)}\\u0062${"x".repeat(100)}`;
  // Reach: 8 × (4 + 2) = 48 characters to either side.
  assert.deepEqual(keyEscapeWindows(far, characters, 4), [[52, 148], [258, 354]]);
  const near = `\\u0041${"x".repeat(50)}\\u0061`;
  assert.deepEqual(keyEscapeWindows(near, characters, 4), [[0, near.length]]);
  // A run of the characters at an edge is taken in, up to the longest key.
  const run = `${"x".repeat(10)}abcabc${" ".repeat(48)}\\u0041${" ".repeat(42)}0123xxxx`;
  assert.deepEqual(keyEscapeWindows(run, characters, 4), [[12, 116]]);
});
