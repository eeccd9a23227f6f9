/** Tests of the context budget: the shares of a codebase, the check. */
import assert from "node:assert/strict";
import { checkPromptBudget, codebaseShares, describeLargest } from "../../lib/llm/budget.ts";
import { tokensOfBytes, utf8Length } from "../../lib/text/tokens.ts";
import { CodeCommitError, EXIT } from "../../lib/errors/errors.ts";

Deno.test("utf8Length counts UTF-8 bytes as TextEncoder does", () => {
  for (const text of ["", "abc", "é", "€uro", "😀 a", "\ud800 lone", "a\udc00", "日本語\n"]) {
    assert.equal(utf8Length(text), new TextEncoder().encode(text).length, JSON.stringify(text));
  }
  assert.equal(tokensOfBytes(4_000), 1_000);
});

Deno.test("codebaseShares: files and top-level folders, largest first, with their shares", () => {
  const text = "code-commit --rollup: mark line\n" +
    "--- node_modules/a/index.js ---\n" + "a".repeat(6_000) + "\n" +
    "--- node_modules/b/index.js ---\n" + "b".repeat(2_000) + "\n" +
    "--- src/main.ts ---\n" + "c".repeat(1_000) + "\n" +
    "--- package-lock.json ---\n" + "d".repeat(1_000) + "\n" +
    "--- FILENAMES ---\nsrc/x.ts\n--- END FILENAMES ---\n";
  const shares = codebaseShares(text, 3);
  assert.deepEqual(shares.folders.map((s) => s.path), ["node_modules/", "src/"]);
  assert.deepEqual(shares.files.map((s) => s.path), [
    "node_modules/a/index.js",
    "node_modules/b/index.js",
    "package-lock.json",
  ]);
  assert(shares.folders[0].share > 0.79 && shares.folders[0].share < 0.81);
  assert.match(
    describeLargest(text),
    /^the largest folders of the codebase: node_modules\/ 80 %, src\/ 10 %; the largest files: node_modules\/a\/index\.js 60 %/,
  );
  assert.equal(describeLargest("no blocks at all"), "");
  const summary = "=== Project Root ===\n--- FILENAMES ---\nindex.js\n" +
    Array.from({ length: 50 }, (_, i) => `node_modules/p${i}/index.js\n`).join("") +
    "--- END FILENAMES ---\n\n=== lib ===\n--- FILENAMES ---\nlib/a.js\n--- END FILENAMES ---\n";
  assert.match(
    describeLargest(summary),
    /^the largest folders of the codebase: node_modules\/ 99 %, lib\/ 1 %;/,
  );
});

Deno.test("checkPromptBudget: within the limit passes; past it, exit 3 naming the largest parts", () => {
  const prompt = "--- vendor/big.js ---\n" + "x".repeat(8_000) + "\n--- a.js ---\nx\n";
  checkPromptBudget(prompt, { model: "m", inputLimit: 3_000, local: false });
  let error: unknown;
  try {
    checkPromptBudget(prompt, { model: "local:tiny", inputLimit: 1_000, local: true });
  } catch (caught) {
    error = caught;
  }
  assert(error instanceof CodeCommitError);
  assert.equal(error.exitCode, EXIT.setup);
  assert.match(
    error.message,
    /^the prompt for local:tiny is about 2,0\d\d tokens, more than the 1,000/,
  );
  assert.match(error.message, /vendor\/ 100 %/);
  assert.match(error.message, /\.codecommitignore/);
  assert.match(error.message, /--context-window TOKENS/);
});

Deno.test("codebaseShares: a `--- x ---` line of a file's own text, x no path, stays in that file", () => {
  // As glob's README shows its patterns: lines no rollup header could be.
  const readme = "# glob\n" +
    Array.from({ length: 40 }, (_, i) => `--- pattern: './**/${i}/**/*.txt' ---\n~~~\n`).join("");
  const text = "--- node_modules/glob/README.md ---\n" + readme +
    "--- src/main.ts ---\n" + "c".repeat(100) + "\n";
  const shares = codebaseShares(text);
  assert.deepEqual(shares.folders.map((s) => s.path), ["node_modules/", "src/"]);
  assert.deepEqual(shares.files.map((s) => s.path), ["node_modules/glob/README.md", "src/main.ts"]);
  assert.equal(
    shares.files[0].tokens,
    tokensOfBytes(utf8Length(`--- node_modules/glob/README.md ---\n${readme}`)),
  );
});
