import assert from "node:assert/strict";
import { join } from "node:path";
import { Console } from "../../../lib/console/console.ts";
import { BUILD_PLACEHOLDER_LINE } from "../../../lib/preconditions/preconditions.ts";
import { runInit } from "../../../lib/workflows/init/workflow.ts";
import { memoryStreams } from "../../support/console.ts";
import { withProject } from "../../support/project.ts";

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
