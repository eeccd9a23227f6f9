/**
 * Signals are handled before any recovery starts: a SIGTERM that lands
 * while `--init` or `--rollup` rolls back an apply a killed run left
 * unfinished does not stop the rollback halfway; the run ends with exit 130
 * once the project is whole again.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ApplyOperation, applyOperations } from "../../lib/apply/apply.ts";
import { RunJournal } from "../../lib/apply/journal.ts";
import { recoverFirst } from "../../lib/apply/recovery.ts";
import { EXIT } from "../../lib/errors/errors.ts";
import { makeProject } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";

const FILES = 1_500;

/** Leaves in `root` an apply of {@link FILES} new files, all written, never marked complete. */
async function leaveUnfinishedApply(root: string): Promise<void> {
  const operations: ApplyOperation[] = Array.from({ length: FILES }, (_, i) => ({
    kind: "write",
    path: `src/made/d${i % 20}/f${i}.txt`,
    content: `${i}\n`.repeat(50),
  }));
  const journal = new RunJournal(root, { workflow: "code-commit" });
  const begin = journal.begin.bind(journal);
  let written = () => {};
  const allWritten = new Promise<void>((resolve) => (written = resolve));
  journal.begin = async () => {
    const recorder = await begin();
    return {
      add: (path, image) => recorder.add(path, image),
      commit: (plan) => recorder.commit(plan),
      preImage: (path) => recorder.preImage(path),
      complete: () => {
        written();
        return new Promise<void>(() => {}); // killed before the completion mark
      },
      discard: () => recorder.discard(),
    };
  };
  void applyOperations(root, operations, { journal });
  await allWritten;
}

for (const workflow of ["--init", "--rollup"]) {
  Deno.test({
    name: `${workflow}: a SIGTERM during the rollback of an unfinished apply does not stop it`,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      await using project = await makeProject();
      await leaveUnfinishedApply(project.root);
      const first = join(project.root, "src/made/d0/f0.txt");
      let sent = false;
      const run = await runTool(project.root, [workflow], {
        onSpawn(child) {
          // As soon as the rollback has removed its first file, SIGTERM.
          const look = () => {
            try {
              Deno.lstatSync(first);
              setTimeout(look, 1);
            } catch {
              sent = true;
              child.kill("SIGTERM");
            }
          };
          look();
        },
      });
      assert.ok(sent, run.stderr);
      assert.equal(run.code, EXIT.interrupted, run.stderr);
      assert.match(run.stderr, /recovered from an interrupted apply/);
      // The rollback is whole: nothing left to recover, no file of the apply left.
      const lines: string[] = [];
      await recoverFirst(project.root, (line) => lines.push(line));
      assert.deepEqual(lines, []);
      assert.equal(await project.exists("src/made"), false);
    },
  });
}
