/**
 * A rollback stopped halfway leaves no file the next start does not know
 * of: its temporary files are named from the apply's run, number and path,
 * so recovery removes them. The process "dies" here as a real one would
 * for the files: from one call on, nothing more happens.
 */
import assert from "node:assert/strict";
import { type ApplyFileSystem, applyOperations, denoFileSystem } from "../../lib/apply/apply.ts";
import { RunJournal } from "../../lib/apply/journal.ts";
import { recoverFirst } from "../../lib/apply/recovery.ts";
import { rollbackTemporary } from "../../lib/apply/apply_state.ts";
import { withProject } from "../support/project.ts";

/** Every file under `root` but the journal: path → content. */
function snapshot(root: string, folder = ""): Map<string, string> {
  const result = new Map<string, string>();
  for (const entry of Deno.readDirSync(`${root}/${folder}`)) {
    const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
    if (path === "agent-config") continue;
    if (entry.isDirectory) {
      for (const [inner, text] of snapshot(root, path)) result.set(inner, text);
    } else result.set(path, Deno.readTextFileSync(`${root}/${path}`));
  }
  return result;
}

Deno.test("rollback temporary names are siblings, the same for the same apply and path, and differ between applies", () => {
  const name = rollbackTemporary("run-a", 1, "src/a.txt");
  assert.match(name, /^src\/\.a\.txt\.code-commit-[0-9a-f]{16}\.tmp$/);
  assert.equal(rollbackTemporary("run-a", 1, "src/a.txt"), name);
  assert.notEqual(rollbackTemporary("run-a", 2, "src/a.txt"), name);
  assert.notEqual(rollbackTemporary("run-b", 1, "src/a.txt"), name);
  assert.match(
    rollbackTemporary("run-a", 1, "top.txt"),
    /^\.top\.txt\.code-commit-[0-9a-f]{16}\.tmp$/,
  );
});

Deno.test("a process that dies while its rollback writes leaves temporary files the next start removes", async () => {
  const files = { "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" };
  await withProject(files, async (root) => {
    const before = snapshot(root);
    const state = { phase: "apply" as "apply" | "rollback" | "dead" };
    const dead = <T>() => new Promise<T>(() => {});
    const fs: ApplyFileSystem = {
      ...denoFileSystem,
      rename: (from, to) => {
        if (state.phase === "dead") return dead();
        if (state.phase === "apply" && to.endsWith("c.txt")) {
          state.phase = "rollback";
          return Promise.reject(new Error("injected failure"));
        }
        return denoFileSystem.rename(from, to);
      },
      writeNewFile: async (path, data, mode, onCreated) => {
        if (state.phase === "dead") return dead();
        await denoFileSystem.writeNewFile(path, data, mode, onCreated);
        // The rollback's first temporary file is made: the process dies right after.
        if (state.phase === "rollback") state.phase = "dead";
      },
      remove: (path) => state.phase === "dead" ? dead() : denoFileSystem.remove(path),
      mkdir: (path) => state.phase === "dead" ? dead() : denoFileSystem.mkdir(path),
    };
    const journal = new RunJournal(root, { workflow: "committing code" });
    void applyOperations(root, [
      { kind: "write", path: "a.txt", content: "A\n" },
      { kind: "write", path: "b.txt", content: "B\n" },
      { kind: "write", path: "c.txt", content: "C\n" },
    ], { fs, journal }).catch(() => {});
    for (let i = 0; i < 2_000 && state.phase !== "dead"; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.equal(state.phase, "dead", "the rollback began");
    assert.ok(
      [...snapshot(root).keys()].some((path) => path.includes(".code-commit-")),
      "the rollback's temporary file is there",
    );

    const said: string[] = [];
    assert.equal(await recoverFirst(root, (line) => said.push(line)), true);
    assert.match(said.join("\n"), /so the project is exactly as it was before that apply/);
    assert.deepEqual(snapshot(root), before);
  });
});
