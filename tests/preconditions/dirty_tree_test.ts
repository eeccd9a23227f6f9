/**
 * The dirty-tree check against real git repositories: what git reports
 * uncommitted, less what no reply may write; outside a repository, a
 * warning. The end-to-end cases (before any LLM call, `--force`) are in
 * `tests/e2e/dirty_tree_test.ts`.
 */
import assert from "node:assert/strict";
import { checkCleanTree } from "../../lib/preconditions/dirty_tree.ts";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import { git, tempProject } from "../support/project.ts";

/** The refusal's message, or the warnings when there was none. */
async function check(root: string): Promise<{ error?: string; warnings: string[] }> {
  const warnings: string[] = [];
  try {
    await checkCleanTree(root, (line) => warnings.push(line));
    return { warnings };
  } catch (error) {
    assert.ok(error instanceof CodeCommitError);
    assert.equal(error.exitCode, 1);
    return { error: error.message, warnings };
  }
}

Deno.test("a clean repository passes silently", async () => {
  await using project = await tempProject({ "src/a.ts": "a\n", ".gitignore": "/agent-config\n" }, {
    git: true,
  });
  await git(project.root, "add", "-A");
  await git(project.root, "commit", "-q", "-m", "start");
  assert.deepEqual(await check(project.root), { warnings: [] });
});

Deno.test("names are read as git writes them with -z: spaces, quotes, non-ASCII, newlines", async () => {
  await using project = await tempProject({ "keep.txt": "k\n" }, { git: true });
  await git(project.root, "add", "-A");
  await git(project.root, "commit", "-q", "-m", "start");
  for (const name of ["with space.ts", 'quo"te.ts', "ünïcødé.ts", "new\nline.ts"]) {
    await project.write(`src/${name}`, "x\n");
  }
  const { error } = await check(project.root);
  assert.ok(error !== undefined);
  assert.match(error, /uncommitted changes in 4 paths/);
  // Shown as every message shows a path: quoted when it holds a space, a quote or a control character.
  assert.ok(error.includes('"src/with space.ts" (untracked)'), error);
  assert.ok(error.includes('"src/quo\\"te.ts" (untracked)'), error);
  assert.ok(error.includes("src/ünïcødé.ts (untracked)"), error);
  assert.ok(error.includes('"src/new\\nline.ts" (untracked)'), error);
  assert.ok(!error.includes("\n"), "one line");
});

Deno.test("a repository with no commit yet: everything not ignored is untracked", async () => {
  await using project = await tempProject({ "src/a.ts": "a\n", ".gitignore": "/agent-config\n" }, {
    git: true,
  });
  const { error } = await check(project.root);
  assert.match(
    error ?? "",
    /uncommitted changes in 1 path a reply could write: src\/a\.ts \(untracked\)/,
  );
});

Deno.test("outside a git repository: a warning, no refusal", async () => {
  await using project = await tempProject({ "src/a.ts": "a\n" });
  const { error, warnings } = await check(project.root);
  assert.equal(error, undefined);
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0],
    /^cannot check for uncommitted changes: it is not a git repository; going on/,
  );
});
