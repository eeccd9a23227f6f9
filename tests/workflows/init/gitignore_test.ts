import assert from "node:assert/strict";
import { planGitignore } from "../../../lib/workflows/init/gitignore.ts";

/** The rules --init makes sure of, and the comment it writes above them (stated apart). */
const INIT_RULES = [
  { line: "/agent-config", folder: "agent-config" },
  { line: "/logs", folder: "logs" },
];
const INIT_COMMENT = "# code-commit: API keys, query and rollup; run logs";
import { runGit, withProject, writeFiles } from "../../support/project.ts";

const BOTH = `${INIT_COMMENT}\n/agent-config\n/logs\n`;

Deno.test("no .gitignore: one with both rules", () => {
  assert.deepEqual(planGitignore(undefined, INIT_RULES), {
    text: BOTH,
    added: ["/agent-config", "/logs"],
  });
  assert.deepEqual(planGitignore("", INIT_RULES).text, BOTH);
});

Deno.test("the user's lines are kept byte for byte; a missing final newline is added", () => {
  assert.equal(planGitignore("node_modules/\n", INIT_RULES).text, `node_modules/\n\n${BOTH}`);
  assert.equal(planGitignore("node_modules/", INIT_RULES).text, `node_modules/\n\n${BOTH}`);
  assert.equal(planGitignore("a\n\n", INIT_RULES).text, `a\n\n${BOTH}`);
  assert.equal(
    planGitignore("# mine\r\ndist\r\n", INIT_RULES).text,
    `# mine\r\ndist\r\n\r\n${INIT_COMMENT}\r\n/agent-config\r\n/logs\r\n`,
  );
});

Deno.test("a rule is never added twice: rules are judged by their meaning", () => {
  for (
    const existing of [
      "/agent-config\n/logs\n",
      "agent-config/\nlogs/\n",
      "/agent-config/*\nlogs\n",
      "*\n",
      "\uFEFF/agent-config\n/logs/**\n",
    ]
  ) {
    assert.deepEqual(planGitignore(existing, INIT_RULES), { text: undefined, added: [] }, existing);
  }
  assert.deepEqual(planGitignore("/agent-config\n", INIT_RULES).added, ["/logs"]);
  assert.deepEqual(planGitignore("logs/\n", INIT_RULES).added, ["/agent-config"]);
  // Only some of agent-config/ ignored, or re-included afterwards, here or in agent-config's own
  // .gitignore: the line is added (last wins, and an ignored folder is never looked into).
  assert.deepEqual(
    planGitignore("/agent-config/*\n/logs\n", INIT_RULES, {
      "agent-config": "!keep.txt\n",
    }).added,
    ["/agent-config"],
  );
  assert.deepEqual(planGitignore("agent-config/*.txt\n/logs\n", INIT_RULES).added, [
    "/agent-config",
  ]);
  assert.deepEqual(
    planGitignore("agent-config/*.txt\n!agent-config/query.txt\n/logs\n", INIT_RULES)
      .added,
    ["/agent-config"],
  );
  assert.deepEqual(planGitignore("/agent-config\n!/agent-config\n/logs\n", INIT_RULES).added, [
    "/agent-config",
  ]);
});

Deno.test("git agrees: after the plan, the keys, the query, the rollup and the logs are ignored", async () => {
  for (const existing of ["", "dist\n", "/agent-config\n!/agent-config\n", "!logs\n*.tmp"]) {
    await withProject({}, async (root) => {
      await runGit(root, ["init", "-q"]);
      const text = planGitignore(existing, INIT_RULES).text ?? existing;
      await writeFiles(root, { ".gitignore": text });
      const paths = [
        "agent-config/gemini-key.txt",
        "agent-config/query.txt",
        "agent-config/codeRollup.txt",
        "agent-config/any-name",
        "logs/2026-01-01-00-00-00-committing-code/1-initial-query.txt",
      ];
      const result = await runGit(
        root,
        ["check-ignore", "--no-index", "--stdin"],
        paths.join("\n"),
      );
      assert.deepEqual(result.stdout.trim().split("\n"), paths, existing);
    });
  }
});
