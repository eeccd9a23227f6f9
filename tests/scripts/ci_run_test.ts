/**
 * docs/ci/code-commit.yml, the GitHub Actions workflow of docs/ci.md, run
 * locally: its own shell steps ("Install code-commit", "Run code-commit"),
 * as the YAML holds them, with the GITHUB_* files in a temporary folder, a
 * bare repository as origin and the fake LLM server as the model. The install
 * runs build.sh, which fetches the npm dependencies, as it does for a user.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { geminiReply, geminiText, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { assertNoKeyInAnyForm } from "../support/leaks.ts";
import { GEMINI_KEY, git, makeProject, STATUS_BUILD } from "../support/project.ts";

const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const WORKFLOW = await Deno.readTextFile(join(TOOL_ROOT, "docs/ci/code-commit.yml"));

/** The `run:` block of the workflow's step named `name`, as the runner's bash gets it. */
function runBlock(name: string): string {
  const lines = WORKFLOW.split("\n");
  const step = lines.findIndex((line) => line.trim() === `- name: ${name}`);
  assert(step >= 0, `docs/ci/code-commit.yml has no step ${name}`);
  const run = lines.findIndex((line, index) => index > step && line.trim() === "run: |");
  const indent = lines[run + 1].length - lines[run + 1].trimStart().length;
  const block: string[] = [];
  for (const line of lines.slice(run + 1)) {
    if (line.trim() !== "" && line.length - line.trimStart().length < indent) break;
    block.push(line.slice(indent));
  }
  return block.join("\n").trimEnd() + "\n";
}

