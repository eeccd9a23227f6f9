/**
 * `agent-config/settings.json` end to end: the real tool as a subprocess in
 * real git projects, against the fake LLM server. Each setting takes effect,
 * a flag beats it, `CODE_COMMIT_OPENAI_BASE_URL` beats its `localBaseUrl`,
 * a bad file stops the run before any call (exit 3), and `--init` never
 * reads it.
 */
import assert from "node:assert/strict";
import {
  geminiReply,
  openaiReply,
  type ScriptStep,
  startFakeLlmServer,
} from "../support/fake_llm_server.ts";
import { makeProject, type ProjectOptions } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";

const FILE = "agent-config/settings.json";
/** A consistency report that finds nothing (one of its five headings, so it is written). */
const NO_CHANGE = "User Specification Self-Consistency\nNo change is needed.\n";

/**
 * Runs code-commit with `args` against `script` in a project whose settings
 * file is `settings` (a function of the server's OpenAI-compatible base
 * URL); the environment has no local server unless `env` names one.
 */
async function run(
  args: string[],
  script: ScriptStep[],
  settings: (openaiBaseUrl: string) => unknown,
  options: { env?: Record<string, string>; project?: ProjectOptions } = {},
) {
  await using project = await makeProject(options.project);
  const server = await startFakeLlmServer(script);
  try {
    await project.write(FILE, JSON.stringify(settings(server.openaiBaseUrl)));
    const result = await runTool(project.root, args, {
      server,
      env: { CODE_COMMIT_OPENAI_BASE_URL: "", ...options.env },
    });
    return { ...result, requests: server.requests };
  } finally {
    await server.close();
  }
}

Deno.test("settings: the model and its local server come from the file", async () => {
  const result = await run(
    ["--cc"],
    [openaiReply(NO_CHANGE)],
    (url) => ({ model: "local:qwen", localBaseUrl: url }),
  );
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.requests.length, 1);
  assert.equal(result.requests[0].model, "qwen");
  assert.match(result.stderr, /^consistency report with local:qwen; logs in /m);
});

Deno.test("settings: a flag beats the file (--model)", async () => {
  const result = await run(
    ["--cc", "--model", "gemini-2.5-pro"],
    [geminiReply(NO_CHANGE)],
    (url) => ({ model: "local:qwen", localBaseUrl: url }),
  );
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.requests.length, 1);
  assert.equal(result.requests[0].model, "gemini-2.5-pro");
});

Deno.test("settings: CODE_COMMIT_OPENAI_BASE_URL beats localBaseUrl", async () => {
  const server = await startFakeLlmServer([openaiReply(NO_CHANGE)]);
  try {
    const result = await run(
      ["--cc"],
      [],
      () => ({ model: "local:qwen", localBaseUrl: "http://127.0.0.1:9/v1" }),
      { env: { CODE_COMMIT_OPENAI_BASE_URL: server.openaiBaseUrl } },
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(server.requests.length, 1);
  } finally {
    await server.close();
  }
});

Deno.test("settings: the local model's context window: a prompt past it is not sent (exit 3)", async () => {
  const result = await run(
    ["--cc"],
    [openaiReply(NO_CHANGE)],
    (url) => ({ model: "local:tiny", localBaseUrl: url, contextWindow: 1024 }),
    { project: { query: "Say hello.\n".repeat(2_000) } },
  );
  assert.equal(result.code, 3, result.stderr);
  assert.equal(result.requests.length, 0);
  assert.match(result.stderr, /the model takes/);
});

Deno.test("settings: llmTimeout gives up on a silent server", async () => {
  const result = await run([], [{ kind: "hang" }], () => ({ llmTimeout: 0.5 }));
  assert.equal(result.code, 4, result.stderr);
  assert.match(result.stderr, /gemini-2\.5-pro: no reply within 0\.5s/);
});

Deno.test("settings: buildTimeout and sandbox take effect for --check-build", async () => {
  await using project = await makeProject({ buildScript: "#!/bin/sh\nsleep 30\n" });
  await project.write(FILE, JSON.stringify({ buildTimeout: 0.5, sandbox: "off" }));
  const result = await runTool(project.root, ["--check-build"]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /running \.\/build\.sh \(not contained/);
  assert.match(result.stdout, /stopped at the --build-timeout limit of 0\.5s/);
  // The flag beats the file.
  const flag = await runTool(project.root, ["--check-build", "--build-timeout", "0.7"]);
  assert.match(flag.stdout, /stopped at the --build-timeout limit of 0\.7s/);
});

Deno.test("settings: an unknown key or a bad value stops the run before any call (exit 3), one line", async () => {
  for (
    const [settings, message] of [
      [{ modle: "gpt-5" }, /agent-config\/settings\.json has the unknown key "modle"; the keys/],
      [{ sandbox: "yes" }, /agent-config\/settings\.json: "sandbox" is "yes"; it takes auto, on/],
      [
        { localBaseUrl: "http://10.0.0.1:11434/v1" },
        /localBaseUrl in agent-config\/settings\.json is 10\.0\.0\.1/,
      ],
    ] as const
  ) {
    const result = await run([], [geminiReply(NO_CHANGE)], () => settings);
    assert.equal(result.code, 3, result.stderr);
    assert.equal(result.requests.length, 0);
    assert.match(result.stderr, message);
    assert.equal(result.stderr.trimEnd().split("\n").length, 1, result.stderr);
  }
});

Deno.test("settings: --init does not read the file, and a valid one for another workflow is fine", async () => {
  await using project = await makeProject({ gitignore: null, query: null });
  await project.write(FILE, "{ not json");
  const init = await runTool(project.root, ["--init"]);
  assert.equal(init.code, 0, init.stderr);
  await project.write(FILE, JSON.stringify({ maxPhase: 3, sandbox: "on" }));
  const cc = await runTool(project.root, ["--cc"]);
  assert.doesNotMatch(cc.stderr, /settings/);
});
