import assert from "node:assert/strict";
import { toByteString, wildmatch, WM_CASEFOLD, WM_PATHNAME } from "../../lib/guard/wildmatch.ts";

/** [pattern, text, flags, whether git's wildmatch matches]. */
const CASES: readonly (readonly [string, string, number, boolean])[] = [
  ["foo", "foo", 0, true],
  ["foo", "bar", 0, false],
  ["", "", 0, true],
  ["", "a", 0, false],
  ["*", "", 0, true],
  ["*", "foo/bar", 0, true],
  ["*", "foo/bar", WM_PATHNAME, false],
  ["*/bar", "foo/bar", WM_PATHNAME, true],
  ["*/bar", "foo/x/bar", WM_PATHNAME, false],
  ["**", "foo/bar", WM_PATHNAME, true],
  ["**/bar", "bar", WM_PATHNAME, true],
  ["**/bar", "a/b/bar", WM_PATHNAME, true],
  ["foo/**", "foo/a/b", WM_PATHNAME, true],
  ["foo/**", "foo", WM_PATHNAME, false],
  ["foo/**/bar", "foo/bar", WM_PATHNAME, true],
  ["foo/**/bar", "foo/a/b/bar", WM_PATHNAME, true],
  // `**` next to something else than a slash is one `*`.
  ["foo**bar", "foo/bar", WM_PATHNAME, false],
  ["foo**bar", "fooxbar", WM_PATHNAME, true],
  ["a*c", "abbbc", 0, true],
  ["a*c", "abbbd", 0, false],
  ["*.txt", "a.txt", 0, true],
  ["*.txt", "a.TXT", 0, false],
  ["*.txt", "a.TXT", WM_CASEFOLD, true],
  ["?", "a", 0, true],
  ["?", "/", WM_PATHNAME, false],
  ["?", "/", 0, true],
  ["a?c", "abc", 0, true],
  ["[ab]", "b", 0, true],
  ["[ab]", "c", 0, false],
  ["[!ab]", "c", 0, true],
  ["[^ab]", "a", 0, false],
  ["[a-c]", "b", 0, true],
  ["[a-c]", "d", 0, false],
  ["[a-]", "-", 0, true],
  ["[]]", "]", 0, true],
  ["[!]]", "a", 0, true],
  ["[\\]]", "]", 0, true],
  ["[/]", "/", WM_PATHNAME, false],
  ["[[:alpha:]]", "x", 0, true],
  ["[[:digit:]]", "x", 0, false],
  ["[[:digit:]]", "7", 0, true],
  ["[[:upper:]]", "a", 0, false],
  ["[[:upper:]]", "a", WM_CASEFOLD, true],
  ["[[:space:]]", "\t", 0, true],
  ["[[:punct:]]", "_", 0, true],
  ["[[:xdigit:]]", "F", 0, true],
  ["[[:bogus:]]", "x", 0, false],
  ["[[:alpha:", "x", 0, false],
  ["[a", "a", 0, false],
  ["\\*", "*", 0, true],
  ["\\*", "a", 0, false],
  ["\\", "\\", 0, false],
  ["a\\", "a", 0, false],
];

Deno.test("wildmatch matches as git's wildmatch does", () => {
  for (const [pattern, text, flags, expected] of CASES) {
    assert.equal(
      wildmatch(pattern, text, flags),
      expected,
      `${JSON.stringify(pattern)} ~ ${JSON.stringify(text)} (flags ${flags})`,
    );
  }
});

Deno.test("wildmatch compares bytes: ? and classes match one byte of a UTF-8 character", () => {
  const cafe = toByteString("café");
  assert.equal(cafe.length, 5);
  assert.equal(wildmatch(toByteString("caf?"), cafe, 0), false);
  assert.equal(wildmatch(toByteString("caf??"), cafe, 0), true);
  assert.equal(wildmatch(toByteString("caf*"), cafe, 0), true);
  assert.equal(wildmatch(toByteString("café"), cafe, 0), true);
  assert.equal(wildmatch(toByteString("caf[é]"), cafe, 0), false);
  assert.equal(toByteString("plain ascii"), "plain ascii");
});

Deno.test("wildmatch starts where it is told: a ** right there counts as a whole segment", () => {
  // git matches a path pattern's literal start, then the rest as a pattern of its own.
  assert.equal(wildmatch("foo**/bar", "foo/x/bar", WM_PATHNAME, 3), true);
  assert.equal(wildmatch("foo**/bar", "foo/x/bar", WM_PATHNAME), false);
});
