/**
 * The models end to end: the real tool, as a subprocess, in real temporary
 * git projects, against the fake LLM server — each model's request, the
 * estimated cost on each call's line and on the summary line, local
 * models (no key read or sent, a loopback server only), and the errors no
 * wait can cure.
 */
import assert from "node:assert/strict";
import {
  geminiReply,
  openaiReply,
  type ScriptStep,
  startFakeLlmServer,
} from "../support/fake_llm_server.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import { makeProject, OPENAI_KEY, type ProjectOptions, STATUS_BUILD } from "../support/project.ts";
import { runTool, type ToolRun } from "../support/run_tool.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const FIX = "I will fix it.\n^^^src/status.txt\nok\n^^^end\n";
const BREAK = "^^^src/status.txt\nstill broken\n^^^end\n";

/**
 * Runs code-commit with `args` in a fresh STATUS_BUILD project against
 * `script`, checks that no key leaked, and returns what it printed, the
 * requests, `src/status.txt` and the files of its one log folder.
 */
async function run(
  args: string[],
  script: ScriptStep[],
  options: { project?: ProjectOptions; env?: Record<string, string> } = {},
) {
  await using project = await makeProject({
    buildScript: STATUS_BUILD,
    files: { "src/status.txt": "broken\n" },
    ...options.project,
  });
  const server = await startFakeLlmServer(script);
  try {
    const result: ToolRun = await runTool(project.root, args, { server, env: options.env });
    await assertNoKeyLeak(project.root, [result], server);
    const log: Record<string, string> = {};
    for (const folder of await project.logRuns()) {
      for await (const entry of Deno.readDir(`${project.root}/logs/${folder}`)) {
        log[entry.name] = await project.read(`logs/${folder}/${entry.name}`);
      }
    }
    return {
      ...result,
      requests: server.requests,
      status: await project.read("src/status.txt"),
      log,
    };
  } finally {
    await server.close();
  }
}

function lastLine(text: string): string {
  return text.trimEnd().split("\n").at(-1) ?? "";
}

Deno.test("--model gemini-3-pro-preview: its own path and thinkingLevel high; the cost at its rates", async () => {
  const result = await run(["--model", "gemini-3-pro-preview"], [
    geminiReply(FIX, { usage: { prompt: 10_000, candidates: 500, thoughts: 1_500 } }),
  ]);
  assert.equal(result.code, 0, result.stderr);
  const [request] = result.requests;
  assert.equal(request.path, "/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse");
  assert.deepEqual((request.body as Json).generationConfig, {
    thinkingConfig: { thinkingLevel: "high" },
  });
  // 10,000 × $2/M + (500 + 1,500) × $12/M = $0.02 + $0.024
  assert.match(
    result.stderr,
    /^gemini-3-pro-preview answered in [\d.]+s: 10,000 input, 500 output, 1,500 thinking tokens, est\. \$0\.0440$/m,
  );
  assert.match(
    lastLine(result.stdout),
    /; 1 LLM calls?, 10,000 input, 500 output, 1,500 thinking tokens, est\. \$0\.0440; logs in /,
  );
});

Deno.test("--model gpt-5.2: model gpt-5.2 with reasoning_effort high; the cost at its rates", async () => {
  const result = await run(["--model", "gpt-5.2"], [
    openaiReply(FIX, { usage: { prompt: 20_000, completion: 3_000, reasoning: 2_000 } }),
  ]);
  assert.equal(result.code, 0, result.stderr);
  const body = result.requests[0].body as Json;
  assert.equal(body.model, "gpt-5.2");
  assert.equal(body.reasoning_effort, "high");
  assert.equal(result.requests[0].headers.authorization, `Bearer ${OPENAI_KEY}`);
  // 20,000 × $1.75/M + 3,000 × $14/M (reasoning is part of completion) = $0.035 + $0.042
  assert.match(
    result.stderr,
    /^gpt-5\.2 answered in [\d.]+s: 20,000 input, 1,000 output, 2,000 thinking tokens, est\. \$0\.0770$/m,
  );
});

