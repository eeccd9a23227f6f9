/**
 * The snapshot of protected entries around a build, in real folders: what
 * is in it, what counts as new, removed or changed, and what does not.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import {
  checkProtectedAfterBuild,
  type ProtectedSnapshot,
  snapshotProtected,
} from "../../lib/preconditions/protected_entries.ts";
import { scanProject } from "../../lib/sandbox/project_scan.ts";
import { withProject } from "../support/project.ts";

/** What the check after a build names as changed since `before` (`path (change)`), in order. */
async function changes(root: string, before: ProtectedSnapshot): Promise<string[]> {
  try {
    await checkProtectedAfterBuild(root, before, "review");
    return [];
  } catch (error) {
    assert(error instanceof CodeCommitError);
    const named = /^\.\/build\.sh changed protected entries of the project: (.*?);/.exec(
      error.message,
    );
    assert(named !== null, error.message);
    return named[1].split(", ");
  }
}

const FILES = {
  ".gitignore": "/agent-config\n/logs\nnode_modules/\n",
  "build.sh": "#!/bin/sh\n",
  "LLMInstructions.md": "be kind\n",
  "src/.gitignore": "*.tmp\n",
  "src/mod/UserSpecification.md": "spec\n",
  "agent-state/cache/a.md": "spec copy\n",
  "agent-config/gemini-key.txt": "AIza-key\n",
  "logs/run/x.txt": "",
  "node_modules/pkg/.gitignore": "",
};

Deno.test("the snapshot holds the protected entries git reads, agent-state/ whole, not logs/ nor build.sh", async () => {
  await withProject(FILES, async (root) => {
    const real = await Deno.realPath(root);
    const snapshot = await snapshotProtected(await scanProject(real));
    assert.deepEqual([...snapshot.keys()].sort(), [
      ".git",
      ".gitignore",
      "LLMInstructions.md",
      "agent-state",
      "agent-state/cache",
      "agent-state/cache/a.md",
      "src/.gitignore",
      "src/mod/UserSpecification.md",
    ]);
    assert.match(
      snapshot.get(".gitignore")!,
      /^file \d+:\d+ mode 100644 sha256 [0-9a-f]{64}$/,
    );
    assert.match(snapshot.get(".git")!, /^folder /);
  }, { folders: [".git/hooks"] });
});

Deno.test("new, removed and changed entries are named; other files are not", async () => {
  await withProject(FILES, async (root) => {
    const real = await Deno.realPath(root);
    const before = await snapshotProtected(await scanProject(real));
    await Deno.writeTextFile(join(real, "src/main.rs"), "fn main() {}\n");
    await Deno.writeTextFile(join(real, "node_modules/pkg/.gitignore"), "*\n"); // git does not read it
    assert.deepEqual(await changes(real, before), []);
    await Deno.mkdir(join(real, "tests"));
    await Deno.writeTextFile(join(real, "tests/.gitignore"), "conftest.py\n");
    await Deno.remove(join(real, "src/mod/UserSpecification.md"));
    await Deno.writeTextFile(join(real, "agent-state/cache/b.md"), "another\n");
    await Deno.chmod(join(real, "LLMInstructions.md"), 0o600);
    assert.deepEqual(await changes(real, before), [
      "LLMInstructions.md (changed)",
      "agent-state/cache/b.md (new)",
      "src/mod/UserSpecification.md (removed)",
      "tests/.gitignore (new)",
    ]);
  });
});

Deno.test("the same bytes in a new file (a rename over it) is a change; a link's target counts", async () => {
  await withProject(FILES, async (root) => {
    const real = await Deno.realPath(root);
    await Deno.symlink("src/.gitignore", join(real, "x.gitignore"));
    await Deno.symlink("a", join(real, "src/mod/.gitignore"));
    const before = await snapshotProtected(await scanProject(real));
    await Deno.writeTextFile(join(real, "copy"), "*.tmp\n");
    await Deno.rename(join(real, "copy"), join(real, "src/.gitignore"));
    await Deno.remove(join(real, "src/mod/.gitignore"));
    await Deno.symlink("b", join(real, "src/mod/.gitignore"));
    assert.deepEqual(await changes(real, before), [
      "src/.gitignore (changed)",
      "src/mod/.gitignore (changed)",
    ]);
  });
});

Deno.test("checkProtectedAfterBuild: one line, exit 1, a new .git told to be removed first", async () => {
  await withProject(FILES, async (root) => {
    const real = await Deno.realPath(root);
    const before = await snapshotProtected(await scanProject(real));
    await checkProtectedAfterBuild(real, before, "review");
    await Deno.mkdir(join(real, "src/.git"));
    await Deno.writeTextFile(join(real, "src/.git/config"), "[core]\n\tfsmonitor = evil\n");
    await assert.rejects(checkProtectedAfterBuild(real, before, "review it"), (error: unknown) => {
      assert(error instanceof CodeCommitError);
      assert.equal(error.exitCode, 5);
      assert.match(
        error.message,
        /^\.\/build\.sh changed protected entries of the project: src\/\.git \(new\); remove src\/\.git before you run any git command in its folder/,
      );
      assert.match(error.message, /; review it$/);
      assert(!error.message.includes("\n"));
      return true;
    });
  });
});

Deno.test("a protected file that cannot be read is a state too: equal only to itself", async () => {
  await withProject(FILES, async (root) => {
    const real = await Deno.realPath(root);
    await Deno.writeTextFile(join(real, "src/mod/UserSpecification.md"), "x".repeat(5 * 2 ** 20));
    const before = await snapshotProtected(await scanProject(real));
    assert.match(
      before.get("src/mod/UserSpecification.md")!,
      /^large file .* size 5242880/,
    );
    assert.deepEqual(await changes(real, before), []);
    await Deno.writeTextFile(join(real, "src/mod/UserSpecification.md"), "y", { append: true });
    assert.deepEqual(await changes(real, before), ["src/mod/UserSpecification.md (changed)"]);
  });
});
