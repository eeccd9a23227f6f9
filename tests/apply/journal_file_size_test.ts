/**
 * The journal under a file size limit (`ulimit -f`), in a real subprocess:
 * keeping a copy of an old file larger than the limit fails with one line
 * naming the journal's file, and nothing is changed (never a silent death
 * by SIGXFSZ).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { ownDenoDir } from "../support/deno_dir.ts";
import { withProject } from "../support/project.ts";

const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Replaces `big.txt` in the project at the argument's path, through the run's journal. */
const SCRIPT = `
import { applyOperations } from "${TOOL_ROOT}lib/apply/apply.ts";
import { RunJournal } from "${TOOL_ROOT}lib/apply/journal.ts";
import { reportOversizeWrites } from "${TOOL_ROOT}lib/cli/signals.ts";
reportOversizeWrites();
const root = Deno.args[0];
try {
  await applyOperations(root, [{ kind: "write", path: "big.txt", content: "small\\n" }], {
    journal: new RunJournal(root, { workflow: "committing code" }),
  });
  console.log("applied");
} catch (error) {
  console.log(error.message);
}
`;

Deno.test("a copy of an old file past the file size limit: one line naming the journal's file, nothing changed", async () => {
  const big = "b".repeat(17 * 1024 * 1024);
  await withProject({ "big.txt": big }, async (root) => {
    const script = `${root}/../code-commit-limit-${crypto.randomUUID()}.ts`;
    await Deno.writeTextFile(script, SCRIPT);
    try {
      // Deno writes its own caches as it starts and ends: a cache folder of its own keeps them
      // small.
      await using denoDir = await ownDenoDir();
      const output = await new Deno.Command("sh", {
        env: { DENO_DIR: denoDir.path },
        args: [
          "-c",
          `ulimit -f ${16 * 1024} && exec "$@"`,
          "sh",
          Deno.execPath(),
          "run",
          "--quiet",
          "--cached-only",
          "--config",
          `${TOOL_ROOT}deno.json`,
          "-A",
          script,
          root,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stdout = new TextDecoder().decode(output.stdout);
      assert.equal(output.code, 0, `killed (${output.signal ?? output.code}): ${stdout}`);
      assert.match(
        stdout,
        /^could not write "big\.txt": cannot record what the reply's paths hold in agent-config\/journal\/apply-1\.first: File too large \(os error 27\)\. Every change already made by this reply was rolled back: the project is exactly as it was before\. .*\n$/,
      );
      assert.equal(await Deno.readTextFile(`${root}/big.txt`), big);
    } finally {
      await Deno.remove(script);
    }
  });
});