Deno.test("each call's line and the summary give the estimated cost; above 200k prompt tokens Gemini's higher rates", async () => {
  const result = await run([], [
    geminiReply(BREAK, { usage: { prompt: 120_000, candidates: 1_000, thoughts: 3_000 } }),
    geminiReply(FIX, { usage: { prompt: 210_000, candidates: 2_000, thoughts: 6_000 } }),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.requests.length, 2);
  // 120,000 × $1.25/M + 4,000 × $10/M = $0.15 + $0.04
  assert.match(
    result.stderr,
    /^gemini-2\.5-pro answered in [\d.]+s: 120,000 input, 1,000 output, 3,000 thinking tokens, est\. \$0\.1900$/m,
  );
  // 210,000 > 200,000: 210,000 × $2.50/M + 8,000 × $15/M = $0.525 + $0.12
  assert.match(
    result.stderr,
    /^gemini-2\.5-pro answered in [\d.]+s: 210,000 input, 2,000 output, 6,000 thinking tokens, est\. \$0\.6450$/m,
  );
  assert.match(
    lastLine(result.stdout),
    /^committing code: build passed after 2 attempts \(1 repair\); 1 file changed; 2 LLM calls, 330,000 input, 3,000 output, 9,000 thinking tokens, est\. \$0\.8350; logs in /,
  );
});

Deno.test("--model local:NAME: NAME sent to the loopback endpoint, no key file needed or sent, no cost", async () => {
  const result = await run(["--model", "local:qwen2.5-coder:7b"], [
    openaiReply(FIX, { usage: { prompt: 900, completion: 40, reasoning: 0 } }),
  ], { project: { keys: { gemini: null, openai: null } } });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.status, "ok\n");
  const [request] = result.requests;
  assert.equal(request.path, "/v1/chat/completions");
  assert.equal(request.model, "qwen2.5-coder:7b");
  assert.deepEqual(Object.keys(request.body as Json).sort(), [
    "messages",
    "model",
    "stream",
    "stream_options",
  ]);
  assert.equal(request.headers.authorization, undefined);
  assert.match(result.stderr, /^committing code with local:qwen2\.5-coder:7b; logs in /m);
  assert.match(
    result.stderr,
    /^local:qwen2\.5-coder:7b answered in [\d.]+s: 900 input, 40 output, 0 thinking tokens, no cost \(local model\)$/m,
  );
  assert.match(
    lastLine(result.stdout),
    /1 LLM calls?, 900 input, 40 output, 0 thinking tokens, no cost \(local model\); logs in /,
  );
});

Deno.test("a local model is never sent the key files that exist, and they are still masked", async () => {
  // Both key files exist; the query holds the OpenAI key: the prompt is refused, nothing is sent.
  const result = await run(["--model", "local:llama3"], [openaiReply(FIX)], {
    project: { query: `Use the key ${OPENAI_KEY} please.\n` },
  });
  assert.equal(result.code, 5);
  assert.equal(result.requests.length, 0);
  assert.match(
    result.stderr,
    /the prompt for local:llama3 contains an API key, so it was not sent/,
  );
  const prompt = result.log["1-initial-query.txt"];
  assert.ok(prompt.includes(`********${OPENAI_KEY.slice(-2)}`), "the logged prompt is masked");
});

/** `CODE_COMMIT_OPENAI_BASE_URL` values a local model refuses, and how the message names them. */
const NOT_LOCAL: [string, RegExp][] = [
  [
    "",
    /^code-commit: --model local:llama3 needs a local OpenAI-compatible server: set CODE_COMMIT_OPENAI_BASE_URL to the server's address on this machine, e\.g\. http:\/\/127\.0\.0\.1:11434\/v1 \(Ollama\)/,
  ],
  [
    "https://api.openai.com/v1",
    /^code-commit: --model local:llama3 is sent no key and only to this machine, but CODE_COMMIT_OPENAI_BASE_URL is api\.openai\.com; set CODE_COMMIT_OPENAI_BASE_URL to/,
  ],
  ["http://10.0.0.1:11434/v1", /but CODE_COMMIT_OPENAI_BASE_URL is 10\.0\.0\.1; set/],
  [
    "localhost:11434",
    /but CODE_COMMIT_OPENAI_BASE_URL is "localhost:11434", not a URL such as http:\/\/127\.0\.0\.1:11434\/v1; set/,
  ],
];

for (const [value, message] of NOT_LOCAL) {
  Deno.test(`local:NAME with CODE_COMMIT_OPENAI_BASE_URL=${JSON.stringify(value)}: usage error, exit 2, before anything`, async () => {
    // No .gitignore and no key: the usage error comes first, before those checks.
    await using project = await makeProject({ gitignore: null, keys: { openai: null } });
    const server = await startFakeLlmServer([openaiReply("never")]);
    try {
      const result = await runTool(project.root, ["--model", "local:llama3"], {
        server,
        env: { CODE_COMMIT_OPENAI_BASE_URL: value },
      });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.equal(result.stderr.trimEnd().split("\n").length, 1, result.stderr);
      assert.equal(server.requests.length, 0);
      assert.deepEqual(await project.logRuns(), []);
    } finally {
      await server.close();
    }
  });
}

