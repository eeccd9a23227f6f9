import assert from "node:assert/strict";
import { join } from "node:path";
import { assembleChosenFiles } from "../../lib/context_builder/chosen_files.ts";
import { IgnoreRules } from "../../lib/guard/ignore_rules.ts";
import { withProject, writeFiles } from "../support/project.ts";

/** The largest file a prompt shows: 1 MiB. */
const MAX_FILE_BYTES = 1024 * 1024;

Deno.test("assembleChosenFiles pastes the allowed files in list order, each once, and drops the rest", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, {
      ".gitignore": "/agent-config\n*.key\n",
      "b.ts": "b\n",
      "src/a.ts": "a",
      "src/empty.ts": "",
      "src/x.key": "secret\n",
      "agent-config/query.txt": "query\n",
    });
    const rules = await IgnoreRules.load(root);
    const codebase = await assembleChosenFiles(root, [
      "src/a.ts",
      "src/x.key",
      "b.ts",
      "./src/a.ts",
      "agent-config/query.txt",
      "src/empty.ts",
      "../b.ts",
      "nope.ts",
    ], rules);
    assert.equal(codebase.text, "--- src/a.ts ---\na\n--- b.ts ---\nb\n--- src/empty.ts ---\n");
    assert.deepEqual(codebase.included, ["src/a.ts", "b.ts", "src/empty.ts"]);
    assert.deepEqual(codebase.dropped.map((drop) => drop.path), [
      "src/x.key",
      "agent-config/query.txt",
      "../b.ts",
      "nope.ts",
    ]);
    assert.match(codebase.dropped[0].reason, /is ignored by \.gitignore: the rule `\*\.key`/);
    assert.match(codebase.dropped[1].reason, /may not be read/);
    assert.match(codebase.dropped[2].reason, /`\.\.` segment/);
    assert.match(codebase.dropped[3].reason, /does not exist/);
  });
});

Deno.test("assembleChosenFiles of no paths is empty", async () => {
  await withProject({}, async (root) => {
    const codebase = await assembleChosenFiles(root, [], await IgnoreRules.load(root));
    assert.deepEqual(codebase, { text: "", included: [], dropped: [] });
  });
});

Deno.test("assembleChosenFiles names a binary or oversized file with a note instead of its content", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, { "a.ts": "a\n" });
    await Deno.writeFile(join(root, "logo.png"), new Uint8Array([0x89, 0x50, 0, 1]));
    await Deno.writeFile(join(root, "big.txt"), new Uint8Array(MAX_FILE_BYTES + 1).fill(0x61));
    const rules = await IgnoreRules.load(root);
    const codebase = await assembleChosenFiles(
      root,
      ["logo.png", "a.ts", "big.txt", "./logo.png"],
      rules,
    );
    assert.equal(
      codebase.text,
      "--- logo.png ---\n(its content is not shown: it is a binary file (it holds NUL bytes))\n" +
        "--- a.ts ---\na\n" +
        "--- big.txt ---\n(its content is not shown: it is 1.0 MiB, more than the 1 MiB a file " +
        "may have in a prompt)\n",
    );
    assert.deepEqual(codebase.included, ["a.ts"]);
    assert.deepEqual(codebase.dropped.map((drop) => drop.path), ["logo.png", "big.txt"]);
  });
});
