/**
 * The fixtures themselves, checked before any test relies on them: the LLM
 * replies of `tests/fixtures/llm/` have the shapes the real APIs send and
 * their names promise, and the reply fixtures of `tests/fixtures/replies/`
 * hold the line ends they are about.
 */
import assert from "node:assert/strict";
import { listLlmFixtures, loadLlmFixture } from "./support/fake_llm_server.ts";

/** A parsed JSON value, read field by field in assertions. */
// deno-lint-ignore no-explicit-any
type Json = any;

const EXPECTED_FIXTURES = [
  "gemini/400-invalid-argument.json",
  "gemini/403-permission-denied.json",
  "gemini/429-free-tier-limit-zero.json",
  "gemini/429-per-day-quota.json",
  "gemini/429-retry-info.json",
  "gemini/503-overloaded.json",
  "gemini/blocked-prompt.json",
  "gemini/max-tokens-no-candidates-token-count.json",
  "gemini/ok.json",
  "gemini/safety-finish.json",
  "gemini/thought-parts.json",
  "openai/400-unsupported-parameter.json",
  "openai/401-invalid-key.json",
  "openai/429-rate-limit.json",
  "openai/429-request-too-large.json",
  "openai/500.json",
  "openai/length.json",
  "openai/ok.json",
  "openai/refusal.json",
];

async function body(file: string): Promise<Json> {
  return (await loadLlmFixture(file)).body;
}

Deno.test("every fixture parses and has status, headers, body and a note", async () => {
  const files = await listLlmFixtures();
  assert.deepEqual(files, EXPECTED_FIXTURES);
  for (const file of files) {
    const fixture = await loadLlmFixture(file);
    const content: Json = fixture.body;
    assert.ok(fixture.status >= 200 && fixture.status <= 599, file);
    assert.match(fixture.headers["content-type"] ?? "", /^application\/json/, file);
    assert.equal(typeof fixture.body, "object", file);
    assert.ok(fixture._note.length > 40, file);
    for (const name of Object.keys(fixture.headers)) {
      assert.equal(name, name.toLowerCase(), `${file}: header ${name}`);
    }
    if (fixture.status >= 400) {
      assert.equal(typeof content.error?.message, "string", file);
    }
    if (file.startsWith("gemini/") && fixture.status >= 400) {
      assert.equal(content.error.code, fixture.status, file);
      assert.match(content.error.status, /^[A-Z_]+$/, file);
    }
    if (file.startsWith("openai/") && fixture.status >= 400) {
      assert.deepEqual(Object.keys(content.error), ["message", "type", "param", "code"], file);
    }
  }
});

Deno.test("Gemini 200 fixtures: usage totals add up, zero counts are left out", async () => {
  for (
    const file of [
      "gemini/ok.json",
      "gemini/thought-parts.json",
      "gemini/max-tokens-no-candidates-token-count.json",
      "gemini/blocked-prompt.json",
      "gemini/safety-finish.json",
    ]
  ) {
    const usage = (await body(file)).usageMetadata;
    const sum = usage.promptTokenCount + (usage.candidatesTokenCount ?? 0) +
      (usage.thoughtsTokenCount ?? 0);
    assert.equal(usage.totalTokenCount, sum, file);
    assert.equal((await body(file)).modelVersion, "gemini-2.5-pro", file);
  }
});

