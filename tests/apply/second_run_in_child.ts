/**
 * A child for `journal_runs_test.ts`, in the project given as the second
 * argument (whose journal holds a previous run): `apply` applies one reply
 * as a new run, writing `a.txt` and `b.txt`; `recover` runs the start's
 * recovery. The test kills it under `strace` at a chosen rename of the
 * journal's pending header.
 */
import { applyOperations } from "../../lib/apply/apply.ts";
import { RunJournal } from "../../lib/apply/journal.ts";
import { recoverFirst } from "../../lib/apply/recovery.ts";

const [mode, root] = Deno.args;
if (mode === "apply") {
  const journal = new RunJournal(root, { workflow: "auto workflow" });
  await applyOperations(root, [
    { kind: "write", path: "a.txt", content: "a2\n" },
    { kind: "write", path: "b.txt", content: "b2\n" },
  ], { journal });
} else {
  await recoverFirst(root, () => {});
}
console.log("done");
