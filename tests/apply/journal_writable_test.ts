/**
 * The journal's folder must take writes before a run asks a model
 * anything: a probe leaves nothing behind, a read-only bind mount of
 * `agent-config/` is a set-up error naming it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { checkJournalWritable } from "../../lib/apply/journal.ts";
import { CodeCommitError, EXIT } from "../../lib/errors/errors.ts";
import { IN_CI } from "../support/ci.ts";
import { withProject } from "../support/project.ts";

function mount(...args: string[]): boolean {
  return new Deno.Command("mount", { args, stdout: "null", stderr: "null" }).outputSync().success;
}

Deno.test("a writable agent-config/ passes and keeps nothing of the probe; a missing one is left to the set-up checks", async () => {
  await withProject({ "agent-config/gemini-key.txt": "k\n" }, async (root) => {
    await checkJournalWritable(root);
    assert.deepEqual([...Deno.readDirSync(join(root, "agent-config"))].map((e) => e.name), [
      "gemini-key.txt",
    ]);
  });
  await withProject({ "a.txt": "a\n" }, async (root) => {
    await checkJournalWritable(root); // no agent-config/: not this check's to report
  });
});

Deno.test("a read-only agent-config/ is a set-up error naming the journal's folder", async () => {
  await withProject({ "agent-config/gemini-key.txt": "k\n" }, async (root) => {
    const folder = join(root, "agent-config");
    if (!mount("--bind", folder, folder)) {
      if (IN_CI) throw new Error("cannot bind-mount in CI");
      console.log("skipped: cannot bind-mount here (not root?)");
      return;
    }
    try {
      assert.ok(mount("-o", "remount,bind,ro", folder));
      const error = await checkJournalWritable(root).then(() => undefined, (error) => error);
      assert.ok(error instanceof CodeCommitError);
      assert.equal(error.exitCode, EXIT.setup);
      assert.match(
        error.message,
        /^agent-config\/journal\/ cannot be written \(Read-only file system/,
      );
    } finally {
      new Deno.Command("umount", { args: ["-l", folder] }).outputSync();
    }
  });
});
