import assert from "node:assert/strict";
import { join } from "node:path";
import {
  checkRepositoryRoot,
  gitTopLevel,
  repositoryPlace,
} from "../../lib/preconditions/repository.ts";
import { git, withTempDir } from "../guard/helpers.ts";

Deno.test("repositoryPlace: a root (folder or file .git) without running git; inside one; in none", async () => {
  await withTempDir(async (home) => {
    await withTempDir(async (dir) => {
      const root = await Deno.realPath(dir);
      const never = () => Promise.reject(new Error("git must not run at a root"));
      await git(root, home, ["init", "-q"]);
      assert.deepEqual(await repositoryPlace(root, never), { kind: "root" });
      await Deno.mkdir(join(root, "a/b"), { recursive: true });
      assert.deepEqual(await repositoryPlace(join(root, "a/b")), { kind: "inside", root });
      assert.equal(await gitTopLevel(join(root, "a/b")), root);
      await Deno.writeTextFile(join(root, "a/.git"), "gitdir: elsewhere\n");
      assert.deepEqual(await repositoryPlace(join(root, "a"), never), { kind: "root" });
      assert.deepEqual(await repositoryPlace(root, () => Promise.resolve(undefined)), {
        kind: "root",
      });
      await Deno.remove(join(root, ".git"), { recursive: true });
      assert.deepEqual(await repositoryPlace(join(root, "a/b"), () => Promise.resolve(undefined)), {
        kind: "none",
      });
    });
  });
});

Deno.test("checkRepositoryRoot: 'run from <root>' inside a repository; git needed only when required", async () => {
  const inside = () => Promise.resolve("/work/repo");
  const none = () => Promise.resolve(undefined);
  await assert.rejects(
    checkRepositoryRoot("/work/repo/sub", false, inside),
    /^CodeCommitError: \/work\/repo\/sub is inside the git repository \/work\/repo, not at its root: run code-commit from \/work\/repo$/,
  );
  await checkRepositoryRoot("/nowhere/at/all", false, none);
  await assert.rejects(
    checkRepositoryRoot("/nowhere/at/all", true, none),
    /is not a git repository: code-commit needs git/,
  );
});

Deno.test("gitTopLevel never throws: a folder git cannot start in has no repository", async () => {
  await withTempDir(async (dir) => {
    assert.equal(await gitTopLevel(join(dir, "missing")), undefined);
  });
});
