import assert from "node:assert/strict";
import { foldCase } from "../../lib/guard/case_fold.ts";

Deno.test("foldCase folds case, including the characters that upper-case to ASCII", () => {
  assert.equal(foldCase("BUILD.SH"), "build.sh");
  assert.equal(foldCase("codeRollup.\u017fh"), "coderollup.sh"); // long s
  assert.equal(foldCase("Cargo.loc\u212a"), "cargo.lock"); // Kelvin sign
  assert.equal(foldCase(".g\u0131t"), ".git"); // dotless i
  assert.equal(foldCase("Straße"), "strasse");
});

Deno.test("foldCase ignores Unicode normalization and HFS+ ignorable code points", () => {
  assert.equal(foldCase("cafe\u0301"), foldCase("caf\u00e9"));
  assert.equal(foldCase(".g\u200cit"), ".git");
  assert.equal(foldCase("\ufeff.Git\u200d"), ".git");
});

Deno.test("foldCase keeps path separators in place", () => {
  assert.equal(foldCase("Agent-Config/Gemini-Key.txt"), "agent-config/gemini-key.txt");
  assert.equal(foldCase("a/b/c").split("/").length, 3);
});

Deno.test("foldCase leaves ASCII without capitals as it is", () => {
  for (const name of ["src/main.ts", "a\\b_~{}"]) assert.equal(foldCase(name), name);
});
