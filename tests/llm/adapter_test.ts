/**
 * Tests of the shared adapter helpers: `oneLine`, which puts an API's
 * message on one line, and `excerpt`, which turns a raw body into one short
 * line for a message, and `httpReason`, which names an error answer's
 * status once.
 */

import assert from "node:assert/strict";
import { excerpt, httpReason, oneLine } from "../../lib/llm/adapter.ts";

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

Deno.test("httpReason names the status once, dropping the message's own repetition of it", () => {
  assert.equal(httpReason(500, "500: model failed"), "HTTP 500 model failed");
  assert.equal(httpReason(500, "500 Internal Server Error"), "HTTP 500 Internal Server Error");
  assert.equal(httpReason(500, " 500 "), "HTTP 500");
  assert.equal(
    httpReason(503, "UNAVAILABLE: The model\nis overloaded."),
    "HTTP 503 UNAVAILABLE: The model is overloaded.",
  );
  // Only the status itself at the start: another number stays.
  assert.equal(httpReason(500, "5000 tokens is too many"), "HTTP 500 5000 tokens is too many");
  assert.equal(httpReason(500, "500.5 is odd"), "HTTP 500 500.5 is odd");
  assert.equal(httpReason(429, "500: wrong status"), "HTTP 429 500: wrong status");
});
