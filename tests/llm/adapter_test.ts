/**
 * Tests of the shared adapter helpers: `oneLine`, which puts an API's
 * message on one line, and `excerpt`, which turns a raw body into one short
 * line for a message.
 */

import assert from "node:assert/strict";
import { excerpt, oneLine } from "../../lib/llm/adapter.ts";

Deno.test("excerpt flattens white space to single blanks and trims", () => {
  assert.equal(
    excerpt("  <html>\n  <body>\tBad Gateway\r\n</body>  "),
    "<html> <body> Bad Gateway </body>",
  );
});

Deno.test("excerpt keeps a short text whole and cuts a long one with an ellipsis", () => {
  assert.equal(excerpt("x".repeat(300)), "x".repeat(300));
  assert.equal(excerpt("x".repeat(301)), `${"x".repeat(300)}…`);
  assert.equal(excerpt("abcdef", 3), "abc…");
});

Deno.test("excerpt of nothing is empty", () => {
  assert.equal(excerpt(""), "");
  assert.equal(excerpt(" \n\t "), "");
});

Deno.test("oneLine turns every run of white space into one blank, whatever its length", () => {
  assert.equal(
    oneLine("Quota exceeded.\n* metric: x\r\n\tPlease retry in 57s.  "),
    "Quota exceeded. * metric: x Please retry in 57s.",
  );
  const long = "word ".repeat(500);
  assert.equal(oneLine(long), long.trim(), "never shortened");
  assert.equal(oneLine("\u2028a\u00a0b\n"), "a b", "Unicode line and no-break spaces too");
  assert.equal(oneLine(""), "");
});