/** Runs a step's block as GitHub's runner runs `shell: bash` (bash -e, pipefail) in `cwd`. */
async function runStep(name: string, cwd: string, env: Record<string, string>) {
  const script = join(cwd, "..", `step-${name.replaceAll(" ", "-")}.sh`);
  await Deno.writeTextFile(script, runBlock(name));
  const output = await new Deno.Command("bash", {
    args: ["--noprofile", "--norc", "-eo", "pipefail", script],
    cwd,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** `KEY=value` lines of a GITHUB_ENV or GITHUB_OUTPUT file. */
async function readAssignments(path: string): Promise<Record<string, string>> {
  const text = await Deno.readTextFile(path);
  return Object.fromEntries(
    text.split("\n").filter((line) => line.includes("=")).map((line) => {
      const at = line.indexOf("=");
      return [line.slice(0, at), line.slice(at + 1)];
    }),
  );
}

Deno.test("the CI workflow installs code-commit, runs it on an issue, and pushes to a branch", async () => {
  const folder = await Deno.makeTempDir({ prefix: "code-commit-ci-" });
  const server = await startFakeLlmServer([geminiReply("^^^src/status.txt\nok\n^^^end\n")]);
  try {
    const runner = join(folder, "runner");
    await Deno.mkdir(runner);
    const files = {
      GITHUB_ENV: join(runner, "env"),
      GITHUB_OUTPUT: join(runner, "output"),
      GITHUB_STEP_SUMMARY: join(runner, "summary.md"),
    };
    for (const file of Object.values(files)) await Deno.writeTextFile(file, "");
    // The checkout: a project whose origin is a bare repository.
    await using project = await makeProject({
      buildScript: STATUS_BUILD,
      query: null,
      rollup: null,
      keys: { gemini: null, openai: null },
      files: { "src/status.txt": "broken\n" },
    });
    const origin = join(folder, "origin.git");
    await git(folder, "init", "-q", "--bare", origin);
    await git(project.root, "remote", "add", "origin", origin);
    await git(project.root, "push", "-q", "origin", "HEAD:refs/heads/main");
    const mainBefore = await git(origin, "rev-parse", "main");

    const env: Record<string, string> = {
      ...Deno.env.toObject(), // the machine's proxy and certificates, for build.sh's downloads
      PATH: `${join(Deno.execPath(), "..")}:/usr/bin:/bin`,
      HOME: join(folder, "home"),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      NO_COLOR: "1",
      RUNNER_TEMP: runner,
      GITHUB_RUN_ID: "4242",
      GITHUB_RUN_ATTEMPT: "1",
      ...files,
      CODE_COMMIT_REPO: TOOL_ROOT,
      CODE_COMMIT_REF: (await git(TOOL_ROOT, "rev-parse", "HEAD")).trim(),
    };
    delete env.DENO_DIR;

    const install = await runStep("Install code-commit", project.root, env);
    assert.equal(install.code, 0, install.stdout + install.stderr);
    const installed = await readAssignments(files.GITHUB_ENV);
    assert.equal(installed.CODE_COMMIT, join(runner, "code-commit", "code-commit"));
    assert((await Deno.stat(installed.CODE_COMMIT_RUN)).isFile);

    // The script of this tree (which the commit installed above may predate) runs the step.
    const runScript = join(TOOL_ROOT, "docs/ci/code-commit-run.sh");
    let tool = installed.CODE_COMMIT;
    const help = await new Deno.Command(tool, { args: ["--help"], env }).output();
    const hasJson = new TextDecoder().decode(help.stdout).includes("--json");
    if (!hasJson) {
      // This code-commit predates --json: a stand-in drops the flag, and the summary holds the
      // run's plain output, so only its status line is checked.
      tool = join(folder, "code-commit-without-json");
      await Deno.writeTextFile(
        tool,
        `#!/bin/sh\nfor a; do shift; [ "$a" = --json ] || set -- "$@" "$a"; done\n` +
          `exec '${installed.CODE_COMMIT}' "$@"\n`,
      );
      await Deno.chmod(tool, 0o755);
    }
    const run = await runStep("Run code-commit", project.root, {
      ...env,
      ...server.env,
      CODE_COMMIT: tool,
      CODE_COMMIT_RUN: runScript,
      CODE_COMMIT_KEY: GEMINI_KEY,
      CODE_COMMIT_MODEL: "gemini-2.5-pro",
      CODE_COMMIT_ARGS: "--sandbox off",
      ISSUE_TITLE: "Make the build pass",
      ISSUE_BODY: "src/status.txt must say ok.",
    });
    assert.equal(run.code, 0, run.stdout + run.stderr);

    // The issue was the query.
    assert.equal(server.requests.length, 1);
    assert(
      geminiText(server.requests[0]).includes("Make the build pass\n\nsrc/status.txt must say ok."),
    );
    // The change is on the branch, and only the change: main is as it was.
    const branch = "code-commit/run-4242-1";
    assert.equal(await git(origin, "rev-parse", "main"), mainBefore);
    assert.equal(await git(origin, "show", `${branch}:src/status.txt`), "ok\n");
    const pushed = await git(origin, "ls-tree", "-r", "--name-only", branch);
    assert.deepEqual(pushed.trim().split("\n").sort(), [
      ".gitignore",
      "build.sh",
      "src/status.txt",
    ]);
    assert.match(
      await git(origin, "log", "-1", "--format=%s", branch),
      /^code-commit: Make the build pass\n$/,
    );
    assert.deepEqual(await readAssignments(files.GITHUB_OUTPUT), {
      status: "0",
      changed: "true",
      branch,
    });
    const summary = await Deno.readTextFile(files.GITHUB_STEP_SUMMARY);
    assert.match(summary, /^## code-commit: exit status 0\n/);
    assert(summary.includes(`on the branch \`${branch}\``), summary);
    if (hasJson) {
      // The summary holds the run's one JSON object, which names the file it changed.
      const json = summary.slice(summary.indexOf("```json\n") + 8, summary.indexOf("\n```\n"));
      const result = JSON.parse(json);
      assert.equal(typeof result, "object", json);
      assert(json.includes("src/status.txt"), json);
    }
    // The key went into agent-config/ only: not printed, not in the summary, not pushed.
    for (
      const [name, text] of [
        ["the install's output", install.stdout + install.stderr],
        ["the run's output", run.stdout + run.stderr],
        ["the summary", summary],
        ["the pushed commit", await git(origin, "log", "-p", branch)],
      ]
    ) {
      assertNoKeyInAnyForm(text, name);
    }
    assert.equal(await project.read("agent-config/gemini-key.txt"), `${GEMINI_KEY}\n`);
  } finally {
    await server.close();
    await Deno.remove(folder, { recursive: true });
  }
});
