import assert from "node:assert/strict";
import { assembleCodebase } from "../../lib/context_builder/codebase.ts";
import { IgnoreRules } from "../../lib/guard/ignore_rules.ts";
import { withTempDir, writeFiles } from "../guard/helpers.ts";

Deno.test("assembleCodebase pastes the allowed files in list order, each once, and drops the rest", async () => {
  await withTempDir(async (root) => {
    await writeFiles(root, {
      ".gitignore": "/agent-config\n*.key\n",
      "b.ts": "b\n",
      "src/a.ts": "a",
      "src/empty.ts": "",
      "src/x.key": "secret\n",
      "agent-config/query.txt": "query\n",
    });
    const rules = await IgnoreRules.load(root);
    const codebase = await assembleCodebase(root, [
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

Deno.test("assembleCodebase of no paths is empty", async () => {
  await withTempDir(async (root) => {
    const codebase = await assembleCodebase(root, [], await IgnoreRules.load(root));
    assert.deepEqual(codebase, { text: "", included: [], dropped: [] });
  });
});
