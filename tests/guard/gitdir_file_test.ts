/**
 * `.git` files on real git repositories (`git init --separate-git-dir`,
 * `git worktree add`, a nested repository kept beside its folder, a
 * hand-written pointer): which places inside the project they name as
 * git's data, found in every folder git reads; the guard refusing replies
 * and reads there, a nested `.git` file's place as much as the root's.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { findGitFiles, isGitData } from "../../lib/guard/gitdir_file.ts";
import { guardOperations, guardRead } from "../../lib/guard/guard.ts";
import { IgnoreRules } from "../../lib/guard/ignore_rules.ts";
import type { FileOperation } from "../../lib/reply/operations.ts";
import { git, withProject, writeFiles } from "../support/project.ts";

const write = (path: string): FileOperation => ({ kind: "write", path, content: "x\n" });

/**
 * A project whose repository is kept in `.repo/` (`git init
 * --separate-git-dir`), with a committed file, a nested repository `sub/`
 * kept in `../.subrepo`, a hand-written `inner/.git` naming `.inner` (in
 * `inner/`), and a linked worktree `wt/`. Returns the root.
 */
async function gitProject(root: string): Promise<void> {
  await git(root, "init", "-q", "--separate-git-dir", ".repo", ".");
  await writeFiles(root, { ".gitignore": "/agent-config\n/ignored/\n", "src/a.ts": "a\n" });
  await git(root, "add", ".gitignore", "src/a.ts");
  await git(root, "commit", "-q", "-m", "start");
  await Deno.mkdir(join(root, "sub"));
  await git(join(root, "sub"), "init", "-q", "--separate-git-dir", "../.subrepo", ".");
  await writeFiles(root, {
    "sub/lib.ts": "sub\n",
    "inner/.git": "gitdir: .inner\n",
    "inner/.inner/HEAD": "ref: refs/heads/main\n",
    "inner/.inner/config": "[core]\n",
    "inner/main.ts": "inner\n",
    // git reads no `.git` in an ignored folder: nothing it names counts.
    "ignored/x/.git": "gitdir: ../../src\n",
    // A `.git` file naming a place outside the project: nothing to protect here.
    "outside/.git": "gitdir: /tmp\n",
  });
  await git(root, "worktree", "add", "-q", "wt");
}

Deno.test("findGitFiles: every .git file in the folders git reads, and the places inside the project it names", async () => {
  await withProject({}, async (root) => {
    await gitProject(root);
    const found = await findGitFiles(await IgnoreRules.load(root));
    assert.deepEqual(
      found.files.map((f) => `${f.file} -> ${[...f.places].sort().join(", ")}`).sort(),
      [
        ".git -> .repo",
        "inner/.git -> inner/.inner",
        "sub/.git -> .subrepo",
        "wt/.git -> .repo, .repo/worktrees/wt",
      ],
    );
    for (
      const path of [".repo/config", ".subrepo/hooks/pre-commit", "inner/.inner", ".SUBREPO/x"]
    ) {
      assert.ok(isGitData(found, path), path);
    }
    for (const path of [".repository/x", "sub/lib.ts", "inner/main.ts", "src/a.ts", ".subrepo2"]) {
      assert.ok(!isGitData(found, path), path);
    }
  });
});

Deno.test("the guard refuses a reply writing into a nested .git file's gitdir, naming that file", async () => {
  await withProject({}, async (root) => {
    await gitProject(root);
    const result = await guardOperations(root, [
      write(".subrepo/hooks/pre-commit"),
      write(".subrepo/config"),
      write("inner/.inner/hooks/post-checkout"),
      write(".repo/worktrees/wt/HEAD"),
      write("sub/lib.ts"),
      write("inner/main.ts"),
      write("src/b.ts"),
    ]);
    assert.equal(result.ok, false);
    if (result.ok) return;
    const reasons = Object.fromEntries(result.refusals.map((r) => [r.path, r.reason]));
    assert.deepEqual(Object.keys(reasons), [
      ".subrepo/hooks/pre-commit",
      ".subrepo/config",
      "inner/.inner/hooks/post-checkout",
      ".repo/worktrees/wt/HEAD",
    ]);
    assert.match(
      reasons[".subrepo/config"],
      /^is protected: `sub\/\.git` is a file that names `\.subrepo` as git's repository data/,
    );
    assert.match(reasons["inner/.inner/hooks/post-checkout"], /`inner\/\.git` is a file/);
  });
});

Deno.test("guardRead refuses git's data behind a nested .git file, with rules shared across reads", async () => {
  await withProject({}, async (root) => {
    await gitProject(root);
    const rules = await IgnoreRules.load(root);
    assert.match(
      await guardRead(root, ".subrepo/config", rules) ?? "read",
      /^may not be read: `sub\/\.git` is a file that names `\.subrepo`/,
    );
    assert.match(await guardRead(root, "inner/.inner/HEAD", rules) ?? "read", /may not be read/);
    assert.equal(await guardRead(root, "sub/lib.ts", rules), undefined);
    assert.equal(await guardRead(root, "inner/main.ts", rules), undefined);
  });
});
