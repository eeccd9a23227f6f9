/**
 * Tests of the model table: the two models of SPEC.md decision 4, their key
 * files (decision 11), and their endpoints and variables (interface contract).
 */

import assert from "node:assert/strict";
import {
  DEFAULT_MODEL,
  isModelName,
  MODEL_NAMES,
  type ModelInfo,
  MODELS,
} from "../../lib/llm/models.ts";

Deno.test("the table holds exactly the two models of the specification", () => {
  assert.deepEqual(Object.keys(MODELS).sort(), ["gemini-2.5-pro", "gpt-5"]);
  assert.equal(DEFAULT_MODEL, "gemini-2.5-pro");
  assert.deepEqual(MODEL_NAMES, ["gemini-2.5-pro", "gpt-5"], "default first");
});

Deno.test("each model names its API, key file, variable and default endpoint", () => {
  const expected: Record<string, ModelInfo> = {
    "gemini-2.5-pro": {
      provider: "gemini",
      keyFile: "agent-config/gemini-key.txt",
      baseUrlEnv: "CODE_COMMIT_GEMINI_BASE_URL",
      defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta",
      vendor: "Gemini",
    },
    "gpt-5": {
      provider: "openai",
      keyFile: "agent-config/openai-key.txt",
      baseUrlEnv: "CODE_COMMIT_OPENAI_BASE_URL",
      defaultBaseUrl: "https://api.openai.com/v1",
      vendor: "OpenAI",
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
  Deno.test(`isModelName(${JSON.stringify(name)}) is ${expected}`, () => {
    assert.equal(isModelName(name), expected);
  });
}
