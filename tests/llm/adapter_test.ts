/**
 * Tests of the shared adapter helper `excerpt`, which turns a raw body into
 * one short line for a message.
 */

import assert from "node:assert/strict";
import { excerpt } from "../../lib/llm/adapter.ts";

Deno.test("excerpt flattens white space to single blanks and trims", () => {
  assert.equal(excerpt("  <html>\n  <body>\tBad Gateway\r\n</body>  "), "<html> <body> Bad Gateway </body>");
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
