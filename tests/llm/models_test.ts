/**
 * Tests of the model table: its four models, their key files, their
 * endpoints and the variables that override them, what each request adds,
 * and `local:NAME`.
 */

import assert from "node:assert/strict";
import {
  DEFAULT_MODEL,
  KEY_FILES,
  MODEL_NAMES,
  type ModelInfo,
  MODELS,
  modelTarget,
  parseModelId,
} from "../../lib/llm/models.ts";

Deno.test("the table holds exactly four models, gemini-2.5-pro the default", () => {
  assert.deepEqual(Object.keys(MODELS).sort(), [
    "gemini-2.5-pro",
    "gemini-3-pro-preview",
    "gpt-5",
    "gpt-5.2",
  ]);
  assert.equal(DEFAULT_MODEL, "gemini-2.5-pro");
  assert.deepEqual(
    MODEL_NAMES,
    ["gemini-2.5-pro", "gpt-5", "gemini-3-pro-preview", "gpt-5.2"],
    "default first",
  );
  assert.deepEqual(KEY_FILES, ["agent-config/gemini-key.txt", "agent-config/openai-key.txt"]);
});

Deno.test("each model names its API, key file, variable and default endpoint", () => {
  const expected: Record<string, ModelInfo> = {
    "gemini-2.5-pro": {
      provider: "gemini",
      keyFile: "agent-config/gemini-key.txt",
      baseUrlEnv: "CODE_COMMIT_GEMINI_BASE_URL",
      defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta",
      vendor: "Gemini",
      request: {},
      inputLimit: 1_048_576,
      outputLimit: 65_536,
    },
    "gpt-5": {
      provider: "openai",
      keyFile: "agent-config/openai-key.txt",
      baseUrlEnv: "CODE_COMMIT_OPENAI_BASE_URL",
      defaultBaseUrl: "https://api.openai.com/v1",
      vendor: "OpenAI",
      request: {},
      inputLimit: 272_000,
      outputLimit: 128_000,
    },
    "gemini-3-pro-preview": {
      provider: "gemini",
      keyFile: "agent-config/gemini-key.txt",
      baseUrlEnv: "CODE_COMMIT_GEMINI_BASE_URL",
      defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta",
      vendor: "Gemini",
      request: { thinkingLevel: "high" },
      inputLimit: 1_048_576,
      outputLimit: 65_536,
    },
    "gpt-5.2": {
      provider: "openai",
      keyFile: "agent-config/openai-key.txt",
      baseUrlEnv: "CODE_COMMIT_OPENAI_BASE_URL",
      defaultBaseUrl: "https://api.openai.com/v1",
      vendor: "OpenAI",
      request: { reasoningEffort: "high" },
      inputLimit: 272_000,
      outputLimit: 128_000,
    },
  };
  assert.deepEqual(MODELS, expected);
  for (const info of Object.values(MODELS)) {
    assert.match(
      info.defaultBaseUrl,
      /^https:\/\//,
      "the default endpoints keep the key encrypted",
    );
    assert.doesNotMatch(info.defaultBaseUrl, /\/$/, "no trailing slash: paths are appended");
  }
});

const NAME_CASES: [string, boolean][] = [
  ["gemini-2.5-pro", true],
  ["gpt-5", true],
  ["gemini-3-pro-preview", true],
  ["gpt-5.2", true],
  ["gemini-3-pro", false],
  ["gpt-5.2-pro", false],
  ["local:llama3", false],
  ["Gemini-2.5-Pro", false],
  ["GPT-5", false],
  ["gpt-5 ", false],
  ["gemini-2.5-flash", false],
  ["gpt-5-mini", false],
  ["", false],
  // Inherited properties of a plain object are not models.
  ["toString", false],
  ["__proto__", false],
  ["constructor", false],
  ["hasOwnProperty", false],
];

for (const [name, expected] of NAME_CASES) {
  Deno.test(`${JSON.stringify(name)} is ${expected ? "" : "not "}a model of the table`, () => {
    assert.equal(parseModelId(name) !== undefined && !name.startsWith("local:"), expected);
  });
}

/** `--model` values and what they read as: a model id, or undefined. */
const ID_CASES: [string, string | undefined][] = [
  ["gemini-2.5-pro", "gemini-2.5-pro"],
  ["gpt-5.2", "gpt-5.2"],
  ["local:llama3.1:8b", "local:llama3.1:8b"],
  ["local:Qwen/Qwen2.5-Coder-32B-Instruct", "local:Qwen/Qwen2.5-Coder-32B-Instruct"],
  [
    "local:hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF:Q4_K_M",
    "local:hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF:Q4_K_M",
  ],
  [`local:${"m".repeat(200)}`, `local:${"m".repeat(200)}`],
  [`local:${"m".repeat(201)}`, undefined],
  ["local:", undefined],
  ["local: llama3", undefined],
  ["local:llama 3", undefined],
  ["local:llama3\n", undefined],
  ["local:llamá", undefined],
  ["Local:llama3", undefined],
  ["local", undefined],
  ["gpt-4o", undefined],
];

for (const [value, expected] of ID_CASES) {
  Deno.test(`parseModelId(${JSON.stringify(value.slice(0, 40))}) is ${expected?.slice(0, 40)}`, () => {
    assert.equal(parseModelId(value), expected);
  });
}

Deno.test("modelTarget: a table model is sent under its own name, behind its key", () => {
  assert.deepEqual(modelTarget("gpt-5.2"), {
    id: "gpt-5.2",
    local: false,
    provider: "openai",
    apiModel: "gpt-5.2",
    request: { reasoningEffort: "high" },
    keyFile: "agent-config/openai-key.txt",
    baseUrlEnv: "CODE_COMMIT_OPENAI_BASE_URL",
    defaultBaseUrl: "https://api.openai.com/v1",
    vendor: "OpenAI",
    inputLimit: 272_000,
    outputLimit: 128_000,
  });
});

Deno.test("modelTarget: local:NAME sends NAME to the OpenAI-compatible API, with no key and no default endpoint", () => {
  assert.deepEqual(modelTarget("local:qwen2.5-coder:32b"), {
    id: "local:qwen2.5-coder:32b",
    local: true,
    provider: "openai",
    apiModel: "qwen2.5-coder:32b",
    request: {},
    baseUrlEnv: "CODE_COMMIT_OPENAI_BASE_URL",
    vendor: "local",
    inputLimit: 98_304,
    outputLimit: 32_768,
  });
});

Deno.test("modelTarget: a local model's window is split, a quarter for the answer; the table's is fixed", () => {
  const local = modelTarget("local:x", 32_768);
  assert.equal(local.inputLimit, 24_576);
  assert.equal(local.outputLimit, 8_192);
  assert.equal(modelTarget("local:x").inputLimit, 98_304);
  assert.equal(modelTarget("gpt-5", 32_768).inputLimit, 272_000);
});
