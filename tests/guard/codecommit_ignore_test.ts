/** Tests of `.codecommitignore`: read from a real project root, matched as one gitignore file. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CodeCommitIgnore } from "../../lib/guard/codecommit_ignore.ts";
import { CodeCommitError, EXIT } from "../../lib/errors/errors.ts";
import { withProject } from "../support/project.ts";

Deno.test("CodeCommitIgnore matches as git matches one .gitignore at the root", () => {
  const rules = CodeCommitIgnore.parse(
    "# lock files\npackage-lock.json\n/vendor/\n*.min.js\n!keep.min.js\ndocs/**/*.pdf\n",
  );
  assert.equal(rules.excludes("package-lock.json"), true);
  assert.equal(
    rules.excludes("sub/package-lock.json"),
    true,
    "a name without / matches at any depth",
  );
  assert.equal(rules.excludes("vendor", true), true);
  assert.equal(rules.excludes("vendor/a/b.js"), true, "below a matched folder");
  assert.equal(rules.excludes("lib/vendor/b.js"), false, "anchored at the root");
  assert.equal(rules.excludes("app.min.js"), true);
  assert.equal(rules.excludes("keep.min.js"), false, "negation re-includes");
  assert.equal(rules.excludes("docs/a/b/c.pdf"), true);
  assert.equal(rules.excludes("index.js"), false);
  assert.equal(CodeCommitIgnore.NONE.excludes("anything"), false);
});

Deno.test("CodeCommitIgnore.load: none when missing; refuses a symbolic link with exit 3", async () => {
  await withProject({ "elsewhere.txt": "index.js\n" }, async (root) => {
    assert.equal(await CodeCommitIgnore.load(root), CodeCommitIgnore.NONE);
    await Deno.writeTextFile(join(root, ".codecommitignore"), "index.js\n");
    assert.equal((await CodeCommitIgnore.load(root)).excludes("index.js"), true);
    await Deno.remove(join(root, ".codecommitignore"));
    await Deno.symlink("elsewhere.txt", join(root, ".codecommitignore"));
    const error = await CodeCommitIgnore.load(root).then(() => undefined, (e) => e);
    assert(error instanceof CodeCommitError, String(error));
    assert.equal(error.exitCode, EXIT.setup);
    assert.match(error.message, /^\.codecommitignore is a symbolic link/);
  });
});
