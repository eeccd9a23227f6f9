import assert from "node:assert/strict";
import { plural } from "../../lib/text/plural.ts";

Deno.test("exactly one takes the singular, every other count the plural", () => {
  assert.equal(plural(1, "LLM call"), "1 LLM call");
  assert.equal(plural(0, "LLM call"), "0 LLM calls");
  assert.equal(plural(2, "file"), "2 files");
  assert.equal(plural(2000, "file"), "2,000 files");
});

Deno.test("an irregular plural is given", () => {
  assert.equal(plural(1, "repair"), "1 repair");
  assert.equal(plural(3, "is", "are"), "3 are");
});
