import assert from "node:assert/strict";
import { join } from "node:path";
import { EXIT } from "../../lib/errors/errors.ts";
import { checkRepositoryRoot } from "../../lib/preconditions/repository.ts";
import { withEnv } from "../support/env.ts";
import { runGit, withProject } from "../support/project.ts";

Deno.test("checkRepositoryRoot: a root (a .git folder, or a worktree's .git file) passes", async () => {
  await withProject({}, async (root) => {
    await runGit(root, ["init", "-q"]);
    await runGit(root, ["commit", "-q", "--allow-empty", "-m", "start"]);
    await checkRepositoryRoot(root, true);
    await runGit(root, ["worktree", "add", "-q", join(root, "wt")]);
    assert.match(await Deno.readTextFile(join(root, "wt/.git")), /^gitdir: /);
    await checkRepositoryRoot(join(root, "wt"), true);
  });
});

Deno.test("checkRepositoryRoot: a .git that is no repository (empty folder, broken file) is no root", async () => {
  for (
    const [what, make] of [
      ["an empty .git folder", (sub: string) => Deno.mkdir(join(sub, ".git"))],
      ["a broken .git file", (sub: string) => Deno.writeTextFile(join(sub, ".git"), "broken\n")],
      [
        "a .git file leading nowhere",
        (sub: string) => Deno.writeTextFile(join(sub, ".git"), "gitdir: elsewhere\n"),
      ],
    ] as const
  ) {
    await withProject({}, async (root) => {
      await runGit(root, ["init", "-q"]);
      await Deno.mkdir(join(root, "sub"));
      await make(join(root, "sub"));
      for (const required of [false, true]) {
        await assert.rejects(
          checkRepositoryRoot(join(root, "sub"), required),
          new RegExp(
            `^CodeCommitError: ${root}/sub is inside the git repository ${root}, not at its ` +
              `root: run code-commit from ${root}$`,
          ),
          what,
        );
      }
    });
    // In no repository at all, it makes none.
    await withProject({}, async (root) => {
      await make(root);
      await checkRepositoryRoot(root, false);
      await assert.rejects(checkRepositoryRoot(root, true), /is not a git repository/, what);
    });
  }
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
  // A folder outside any repository, asked of the real git.
  const outside = await Deno.makeTempDir();
  try {
    await checkRepositoryRoot(outside, false);
    await assert.rejects(
      checkRepositoryRoot(outside, true),
      /is not a git repository: code-commit needs git.*run git init here first/,
    );
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
  // git that cannot even start (the folder is gone) finds no repository: no exception of its own.
  await withProject({}, async (root) => {
    await assert.rejects(
      checkRepositoryRoot(join(root, "missing"), true),
      /missing is not a git repository/,
    );
  });
});

Deno.test({
  name:
    "checkRepositoryRoot: a repository git refuses as another user's says so (setup), not 'no repository'",
  async fn() {
    await withProject({}, async (root) => {
      await runGit(root, ["init", "-q"]);
      try {
        await Deno.chown(root, 12345, 12345);
      } catch (error) {
        if (!(error instanceof Deno.errors.PermissionDenied)) throw error;
        console.log("skipped: giving the repository to another user needs root");
        return;
      }
      const error = await withEnv<{ name: string; exitCode: number; message: string } | null>(
        { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
        `const { checkRepositoryRoot } = await import(lib("lib/preconditions/repository.ts"));
        return await checkRepositoryRoot(${JSON.stringify(root)}, true).then(
          () => null,
          (error) => ({ name: error.name, exitCode: error.exitCode, message: error.message }),
        );`,
      );
      assert.ok(error !== null, "no refusal");
      assert.equal(error.name, "CodeCommitError", error.message);
      assert.equal(error.exitCode, EXIT.setup);
      assert.match(
        error.message,
        new RegExp(
          `^git refuses the repository at ${root} because another user owns it.*` +
            `safe\\.directory ${root}$`,
        ),
      );
      await Deno.chown(root, 0, 0);
    });
  },
});
