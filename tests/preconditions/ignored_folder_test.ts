/**
 * Tests of the decision whether git's rules ignore everything in a top-level
 * folder, on rule texts alone (the agreement with git itself is tested
 * through `checkAgentConfigIgnored` in `preconditions_test.ts`).
 */
import assert from "node:assert/strict";
import { folderCoverage } from "../../lib/preconditions/ignored_folder.ts";

Deno.test("folderCoverage reads the lines as git does: comments, CR, spaces, escapes, slashes", () => {
  const reinclude = (root: string) => {
    const coverage = folderCoverage("agent-config", root, undefined);
    return coverage.ignored ? undefined : coverage.reinclude?.rule;
  };
  assert.deepEqual(reinclude("# comment\n\n/agent-config/*  \r\n!*.md\n"), {
    line: 4,
    written: "!*.md",
    rule: "!*.md",
    negated: true,
    mustBeFolder: false,
    nameOnly: true,
    pattern: "*.md",
  });
  assert.deepEqual(reinclude("/agent-config/*\n!/agent-config/keep/\n"), {
    line: 2,
    written: "!/agent-config/keep/",
    rule: "!/agent-config/keep/",
    negated: true,
    mustBeFolder: true,
    nameOnly: false,
    pattern: "agent-config/keep",
  });
  assert.deepEqual(reinclude("/agent-config/*\n!kept\\ \n"), {
    line: 2,
    written: "!kept\\ ",
    rule: "!kept\\ ",
    negated: true,
    mustBeFolder: false,
    nameOnly: true,
    pattern: "kept\\ ",
  });
  // An escaped `!` starts a literal name, not a negation; a folder-only rule covers no file.
  assert.deepEqual(folderCoverage("agent-config", "/agent-config/*\n\\!bang\n", undefined), {
    ignored: true,
  });
  assert.deepEqual(folderCoverage("agent-config", "/agent-config/*/\n", undefined), {
    ignored: false,
  });
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

Deno.test("folderCoverage reads lines with the matcher's reader: an empty negation, a NUL, an escaped backslash", () => {
  const reinclude = (root: string) => {
    const coverage = folderCoverage("agent-config", root, undefined);
    return coverage.ignored ? undefined : coverage.reinclude?.rule.rule;
  };
  // `!` alone has an empty pattern, which git keeps to no effect: it re-includes nothing.
  assert.equal(reinclude("/agent-config/*\n!\n"), undefined);
  // git cuts a line at a NUL.
  assert.equal(reinclude("/agent-config/*\n!kept\0 more\n"), "!kept");
  // `\\` is an escaped backslash, so the space after it is not escaped and is dropped.
  assert.equal(reinclude("/agent-config/*\n!a\\\\ \n"), "!a\\\\");
});
