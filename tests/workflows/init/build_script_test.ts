import assert from "node:assert/strict";
import { join } from "node:path";
import {
  describeStarter,
  hasNpmTestScript,
  starterBuildScript,
} from "../../../lib/workflows/init/build_script.ts";
import { BUILD_PLACEHOLDER_LINE } from "../../../lib/preconditions/preconditions.ts";
import { withProject } from "../../support/project.ts";

Deno.test("hasNpmTestScript: a real test script, not npm init's placeholder", () => {
  assert.equal(hasNpmTestScript('{"scripts":{"test":"mocha"}}'), true);
  assert.equal(
    hasNpmTestScript('{"scripts":{"test":"echo \\"Error: no test specified\\" && exit 1"}}'),
    false,
  );
  assert.equal(hasNpmTestScript('{"scripts":{"build":"tsc"}}'), false);
  assert.equal(hasNpmTestScript('{"scripts":{"test":""}}'), false);
  assert.equal(hasNpmTestScript('{"scripts":{"test":3}}'), false);
  assert.equal(hasNpmTestScript("{}"), false);
  assert.equal(hasNpmTestScript("[1]"), false);
  assert.equal(hasNpmTestScript("not json"), false);
});

Deno.test("the starter runs each kind's commands, in a fixed order", () => {
  const cases: [Parameters<typeof starterBuildScript>[0], string[]][] = [
    [["npm"], ["npm test"]],
    [["deno"], ["deno test"]],
    [["cargo"], ["cargo build", "cargo test"]],
    [["go"], ["go build ./...", "go test ./..."]],
    [["python"], ["python3 -m pytest"]],
    [["python", "npm"], ["npm test", "python3 -m pytest"]],
  ];
  for (const [kinds, commands] of cases) {
    const script = starterBuildScript(kinds);
    assert(script.startsWith("#!/bin/sh\n"), kinds.join());
    assert.match(script, /\nset -e\n/);
    const run = script.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
    assert.deepEqual(run, ["set -e", 'cd "$(dirname "$0")"', ...commands], kinds.join());
    assert(!script.includes(BUILD_PLACEHOLDER_LINE));
    assert.equal(describeStarter(kinds), `it runs ${commands.join(", then ")}`);
  }
});

Deno.test("with nothing recognised, the starter says what to put in it and fails", async () => {
  const script = starterBuildScript([]);
  assert(script.includes(BUILD_PLACEHOLDER_LINE));
  await withProject({}, async (dir) => {
    await Deno.writeTextFile(join(dir, "build.sh"), script, { mode: 0o755 });
    const output = await new Deno.Command(join(dir, "build.sh"), {
      stderr: "piped",
      stdout: "piped",
    })
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
  await withProject({}, async (dir) => {
    await Deno.writeTextFile(
      join(dir, "package.json"),
      JSON.stringify({
        name: "x",
        version: "1.0.0",
        scripts: { test: "node -e \"console.log('tested')\"" },
      }),
    );
    await Deno.writeTextFile(join(dir, "build.sh"), starterBuildScript(["npm"]), { mode: 0o755 });
    const output = await new Deno.Command(join(dir, "build.sh"), {
      stdout: "piped",
      stderr: "piped",
    })
      .output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    assert.match(new TextDecoder().decode(output.stdout), /tested/);
  });
});
