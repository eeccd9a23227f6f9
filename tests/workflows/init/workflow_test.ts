import assert from "node:assert/strict";
import { join } from "node:path";
import { Console } from "../../../lib/console/console.ts";
import { BUILD_PLACEHOLDER_LINE } from "../../../lib/preconditions/preconditions.ts";
import { runInit } from "../../../lib/workflows/init/workflow.ts";
import { memoryStreams } from "../../support/console.ts";
import { type Files, runGit, withProject } from "../../support/project.ts";

const STARTER = "agent-config/starter-build.sh";

/** Runs `--init` in a new repository holding `files`: the starter build script and what it printed. */
async function initStarter(
  files: Record<string, string>,
  body: (starter: { script: string; printed: string; root: string }) => Promise<void> | void,
): Promise<void> {
  await withProject(files, async (root) => {
    const streams = memoryStreams();
    await runInit(root, new Console(streams), false);
    const script = await Deno.readTextFile(join(root, STARTER));
    await body({ script, printed: streams.out.join(""), root });
  }, { git: true });
}

/** The lines of a script that run something. */
function runLines(script: string): string[] {
  return script.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
}

Deno.test("an npm project's starter runs npm test only for a real test script", async () => {
  const cases: [string, boolean][] = [
    ['{"scripts":{"test":"mocha"}}', true],
    ['{"scripts":{"test":"echo \\"Error: no test specified\\" && exit 1"}}', false],
    ['{"scripts":{"build":"tsc"}}', false],
    ['{"scripts":{"test":""}}', false],
    ['{"scripts":{"test":3}}', false],
    ["{}", false],
    ["[1]", false],
    ["not json", false],
  ];
  for (const [packageJson, runsNpm] of cases) {
    await initStarter({ "package.json": packageJson }, ({ script }) => {
      assert.equal(runLines(script).includes("npm test"), runsNpm, packageJson);
    });
  }
});

Deno.test("the starter runs each kind's commands, in a fixed order", async () => {
  const npm = { "package.json": '{"scripts":{"test":"mocha"}}' };
  const cases: [Record<string, string>, string[]][] = [
    [npm, ["npm test"]],
    [{ "deno.json": "{}" }, ["deno test"]],
    [{ "Cargo.toml": "" }, ["cargo build", "cargo test"]],
    [{ "go.mod": "module x\n" }, ["go build ./...", "go test ./..."]],
    [{ "pyproject.toml": "" }, ["python3 -m pytest"]],
    [{ "pyproject.toml": "", ...npm }, ["npm test", "python3 -m pytest"]],
  ];
  for (const [files, commands] of cases) {
    const kinds = Object.keys(files).join();
    await initStarter(files, ({ script, printed }) => {
      assert(script.startsWith("#!/bin/sh\n"), kinds);
      assert.match(script, /\nset -e\n/);
      assert.deepEqual(runLines(script), ["set -e", 'cd "$(dirname "$0")"', ...commands], kinds);
      assert(!script.includes(BUILD_PLACEHOLDER_LINE));
      assert(printed.includes(`(it runs ${commands.join(", then ")})`), printed);
    });
  }
});

Deno.test("with nothing recognised, the starter says what to put in it and fails", async () => {
  await initStarter({}, async ({ script, root }) => {
    assert(script.includes(BUILD_PLACEHOLDER_LINE));
    const output = await new Deno.Command(join(root, STARTER), { stderr: "piped", stdout: "piped" })
      .output();
    assert.equal(output.code, 1);
    assert.equal(
      new TextDecoder().decode(output.stderr),
      "build.sh: put your project's build and test commands in build.sh\n",
    );
  });
});

Deno.test("the npm starter really runs the project's test script", async () => {
  if ((await new Deno.Command("sh", { args: ["-c", "command -v npm"] }).output()).code !== 0) {
    return; // No npm here: the script's text is checked above.
  }
  const packageJson = JSON.stringify({
    name: "x",
    version: "1.0.0",
    scripts: { test: "node -e \"console.log('tested')\"" },
  });
  await initStarter({ "package.json": packageJson }, async ({ root }) => {
    const output = await new Deno.Command(join(root, STARTER), { stdout: "piped", stderr: "piped" })
      .output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    assert.match(new TextDecoder().decode(output.stdout), /tested/);
  });
});

/** The comment --init writes above its rules (stated apart), and both rules under it. */
const INIT_COMMENT = "# code-commit: API keys, query and rollup; run logs";
const BOTH = `${INIT_COMMENT}\n/agent-config\n/logs\n`;

/** Runs `--init` in a new repository holding `files` and `existing` as `.gitignore`: its text after. */
async function initGitignore(existing: string | undefined, files: Files = {}): Promise<string> {
  const all = existing === undefined ? files : { ...files, ".gitignore": existing };
  return await withProject(all, async (root) => {
    await runInit(root, new Console(memoryStreams()), false);
    return await Deno.readTextFile(join(root, ".gitignore"));
  }, { git: true });
}

Deno.test("no .gitignore: one with both rules", async () => {
  assert.equal(await initGitignore(undefined), BOTH);
  assert.equal(await initGitignore(""), BOTH);
});

Deno.test("the user's lines are kept byte for byte; a missing final newline is added", async () => {
  assert.equal(await initGitignore("node_modules/\n"), `node_modules/\n\n${BOTH}`);
  assert.equal(await initGitignore("node_modules/"), `node_modules/\n\n${BOTH}`);
  assert.equal(await initGitignore("a\n\n"), `a\n\n${BOTH}`);
  assert.equal(
    await initGitignore("# mine\r\ndist\r\n"),
    `# mine\r\ndist\r\n\r\n${INIT_COMMENT}\r\n/agent-config\r\n/logs\r\n`,
  );
});

Deno.test("a rule is never added twice: rules are judged by their meaning", async () => {
  for (
    const existing of [
      "/agent-config\n/logs\n",
      "agent-config/\nlogs/\n",
      "/agent-config/*\nlogs\n",
      "*\n",
      "\uFEFF/agent-config\n/logs/**\n",
    ]
  ) {
    assert(!(await initGitignore(existing)).includes(INIT_COMMENT), existing);
  }
  const added = (existing: string, line: string) => `${existing}\n${INIT_COMMENT}\n${line}\n`;
  assert.equal(await initGitignore("/agent-config\n"), added("/agent-config\n", "/logs"));
  assert.equal(await initGitignore("logs/\n"), added("logs/\n", "/agent-config"));
  // Only some of agent-config/ ignored, or re-included afterwards, here or in agent-config's own
  // .gitignore: the line is added (last wins, and an ignored folder is never looked into).
  for (
    const [existing, files] of [
      ["/agent-config/*\n/logs\n", { "agent-config/.gitignore": "!keep.txt\n" }],
      ["agent-config/*.txt\n/logs\n", {}],
      ["agent-config/*.txt\n!agent-config/query.txt\n/logs\n", {}],
      ["/agent-config\n!/agent-config\n/logs\n", {}],
    ] as const
  ) {
    assert.equal(await initGitignore(existing, files), added(existing, "/agent-config"), existing);
  }
});

Deno.test("git agrees: after --init, the keys, the query, the rollup and the logs are ignored", async () => {
  for (const existing of ["", "dist\n", "/agent-config\n!/agent-config\n", "!logs\n*.tmp"]) {
    await withProject({ ".gitignore": existing }, async (root) => {
      await runGit(root, ["init", "-q"]);
      await runInit(root, new Console(memoryStreams()), false);
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
