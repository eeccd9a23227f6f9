/**
 * `--check-build` end to end: the real tool in a real git project, with no
 * key and no model server: the build runs as a run would run it, and the
 * exit status says whether it passed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { makeProject, STATUS_BUILD } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";
import { bwrapTest } from "../support/sandbox.ts";

const NO_KEYS = { gemini: null, openai: null } as const;

Deno.test("--check-build: a passing build exits 0 with no key, no query and no call", async () => {
  await using project = await makeProject({
    buildScript: STATUS_BUILD,
    files: { "src/status.txt": "ok\n" },
    keys: NO_KEYS,
    query: null,
    rollup: null,
  });
  const run = await runTool(project.root, ["--check-build", "--sandbox", "off"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /running \.\/build\.sh \(not contained/);
  assert.match(
    run.stdout,
    /^build passed \(exit code 0, after [\d.]+m?s\); the log is logs\/[\d-]+-check-build\/build\.txt\n$/,
  );
  const [runDir] = await project.logRuns();
  assert.match(runDir, /-check-build$/);
  assert.match(
    await Deno.readTextFile(join(project.root, "logs", runDir, "build.txt")),
    /^\$ \.\/build\.sh\n\[not contained.*\]\nchecking src\/status\.txt\nbuild ok\n\[exit code 0, /,
  );
});

Deno.test("--check-build: a failing build exits 1 and shows its failure and its tail", async () => {
  await using project = await makeProject({
    buildScript: STATUS_BUILD,
    files: { "src/status.txt": "broken\n" },
    keys: NO_KEYS,
  });
  const run = await runTool(project.root, ["--check-build", "--sandbox", "off"]);
  assert.equal(run.code, 1, run.stderr);
  assert.match(
    run.stderr,
    /its output:\n {2}\| checking src\/status\.txt\n {2}\| error: src\/status\.txt is not ok\n/,
  );
  assert.match(
    run.stdout,
    /^build failed \(exit code 1, after [^)]+\); the log is logs\/.*\/build\.txt\n$/,
  );
});

Deno.test("--check-build: the set-up a build needs is checked, every problem listed (exit 3)", async () => {
  await using project = await makeProject({
    buildScript: null,
    gitignore: "/logs\n",
    keys: NO_KEYS,
  });
  const run = await runTool(project.root, ["--check-build"]);
  assert.equal(run.code, 3, run.stderr);
  assert.match(run.stderr, /2 things to set up before \.\/build\.sh can be checked/);
  assert.match(run.stderr, /agent-config/);
  assert.match(run.stderr, /build\.sh not found/);
  assert.deepEqual(await project.logRuns(), []);
});

Deno.test("--check-build: run from a subfolder of the repository, it says where to run it (exit 3)", async () => {
  await using project = await makeProject({ files: { "src/a.txt": "a\n" }, keys: NO_KEYS });
  const run = await runTool(join(project.root, "src"), ["--check-build", "--sandbox", "off"]);
  assert.equal(run.code, 3, run.stderr);
  assert.match(
    run.stderr,
    /is inside the git repository .*, not at its root: run code-commit from /,
  );
});

Deno.test("--check-build: the build's time limit is the run's (--build-timeout)", async () => {
  await using project = await makeProject({ buildScript: "#!/bin/sh\nsleep 30\n", keys: NO_KEYS });
  const run = await runTool(project.root, [
    "--check-build",
    "--sandbox",
    "off",
    "--build-timeout",
    "0.5",
  ]);
  assert.equal(run.code, 1, run.stderr);
  assert.match(
    run.stdout,
    /^build failed \(stopped at the --build-timeout limit of 0\.5s, after /,
  );
});

bwrapTest(
  "--check-build contains the build as a run does, and names a refusal outside the project",
  async () => {
    await using project = await makeProject({
      buildScript: "#!/bin/sh\nls agent-config 2>&1\nmkdir /usr/code-commit-check-build-test\n",
      keys: NO_KEYS,
    });
    const run = await runTool(project.root, [
      "--check-build",
      "--sandbox",
      "on",
      "--build-network",
      "off",
    ]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /running \.\/build\.sh \(contained by bubblewrap, no network\)/);
    assert.match(
      run.stderr,
      /warning: \.\/build\.sh failed because the sandbox refused it \/usr\/code-commit-check-build-test, which is outside the project .*so a run stops there instead of asking for repairs\. .*--sandbox off/,
    );
    // agent-config/ is hidden from the build, as in a run.
    assert.doesNotMatch(run.stderr, /query\.txt/);
  },
);
