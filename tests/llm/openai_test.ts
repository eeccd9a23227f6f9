/**
 * Tests of the OpenAI adapter: the request it builds (key in the
 * Authorization header only, no temperature or token limit for gpt-5), how
 * it reads a chat completion (validated with zod, the real-world shapes of
 * tests/fixtures/llm/openai/), and how it reads an error body.
 */

import assert from "node:assert/strict";
import { openaiAdapter } from "../../lib/llm/openai.ts";
import { loadLlmFixture } from "../support/fake_llm_server.ts";
import { OPENAI_KEY } from "../support/project.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const BASE = "https://api.openai.com/v1";

async function fixture(name: string): Promise<{ body: Json; text: string; note: Json }> {
  const loaded = await loadLlmFixture(`openai/${name}`);
  return { body: loaded.body, text: JSON.stringify(loaded.body, null, 2), note: loaded };
}

const FIXTURES = {
  ok: await fixture("ok.json"),
  length: await fixture("length.json"),
  refusal: await fixture("refusal.json"),
  invalidKey: await fixture("401-invalid-key.json"),
  rateLimit: await fixture("429-rate-limit.json"),
  server: await fixture("500.json"),
  unsupported: await fixture("400-unsupported-parameter.json"),
};

/** A chat completion with one choice. */
function completion(message: Json, finishReason: string | null = "stop", usage?: Json): Json {
  const body: Json = { choices: [{ index: 0, message, finish_reason: finishReason }] };
  if (usage !== undefined) body.usage = usage;
  return body;
}

// ---------------------------------------------------------------------------
// Request

Deno.test("request: chat/completions, Bearer key in the header only, model and messages", () => {
  const prompt = 'Make the build pass.\n--- src/a.ts ---\nconst s = "é ✓";\n';
  const request = openaiAdapter.request(BASE, "gpt-5", OPENAI_KEY, prompt);
  assert.equal(request.url, `${BASE}/chat/completions`);
  assert.deepEqual(request.headers, {
    "content-type": "application/json",
    authorization: `Bearer ${OPENAI_KEY}`,
  });
  const body = JSON.parse(request.body);
  assert.deepEqual(body, {
    model: "gpt-5",
    messages: [{ role: "user", content: prompt }],
    stream: true,
    stream_options: { include_usage: true },
  });
  assert.ok(!request.url.includes(OPENAI_KEY));
  assert.ok(!request.body.includes(OPENAI_KEY));
});

Deno.test("request: gpt-5 never gets temperature, max_tokens or max_completion_tokens", () => {
  const body = JSON.parse(openaiAdapter.request(BASE, "gpt-5", OPENAI_KEY, "hi").body);
  assert.deepEqual(Object.keys(body).sort(), ["messages", "model", "stream", "stream_options"]);
  for (const name of ["temperature", "max_tokens", "max_completion_tokens", "top_p"]) {
    assert.equal(name in body, false, name);
  }
});

// ---------------------------------------------------------------------------
// Replies from the fixtures

Deno.test("ok.json: the content, stop, and tokens with reasoning apart", () => {
  const parsed = openaiAdapter.parseReply(FIXTURES.ok.body);
  assert.equal(parsed.text, FIXTURES.ok.body.choices[0].message.content);
  assert.equal(parsed.finishReason, "stop");
  assert.equal(parsed.truncated, false);
  // completion_tokens 1244 includes 1152 reasoning tokens.
  assert.deepEqual(parsed.usage, { input: 1791, cached: 0, output: 92, thinking: 1152 });
});

Deno.test("length.json: truncated, the cut-off text kept", () => {
  const parsed = openaiAdapter.parseReply(FIXTURES.length.body);
  assert.equal(parsed.truncated, true);
  assert.equal(parsed.finishReason, "length");
  assert.equal(parsed.text, FIXTURES.length.note._expectedText);
  assert.deepEqual(parsed.usage, { input: 5877, cached: 0, output: 64, thinking: 4032 });
});

Deno.test('length with content "" (reasoning ate the budget): truncated and empty, no error', () => {
  const body = JSON.parse(
    FIXTURES.length.text.replace(/"content": ".*",\n/, '"content": "",\n'),
  );
  assert.equal(body.choices[0].message.content, "");
  const parsed = openaiAdapter.parseReply(body);
  assert.equal(parsed.truncated, true);
  assert.equal(parsed.text, "");
});

Deno.test("refusal.json: an error quoting the refusal", () => {
  assert.throws(
    () => openaiAdapter.parseReply(FIXTURES.refusal.body),
    { message: "the model refused: I'm sorry, but I can't help with that." },
  );
});

Deno.test("a refusal wins even when content is also set", () => {
  assert.throws(
    () => openaiAdapter.parseReply(completion({ content: "partial", refusal: "No." })),
    { message: "the model refused: No." },
  );
});

