import assert from "node:assert/strict";
import { joinPrompt, section } from "../../lib/prompts/layout.ts";

Deno.test("a section is a [label] line, then the text", () => {
  assert.equal(section("query", "q\n"), "[query]\nq\n");
  assert.equal(section("build.sh output", ""), "[build.sh output]\n");
});

Deno.test("parts are joined by one blank line, each ending with a newline", () => {
  assert.equal(joinPrompt(["a", "b\n", "c"]), "a\n\nb\n\nc\n");
  assert.equal(joinPrompt([]), "");
});
