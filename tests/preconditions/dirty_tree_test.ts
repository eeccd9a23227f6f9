/**
 * The dirty-tree check against real git repositories: what git reports
 * uncommitted, less what no reply may write; outside a repository, a
 * warning; a `git status` that fails in a repository, a refusal; no
 * filter runs. The end-to-end cases (before any LLM call, `--force`) are in
 * `tests/e2e/dirty_tree_test.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { checkCleanTree } from "../../lib/preconditions/dirty_tree.ts";
import { CodeCommitError, EXIT } from "../../lib/errors/errors.ts";
import { git, tempProject } from "../support/project.ts";
import { withEnv } from "../support/env.ts";

/** The refusal's message, or the warnings when there was none. */
async function check(root: string): Promise<{ error?: string; warnings: string[] }> {
  const warnings: string[] = [];
  try {
    await checkCleanTree(root, (line) => warnings.push(line));
    return { warnings };
  } catch (error) {
    assert.ok(error instanceof CodeCommitError);
    assert.equal(error.exitCode, 3);
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

Deno.test("a git status that fails in a repository refuses the run (setup), naming it and --force", async () => {
  await using project = await tempProject({ "src/mine.txt": "mine\n" }, { git: true });
  await git(project.root, "add", "-A");
  await git(project.root, "commit", "-q", "-m", "start");
  await project.write(".git/index", "not an index at all, longer than a header\n");
  const warnings: string[] = [];
  const error = await checkCleanTree(project.root, (line) => warnings.push(line)).then(
    () => undefined,
    (error) => error,
  );
  assert.deepEqual(warnings, [], "no 'going on' warning");
  assert.ok(error instanceof CodeCommitError, String(error));
  assert.equal(error.exitCode, EXIT.setup);
  assert.match(
    error.message,
    /^git status failed in .* \(error: bad signature 0x[0-9a-f]+\), so code-commit cannot tell whether you have uncommitted changes.*run git status yourself.*--force/,
  );
  assert.ok(!error.message.includes("\n"), "one line");
});

Deno.test("the check runs no filter: git-lfs planted in .venv/bin, first on PATH, never runs", async () => {
  await using project = await tempProject({ "src/a.txt": "a\n" }, { git: true });
  await project.write(".gitattributes", "*.txt filter=lfs\n");
  await git(project.root, "add", "-A");
  await git(project.root, "commit", "-q", "-m", "start");
  const marker = join(project.root, "leaked.txt");
  await project.write(".venv/bin/git-lfs", `#!/bin/sh\necho key > '${marker}'\ncat\n`);
  await Deno.chmod(join(project.root, ".venv/bin/git-lfs"), 0o755);
  await project.write(".gitignore", "/.venv\n/home\n");
  await git(project.root, "add", ".gitignore");
  await git(project.root, "commit", "-q", "-m", "ignore");
  await project.write(
    "home/.gitconfig",
    '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tprocess = git-lfs filter-process\n' +
      "\trequired = true\n",
  );
  const later = new Date(Date.now() + 5_000);
  await Deno.utime(join(project.root, "src/a.txt"), later, later); // git reads it (and filters it)
  const result = await withEnv(
    {
      HOME: join(project.root, "home"),
      XDG_CONFIG_HOME: undefined,
      GIT_CONFIG_GLOBAL: undefined,
      PATH: `${join(project.root, ".venv/bin")}:${Deno.env.get("PATH")}`,
    },
    `const { checkCleanTree } = await import(lib("lib/preconditions/dirty_tree.ts"));
  const warnings: string[] = [];
  try {
    await checkCleanTree(${JSON.stringify(project.root)}, (line: string) => warnings.push(line));
    return { warnings };
  } catch (error) {
    return { error: (error as Error).message, warnings };
  }`,
  );
  assert.equal(await project.exists("leaked.txt"), false, "the planted git-lfs ran");
  assert.deepEqual(result, { warnings: [] });
});

Deno.test("git's data behind a .git file, which git lists as untracked, is not uncommitted work", async () => {
  await using project = await tempProject();
  const root = project.root;
  await Deno.remove(join(root, ".git"), { recursive: true }).catch(() => {});
  await git(root, "init", "-q", "--separate-git-dir", ".repo", ".");
  await project.write(".gitignore", "/agent-config\n");
  await project.write("src/a.ts", "a\n");
  await Deno.mkdir(join(root, "sub"));
  // A nested repository kept in `../.subrepo`, recorded in the outer one as a submodule is.
  await git(join(root, "sub"), "init", "-q", "--separate-git-dir", "../.subrepo", ".");
  await project.write("sub/c.ts", "c\n");
  await git(join(root, "sub"), "add", "c.ts");
  await git(join(root, "sub"), "commit", "-q", "-m", "sub");
  await git(root, "add", ".gitignore", "src", "sub");
  await git(root, "commit", "-q", "-m", "start");
  // git itself lists them: `.repo/HEAD`, `.subrepo/config`, ...
  assert.match(
    await git(root, "status", "--porcelain", "--untracked-files=all"),
    /\?\? \.repo\/HEAD/,
  );
  assert.deepEqual(await check(root), { warnings: [] });
  // Work of the user's next to it still counts.
  await project.write("src/b.ts", "b\n");
  const { error } = await check(root);
  assert.match(
    error ?? "",
    /uncommitted changes in 1 path a reply could write: src\/b\.ts \(untracked\)/,
  );
});