Deno.test("a loopback endpoint keeps today's rules for a model of the table: gpt-5 is sent, its key required", async () => {
  const missing = await run(["--model", "gpt-5"], [openaiReply(FIX)], {
    project: { keys: { openai: null } },
  });
  assert.equal(missing.code, 3);
  assert.match(missing.stderr, /agent-config\/openai-key\.txt not found/);
  assert.equal(missing.requests.length, 0);

  const sent = await run(["--model", "gpt-5"], [openaiReply(FIX)]);
  assert.equal(sent.code, 0, sent.stderr);
  assert.equal((sent.requests[0].body as Json).model, "gpt-5");
  assert.equal(sent.requests[0].headers.authorization, `Bearer ${OPENAI_KEY}`);
});

/** Real bodies no wait can cure: one request, exit 4, one line naming the cause. */
const INCURABLE: [string, string[], ScriptStep, RegExp][] = [
  [
    "a Gemini daily quota",
    [],
    { kind: "fixture", file: "gemini/429-per-day-quota.json" },
    /^code-commit: gemini-2\.5-pro: daily quota used up \(GenerateContentInputTokensPerModelPerDay-FreeTier\); it resets at midnight Pacific time/,
  ],
  [
    "Gemini's free tier with limit 0",
    [],
    { kind: "fixture", file: "gemini/429-free-tier-limit-zero.json" },
    /^code-commit: gemini-2\.5-pro: free-tier limit: .*; enable billing for the key's Google Cloud project/,
  ],
  [
    "an OpenAI request larger than the limit",
    ["--model", "gpt-5"],
    { kind: "fixture", file: "openai/429-request-too-large.json" },
    /^code-commit: gpt-5: request larger than the limit \(30,601 tokens requested, 30,000 allowed per minute\); make the prompt smaller/,
  ],
  [
    "a Gemini API not enabled for the key's project",
    [],
    { kind: "fixture", file: "gemini/403-permission-denied.json" },
    /^code-commit: gemini-2\.5-pro: API not enabled: .*; enable it at https:\/\/console\.developers\.google\.com\//,
  ],
];

for (const [name, args, step, message] of INCURABLE) {
  Deno.test(`${name}: one request, exit 4, the cause and what to do`, async () => {
    const result = await run(args, [step, geminiReply(FIX), openaiReply(FIX)]);
    assert.equal(result.code, 4, result.stderr);
    assert.equal(result.requests.length, 1, "not retried");
    assert.equal(result.status, "broken\n");
    assert.match(lastLine(result.stderr), message);
    assert.doesNotMatch(result.stderr, /retrying in/);
    assert.match(
      result.log["1-initial-query-response.txt"],
      /^ERROR\n.*; not retried: HTTP (429|403) /,
    );
    const json = result.log["1-initial-query-response.json"];
    assert.ok(JSON.parse(json).error, "the body received is logged");
  });
}

Deno.test("--help lists the models, local:NAME, and says the cost is an estimate with the prices' date", async () => {
  await using project = await makeProject();
  const result = await runTool(project.root, ["--help"]);
  assert.equal(result.code, 0);
  for (const name of ["gemini-2.5-pro", "gpt-5", "gemini-3-pro-preview", "gpt-5.2", "local:NAME"]) {
    assert.match(result.stdout, new RegExp(`^  ${name.replace(/\./g, "\\.")} `, "m"), name);
  }
  assert.match(result.stdout, /estimated cost in US dollars, from list prices read 2026-11-23/);
});

Deno.test("the OpenAI key about to go to a loopback endpoint is named in one warning per run; local:NAME and Gemini are not warned about", async () => {
  const gpt = await run(["--model", "gpt-5"], [openaiReply(BREAK), openaiReply(FIX)]);
  assert.equal(gpt.code, 0, gpt.stderr);
  assert.equal(gpt.requests.length, 2);
  const warnings = gpt.stderr.split("\n").filter((line) => line.includes("sending your"));
  assert.equal(warnings.length, 1, gpt.stderr);
  assert.match(
    warnings[0],
    /^warning: sending your OpenAI key to http:\/\/127\.0\.0\.1:\d+\/v1 \(CODE_COMMIT_OPENAI_BASE_URL\), a server on this machine: use --model local:NAME for a local server, which sends no key$/,
  );
  // Before the first call.
  assert(gpt.stderr.indexOf(warnings[0]) < gpt.stderr.indexOf("initial query: asking gpt-5"));

  // Gemini has no local server to point to instead: a loopback endpoint there is no mistake to warn of.
  const gemini = await run([], [geminiReply(FIX)]);
  assert.equal(gemini.code, 0, gemini.stderr);
  assert.doesNotMatch(gemini.stderr, /sending your/);

  const local = await run(["--model", "local:llama3"], [openaiReply(FIX)]);
  assert.equal(local.code, 0, local.stderr);
  assert.doesNotMatch(local.stderr, /sending your/);
});
