import assert from "node:assert/strict";
import { join } from "node:path";
import { checkRepositoryRoot } from "../../lib/preconditions/repository.ts";
import { runGit, withProject } from "../support/project.ts";

const never = () => Promise.reject(new Error("git must not run at a root"));

Deno.test("checkRepositoryRoot: a root (a .git folder or file) passes without running git", async () => {
  await withProject({}, async (root) => {
    await runGit(root, ["init", "-q"]);
    await checkRepositoryRoot(root, true, never);
    await Deno.mkdir(join(root, "worktree"));
    await Deno.writeTextFile(join(root, "worktree/.git"), "gitdir: elsewhere\n");
    await checkRepositoryRoot(join(root, "worktree"), true, never);
  });
});

Deno.test("checkRepositoryRoot: inside a repository (found by the real git) says 'run from <root>'", async () => {
  await withProject({}, async (root) => {
    await runGit(root, ["init", "-q"]);
    await Deno.mkdir(join(root, "a/b"), { recursive: true });
    for (const required of [false, true]) {
      await assert.rejects(
        checkRepositoryRoot(join(root, "a/b"), required),
        new RegExp(
          `^CodeCommitError: ${root}/a/b is inside the git repository ${root}, not at its root: ` +
            `run code-commit from ${root}$`,
        ),
      );
    }
  });
});

Deno.test("checkRepositoryRoot: in no repository, git is needed only when required", async () => {
  const none = () => Promise.resolve(undefined);
  await checkRepositoryRoot("/nowhere/at/all", false, none);
  await assert.rejects(
    checkRepositoryRoot("/nowhere/at/all", true, none),
    /is not a git repository: code-commit needs git.*run git init here first/,
  );
  // git that cannot even start (the folder is gone) finds no repository: no exception of its own.
  await withProject({}, async (root) => {
    await assert.rejects(
      checkRepositoryRoot(join(root, "missing"), true),
      /missing is not a git repository/,
    );
  });
});