Deno.test("content_filter is an error naming it", () => {
  assert.throws(
    () => openaiAdapter.parseReply(completion({ content: "x", refusal: null }, "content_filter")),
    /content filter stopped the reply \(finish reason content_filter\)/,
  );
});

Deno.test("empty or null content that is not truncated is an error", () => {
  for (const content of ["", null, undefined]) {
    assert.throws(
      () => openaiAdapter.parseReply(completion({ role: "assistant", content, refusal: null })),
      { message: "OpenAI returned an empty reply (finish reason stop)" },
      String(content),
    );
  }
});

Deno.test("no choice is an error", () => {
  assert.throws(() => openaiAdapter.parseReply({ choices: [] }), {
    message: "OpenAI returned no choice",
  });
});

Deno.test("a null finish reason reads as stop; missing or null usage gives zeros", () => {
  const parsed = openaiAdapter.parseReply(completion({ content: "hi" }, null));
  assert.equal(parsed.finishReason, "stop");
  assert.deepEqual(parsed.usage, { input: 0, cached: 0, output: 0, thinking: 0 });
  const nullUsage = openaiAdapter.parseReply(completion({ content: "hi" }, "stop", null));
  assert.deepEqual(nullUsage.usage, { input: 0, cached: 0, output: 0, thinking: 0 });
});

Deno.test("usage without reasoning details counts all completion tokens as output", () => {
  const parsed = openaiAdapter.parseReply(
    completion({ content: "hi" }, "stop", { prompt_tokens: 10, completion_tokens: 7 }),
  );
  assert.deepEqual(parsed.usage, { input: 10, cached: 0, output: 7, thinking: 0 });
  const nullDetails = openaiAdapter.parseReply(completion({ content: "hi" }, "stop", {
    prompt_tokens: 10,
    completion_tokens: 7,
    completion_tokens_details: null,
  }));
  assert.deepEqual(nullDetails.usage, { input: 10, cached: 0, output: 7, thinking: 0 });
});

Deno.test("only the first choice is read", () => {
  const body = completion({ content: "first" });
  body.choices.push({ index: 1, message: { content: "second" }, finish_reason: "stop" });
  assert.equal(openaiAdapter.parseReply(body).text, "first");
});

const MALFORMED: [string, unknown][] = [
  ["null", null],
  ["no choices", { id: "x" }],
  ["choices not an array", { choices: {} }],
  ["a choice without message", { choices: [{ finish_reason: "stop" }] }],
  ["content not a string", completion({ content: 42 })],
  ["content as parts", completion({ content: [{ type: "text", text: "hi" }] })],
  ["refusal not a string", completion({ content: "hi", refusal: true })],
  ["a fractional token count", completion({ content: "hi" }, "stop", { prompt_tokens: 1.5 })],
];

for (const [name, body] of MALFORMED) {
  Deno.test(`a body of the wrong shape is refused: ${name}`, () => {
    assert.throws(
      () => openaiAdapter.parseReply(body),
      /^Error: the reply is not a chat completion: .+/,
    );
  });
}

// ---------------------------------------------------------------------------
// Error bodies

const ERRORS: [string, keyof typeof FIXTURES, string | RegExp][] = [
  [
    "401-invalid-key.json",
    "invalidKey",
    /^invalid_api_key: Incorrect API key provided: sk-proj-\*+abcd\. You can find your API key/,
  ],
  ["429-rate-limit.json", "rateLimit", /^rate_limit_exceeded: Rate limit reached for gpt-5/],
  ["500.json (code null: the type stands in)", "server", /^server_error: The server had an error/],
  [
    "400-unsupported-parameter.json",
    "unsupported",
    "unsupported_value: Unsupported value: 'temperature' does not support 0.2 with this model. " +
    "Only the default (1) value is supported.",
  ],
];

for (const [name, key, expected] of ERRORS) {
  Deno.test(`error ${name}: the API's code and own message`, () => {
    const { body, text } = FIXTURES[key];
    const parsed = openaiAdapter.parseError(body, text);
    if (typeof expected === "string") assert.equal(parsed.message, expected);
    else assert.match(parsed.message, expected);
    assert.equal(parsed.retryDelayMs, undefined, "OpenAI's wait is in the headers");
  });
}

Deno.test("an error with neither code nor type is its message; with nothing, the raw text", () => {
  assert.equal(
    openaiAdapter.parseError({ error: { message: "Bad thing." } }, "raw").message,
    "Bad thing.",
  );
  assert.equal(openaiAdapter.parseError({ error: {} }, '{"error":{}}').message, '{"error":{}}');
});

Deno.test("an error body of another shape falls back to the raw text", () => {
  assert.deepEqual(openaiAdapter.parseError(undefined, "upstream connect error\n"), {
    message: "upstream connect error",
  });
  assert.deepEqual(openaiAdapter.parseError(undefined, ""), { message: "(empty body)" });
  assert.deepEqual(openaiAdapter.parseError({ error: "denied" }, '{"error":"denied"}'), {
    message: '{"error":"denied"}',
  });
});
