/**
 * Tests of the decision whether git's rules ignore everything in a top-level
 * folder, on rule texts alone (the agreement with git itself is tested
 * through `checkAgentConfigIgnored` in `preconditions_test.ts`).
 */
import assert from "node:assert/strict";
import { folderCoverage, parseIgnoreRules } from "../../lib/preconditions/ignored_folder.ts";

Deno.test("parseIgnoreRules: reads lines as git does", () => {
  const rules = parseIgnoreRules(
    "# comment\n\n/agent-config/*  \r\n!*.md\n\\!bang\nsub/dir/\nfolder/\nescaped\\ \n",
  );
  assert.deepEqual(
    rules.map((r) => [r.line, r.text, r.negated, r.folderOnly, r.anchored, r.segments]),
    [
      [3, "/agent-config/*", false, false, true, ["agent-config", "*"]],
      [4, "!*.md", true, false, false, ["*.md"]],
      [5, "\\!bang", false, false, false, ["\\!bang"]],
      [6, "sub/dir/", false, true, true, ["sub", "dir"]],
      [7, "folder/", false, true, false, ["folder"]],
      [8, "escaped\\ ", false, false, false, ["escaped\\ "]],
    ],
  );
});

Deno.test("folderCoverage: the folder itself ignored: nothing in it can come back", () => {
  for (const rules of ["/agent-config\n", "agent-config/\n", "*\n", "/agent-?onfig\n"]) {
    assert.deepEqual(
      folderCoverage("agent-config", `${rules}!/agent-config/x\n!*.md\n`, "!*\n"),
      { ignored: true },
      rules,
    );
  }
});

Deno.test("folderCoverage: every entry ignored, and no negation after it that reaches one", () => {
  assert.deepEqual(folderCoverage("agent-config", "/agent-config/*\n", undefined), {
    ignored: true,
  });
  assert.deepEqual(folderCoverage("agent-config", "!*.md\n/agent-config/**\n", "*.tmp\n"), {
    ignored: true,
  });
  assert.deepEqual(
    folderCoverage("agent-config", "/agent-config/*\n!/agent-config/a/b\n!/src/x\n", "!a/b\n"),
    { ignored: true },
  );
  const cases: [string, string | undefined, string, number][] = [
    ["/agent-config/*\n!/agent-config/x\n", undefined, ".gitignore", 2],
    ["/agent-config/*\n# c\n!*.md\n", undefined, ".gitignore", 3],
    ["/agent-config/*\n!/agent-*/x\n", undefined, ".gitignore", 2],
    ["/agent-config/*\n!/agent-config/**/x\n", undefined, ".gitignore", 2], // may: errs to refuse
    ["/agent-config/*\n", "# c\n!key.txt\n", "agent-config/.gitignore", 2],
    ["/agent-config/*\n", "!/key.txt\n", "agent-config/.gitignore", 1],
  ];
  for (const [root, nested, file, line] of cases) {
    const coverage = folderCoverage("agent-config", root, nested);
    assert.ok(!coverage.ignored && coverage.reinclude !== undefined, root);
    assert.deepEqual([coverage.reinclude.file, coverage.reinclude.rule.line], [file, line], root);
  }
});

Deno.test("folderCoverage: no rule ignores the folder or every entry", () => {
  for (
    const rules of [
      "",
      "/agent-config/*-key.txt\n/agent-config/query.txt\n",
      "/agent-config/*.txt\n",
      "/agent-config/*/\n", // folders only
      "/src/agent-config/*\n",
      "/Agent-Config/*\n",
      "!/agent-config/*\n",
      "/agent-config\n!/agent-config\n",
    ]
  ) {
    assert.deepEqual(folderCoverage("agent-config", rules, undefined), { ignored: false }, rules);
  }
});
