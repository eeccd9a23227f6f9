import assert from "node:assert/strict";
import {
  codePointName,
  displayPath,
  findControlCharacter,
  findInvisibleCharacter,
  printable,
} from "../../lib/text/characters.ts";

/** Every character the control-character rule names, by code point. */
const CONTROL = [
  ...Array.from({ length: 0x20 }, (_, code) => code),
  ...Array.from({ length: 0x21 }, (_, code) => 0x7f + code),
  0x2028,
  0x2029,
];

Deno.test("the control characters are C0, DEL, C1, U+2028 and U+2029, and nothing else", () => {
  for (let code = 0; code <= 0x3000; code++) {
    const character = String.fromCharCode(code);
    const expected = CONTROL.includes(code) ? character : undefined;
    if (code >= 0xd800 && code <= 0xdfff) continue; // lone surrogates: not characters
    assert.equal(findControlCharacter(`a${character}b`), expected, codePointName(character));
  }
  assert.equal(findControlCharacter("src/a.ts"), undefined);
  assert.equal(findControlCharacter("x\u0085y\u0007"), "\u0085");
});

Deno.test("invisible characters: zero-width, bidi controls, the byte order mark, soft hyphen", () => {
  for (const character of ["\u200b", "\u200c", "\u200d", "\u202e", "\u2066", "\ufeff", "\u00ad"]) {
    assert.equal(findInvisibleCharacter(`a${character}b`), character, codePointName(character));
  }
  assert.equal(findInvisibleCharacter("café/ſ/Kelvin\u212a"), undefined);
});

Deno.test("codePointName names the code point, astral ones whole", () => {
  assert.equal(codePointName("\u001b"), "U+001B");
  assert.equal(codePointName("é"), "U+00E9");
  assert.equal(codePointName("\u2028"), "U+2028");
  assert.equal(codePointName("😀"), "U+1F600");
});

Deno.test("printable escapes every control character but tab and line feed, and bidi controls", () => {
  assert.equal(printable("tabs\tand\nnewlines stay"), "tabs\tand\nnewlines stay");
  assert.equal(
    printable("\x1b]52;c;cHduZWQ=\x07 and \x1b[1Abuild passed\r"),
    "\\u001b]52;c;cHduZWQ=\\u0007 and \\u001b[1Abuild passed\\u000d",
  );
  assert.equal(
    printable("a\u0085b\u2028c\u202ed\u2066e\u007f"),
    "a\\u0085b\\u2028c\\u202ed\\u2066e\\u007f",
  );
  assert.equal(printable("zero\u200bwidth café"), "zero\u200bwidth café");
  for (const code of CONTROL) {
    if (code === 0x09 || code === 0x0a) continue;
    const shown = printable(String.fromCharCode(code));
    assert.equal(shown, `\\u${code.toString(16).padStart(4, "0")}`);
  }
});

Deno.test("displayPath quotes anything that could disguise a path or drive a terminal", () => {
  assert.equal(displayPath("src/a.ts"), "src/a.ts");
  assert.equal(displayPath("src/café.ts"), "src/café.ts");
  assert.equal(displayPath(""), '""');
  assert.equal(displayPath("a b"), '"a b"');
  assert.equal(displayPath("a\u001b[2J"), '"a\\u001b[2J"');
  assert.equal(displayPath("a\nb"), '"a\\nb"');
  assert.equal(displayPath("a\u0085b"), '"a\\u0085b"');
  assert.equal(displayPath("a\u2028b"), '"a\\u2028b"');
  assert.equal(displayPath("a\u202eb"), '"a\\u202eb"');
  assert.equal(displayPath(".g\u200cit"), '".g\\u200cit"');
  assert.equal(displayPath("a\ud800"), '"a\\ud800"');
  assert.equal(displayPath('a"b'), '"a\\"b"');
  for (let code = 0; code < 0xa0; code++) {
    const shown = displayPath(`a${String.fromCharCode(code)}b`);
    assert.ok(
      [...shown].every((c) => c.charCodeAt(0) >= 0x20 && !(c >= "\u007f" && c <= "\u009f")),
      `U+${code.toString(16)}: ${JSON.stringify(shown)}`,
    );
  }
});
