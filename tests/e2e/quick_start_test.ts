/**
 * The README's quick start, followed literally: the shell block under "First
 * run on your project" runs as it is written, in a fresh temporary git
 * repository of a small Node.js package, against the fake LLM server; only
 * the tool's path and the key are put in. What the run prints must be what
 * "What a run prints" shows (times, dates and the temporary folder aside).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { RUN_FLAGS } from "../../lib/permissions/permissions.ts";
import { geminiReply, geminiText, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import { GEMINI_KEY, git, makeProject } from "../support/project.ts";
import type { ToolRun } from "../support/run_tool.ts";
import { IN_CI } from "../support/sandbox.ts";

const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const README = await Deno.readTextFile(join(TOOL_ROOT, "README.md"));

/** The first fenced block after `heading`. */
function blockAfter(heading: string, language: string): string {
  const start = README.indexOf(`\n${heading}\n`);
  assert(start >= 0, `the README has no heading ${heading}`);
  const open = README.indexOf(`\n\`\`\`${language}\n`, start);
  const close = README.indexOf("\n```\n", open + 1);
  return README.slice(open + language.length + 5, close + 1);
}

/** A small package, as `ms` is: a function, its tests, `npm test`. */
const PACKAGE = {
  "package.json": JSON.stringify(
    { name: "duration", version: "1.0.0", scripts: { test: "node test.js" } },
    null,
    2,
  ) + "\n",
  "index.js": "module.exports = function ms(text) {\n" +
    "  const match = /^(\\d+)h$/.exec(text);\n" +
    "  return match ? Number(match[1]) * 3600000 : NaN;\n};\n",
  "test.js": 'const ms = require("./index.js");\n' +
    'for (const [text, want] of [["2h", 7200000], ["1.5h", 5400000]]) {\n' +
    "  const got = ms(text);\n" +
    "  if (got === want) console.log(`ok   ms(${JSON.stringify(text)}) = ${want}`);\n" +
    "  else console.log(`FAIL ms(${JSON.stringify(text)}) = ${got}, want ${want}`);\n" +
    "  if (got !== want) process.exitCode = 1;\n}\n",
};

const BROKEN = "I will accept a decimal point in the number of hours.\n\n" +
  "^^^index.js\nmodule.exports = function ms(text) {\n" +
  "  const match = /^(\\d+\\.\\d+)h$/.exec(text);\n" +
  "  return match ? Number(match[1]) * 3600000 : NaN;\n};\n^^^end\n";
const FIXED = "The decimal part must be optional, or whole hours stop parsing.\n\n" +
  "^^^index.js\nmodule.exports = function ms(text) {\n" +
  "  const match = /^(\\d+(?:\\.\\d+)?)h$/.exec(text);\n" +
  "  return match ? Number(match[1]) * 3600000 : NaN;\n};\n^^^end\n";

/**
 * What varies from run to run: durations, dates, the temporary folder; npm's
 * own lines in the build output (its banner, warnings about the local npm
 * configuration), which differ from one npm to another; and how the build is
 * contained, which depends on whether bubblewrap is installed.
 */
function normalise(text: string, root: string): string {
  return text
    .split("\n")
    .filter((line) => !/^ {2}\|( npm | > |$)/.test(line))
    .filter((line) => !line.startsWith("warning: ./build.sh runs without a sandbox"))
    .map((line) => line.replace(/^running \.\/build\.sh \(.*\)$/, "running ./build.sh"))
    .join("\n")
    .replaceAll(root, "~/my-project")
    .replace(/\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d/g, "2026-01-01-12-00-00")
    .replace(/\b\d+(\.\d+)?s\b/g, "0.1s");
}

/** Whether npm is missing: the package's build runs npm test. */
const NPM_MISSING =
  (await new Deno.Command("sh", { args: ["-c", "command -v npm"] }).output()).code !== 0;

// Ignored (reported so, never passed) without npm on a developer's machine; failed in CI.
Deno.test({
  name: "the README's quick start works, followed literally, and prints what the README shows",
  ignore: NPM_MISSING && !IN_CI,
}, async () => {
  if (NPM_MISSING) {
    throw new Error(
      "this test runs the package's npm test and CI is set, but npm is not on PATH: install it " +
        "(apt-get install -y npm)",
    );
  }
  await using project = await makeProject({
    gitignore: null,
    buildScript: null,
    query: null,
    rollup: null,
    keys: { gemini: null, openai: null },
    files: PACKAGE,
  });
  const server = await startFakeLlmServer([
    geminiReply(BROKEN, { usage: { prompt: 2431, candidates: 118, thoughts: 1604 } }),
    geminiReply(FIXED, { usage: { prompt: 2987, candidates: 131, thoughts: 2210 } }),
  ]);
  const outputs = await Deno.makeTempDir({ prefix: "code-commit-quick-start-" });
  try {
    const steps = blockAfter("## First run on your project", "sh");
    assert.match(steps, /~\/code-commit\/code-commit --init/);
    const tool = [Deno.execPath(), "run", "--cached-only", "--config", `${TOOL_ROOT}deno.json`]
      .concat(RUN_FLAGS, [`${TOOL_ROOT}main.ts`])
      .map((word) => `'${word}'`).join(" ");
    const script = [
      "set -eu",
      // Each run of the tool: its output (stdout and stderr in the order written) in a numbered file.
      `n=0; code_commit() { n=$((n+1)); ${tool} "$@" >"${outputs}/$n.txt" 2>&1; }`,
      steps
        .replaceAll("~/code-commit/code-commit", "code_commit")
        .replaceAll("YOUR-GEMINI-API-KEY", GEMINI_KEY),
    ].join("\n");
    const result = await new Deno.Command("sh", {
      args: ["-c", script],
      cwd: project.root,
      env: { ...server.env, NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const read = (n: number) => Deno.readTextFile(join(outputs, `${n}.txt`)).catch(() => "");
    const runs: ToolRun[] = [];
    for (let n = 1; n <= 3; n++) runs.push({ code: 0, stdout: await read(n), stderr: "" });
    const decoder = new TextDecoder();
    assert.equal(
      result.code,
      0,
      `the quick start failed:\n${decoder.decode(result.stderr)}\n${
        runs.map((r) => r.stdout).join("\n---\n")
      }`,
    );

    // 1: --init; 2: --rollup; 3: the run, which passed after one repair.
    assert.match(runs[0].stdout, /agent-config\/starter-build\.sh \(it runs npm test\)/);
    assert.match(runs[1].stdout, /^agent-config\/codeRollup\.txt: 6 files, /);
    assert.equal(server.requests.length, 2);
    assert.match(
      geminiText(server.requests[0]),
      /\[query\]\nParse "1\.5h" as an hour and a half\.\n/,
    );
    assert.match(geminiText(server.requests[0]), /--- test\.js ---\n/);
    assert.match(await project.read("index.js"), /\(\?:\\\.\\d\+\)\?/);
    assert.match(await git(project.root, "status", "--porcelain"), /^ M index\.js$/m);
    await assertNoKeyLeak(project.root, runs, server);

    const shown = blockAfter("## What a run prints", "");
    const printed = normalise(runs[2].stdout, project.root);
    if (Deno.env.get("QUICK_START_PRINT") === "1") console.log(runs[2].stdout);
    assert.equal(
      printed,
      normalise(shown, project.root),
      "the README's sample is not what a run prints",
    );
  } finally {
    await server.close();
    await Deno.remove(outputs, { recursive: true });
  }
});