Deno.test("Gemini fixtures have the shapes their names promise", async () => {
  const thought = await loadLlmFixture("gemini/thought-parts.json");
  const parts = (thought.body as Json).candidates[0].content.parts as Json[];
  assert.ok(parts.filter((p) => p.thought === true).length >= 1);
  assert.ok(parts.filter((p) => p.thought !== true).length >= 2);
  assert.equal(parts[0].thought, true, "a thought part comes first");
  const answer = parts.filter((p) => p.thought !== true).map((p) => p.text).join("");
  assert.equal(answer, (thought as Json)._expectedText);
  assert.ok(
    (thought.body as { usageMetadata: Record<string, number> }).usageMetadata.thoughtsTokenCount >
      0,
  );

  const maxTokens = await body("gemini/max-tokens-no-candidates-token-count.json");
  assert.equal(maxTokens.candidates[0].finishReason, "MAX_TOKENS");
  assert.equal(maxTokens.candidates[0].content.parts, undefined);
  assert.equal("candidatesTokenCount" in maxTokens.usageMetadata, false);

  const blocked = await body("gemini/blocked-prompt.json");
  assert.equal(blocked.candidates, undefined);
  assert.equal(blocked.promptFeedback.blockReason, "PROHIBITED_CONTENT");

  const safety = await body("gemini/safety-finish.json");
  assert.equal(safety.candidates[0].finishReason, "SAFETY");
  assert.equal(safety.candidates[0].content?.parts, undefined);

  const quota = (await body("gemini/429-retry-info.json")).error;
  assert.equal(quota.status, "RESOURCE_EXHAUSTED");
  const types = quota.details.map((d: { "@type": string }) => d["@type"]);
  assert.deepEqual(types, [
    "type.googleapis.com/google.rpc.QuotaFailure",
    "type.googleapis.com/google.rpc.Help",
    "type.googleapis.com/google.rpc.RetryInfo",
  ]);
  assert.equal(quota.details[2].retryDelay, "58s");

  const overloaded = (await body("gemini/503-overloaded.json")).error;
  assert.deepEqual(overloaded, {
    code: 503,
    message: "The model is overloaded. Please try again later.",
    status: "UNAVAILABLE",
  });

  const invalid = (await body("gemini/400-invalid-argument.json")).error;
  assert.equal(invalid.status, "INVALID_ARGUMENT");
  assert.equal(invalid.details[0]["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
  assert.equal(invalid.details[0].reason, "API_KEY_INVALID");

  assert.equal((await body("gemini/403-permission-denied.json")).error.status, "PERMISSION_DENIED");
});

Deno.test("OpenAI fixtures have the shapes their names promise", async () => {
  for (const file of ["openai/ok.json", "openai/length.json", "openai/refusal.json"]) {
    const completion = await body(file);
    assert.equal(completion.object, "chat.completion", file);
    assert.equal(completion.model, "gpt-5-2025-08-07", file);
    assert.match(completion.id, /^chatcmpl-[A-Za-z0-9]{29}$/, file);
    const usage = completion.usage;
    assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens, file);
    assert.ok(usage.completion_tokens_details.reasoning_tokens <= usage.completion_tokens, file);
  }
  const length = await loadLlmFixture("openai/length.json");
  const lengthChoice = (length.body as Json).choices[0];
  assert.equal(lengthChoice.finish_reason, "length");
  assert.equal(lengthChoice.message.content, (length as Json)._expectedText);
  assert.ok(!lengthChoice.message.content.trimEnd().endsWith("^^^end"));

  const refusal = (await body("openai/refusal.json")).choices[0];
  assert.equal(refusal.message.content, null);
  assert.equal(typeof refusal.message.refusal, "string");

  const rate = await loadLlmFixture("openai/429-rate-limit.json");
  assert.equal(rate.headers["retry-after-ms"], "1200");
  assert.equal(rate.headers["x-ratelimit-remaining-requests"], "0");
  const rateError = (rate.body as Json).error;
  assert.equal(rateError.type, "requests");
  assert.equal(rateError.code, "rate_limit_exceeded");

  const key = (await body("openai/401-invalid-key.json")).error;
  assert.equal(key.code, "invalid_api_key");
  assert.match(key.message, /Incorrect API key provided: sk-proj-\*+abcd\./);

  const temperature = (await body("openai/400-unsupported-parameter.json")).error;
  assert.equal(temperature.param, "temperature");
  assert.equal(temperature.code, "unsupported_value");

  const server = (await body("openai/500.json")).error;
  assert.equal(server.type, "server_error");
  assert.equal(server.code, null);
});

Deno.test("the reply fixtures about line ends really hold CRLF and trailing spaces", () => {
  // A checkout that converted line ends would make those fixtures test nothing.
  const reply = (name: string) =>
    Deno.readTextFileSync(new URL(`fixtures/replies/${name}`, import.meta.url));
  assert.ok(reply("crlf.txt").includes("\r\n"));
  assert.ok(reply("unterminated_crlf.txt").includes("\r\n"));
  assert.ok(reply("trailing_whitespace.txt").includes("^^^end   \n"));
});
