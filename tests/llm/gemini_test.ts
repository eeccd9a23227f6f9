/**
 * Tests of the Gemini adapter: the request it builds (key in the header
 * only), how it reads a reply (validated with zod, the real-world shapes of
 * tests/fixtures/llm/gemini/), and how it reads an error body (the API's own
 * message, RetryInfo).
 */

import assert from "node:assert/strict";
import { geminiAdapter } from "../../lib/llm/gemini.ts";
import { loadLlmFixture } from "../support/fake_llm_server.ts";
import { GEMINI_KEY } from "../support/project.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const BASE = "https://generativelanguage.googleapis.com/v1beta";

async function fixtureBody(name: string): Promise<Json> {
  return (await loadLlmFixture(`gemini/${name}`)).body;
}

async function fixtureText(name: string): Promise<string> {
  return JSON.stringify((await loadLlmFixture(`gemini/${name}`)).body, null, 2);
}

/** Fixture bodies, loaded once. */
const FIXTURES = {
  blocked: await fixtureBody("blocked-prompt.json"),
  safety: await fixtureBody("safety-finish.json"),
};

/** A minimal valid body with these candidate fields. */
function reply(candidate: Json, extra: Json = {}): Json {
  return { candidates: [candidate], ...extra };
}

// ---------------------------------------------------------------------------
// Request

Deno.test("request: streamGenerateContent URL (server-sent events), key in x-goog-api-key only, prompt in contents", () => {
  const prompt = 'Rename fullName.\n\n--- src/a.ts ---\nconst s = "é ✓ \\u0000";\n';
  const request = geminiAdapter.request(BASE, "gemini-2.5-pro", GEMINI_KEY, prompt);
  assert.equal(request.url, `${BASE}/models/gemini-2.5-pro:streamGenerateContent?alt=sse`);
  assert.deepEqual(request.headers, {
    "content-type": "application/json",
    "x-goog-api-key": GEMINI_KEY,
  });
  const body = JSON.parse(request.body);
  assert.deepEqual(body, { contents: [{ role: "user", parts: [{ text: prompt }] }] });
  assert.equal(body.contents[0].parts[0].text, prompt);
  assert.ok(!request.url.includes(GEMINI_KEY), "the key is never in the URL");
  assert.ok(!request.url.includes("key="), "no ?key= query parameter");
  assert.ok(!request.body.includes(GEMINI_KEY), "the key is never in the body");
});

// ---------------------------------------------------------------------------
// Replies from the fixtures

Deno.test("ok.json: the text, STOP, and the token counts", async () => {
  const body = await fixtureBody("ok.json");
  const parsed = geminiAdapter.parseReply(body);
  assert.equal(parsed.text, body.candidates[0].content.parts[0].text);
  assert.equal(parsed.finishReason, "STOP");
  assert.equal(parsed.truncated, false);
  assert.deepEqual(parsed.usage, { input: 1843, cached: 0, output: 97, thinking: 1112 });
});

Deno.test("thought-parts.json: the text joins the non-thought parts, thoughts left out", async () => {
  const fixture = await loadLlmFixture("gemini/thought-parts.json");
  const expected = (fixture as unknown as { _expectedText: string })._expectedText;
  const parsed = geminiAdapter.parseReply(fixture.body);
  assert.equal(parsed.text, expected);
  assert.ok(!parsed.text.includes("**Locating the helper**"));
  assert.ok(!parsed.text.includes("Checking other callers"));
  assert.ok(parsed.text.includes("return `${first} ${last}`;"), "a part boundary mid-line joins");
  assert.deepEqual(parsed.usage, { input: 2210, cached: 0, output: 88, thinking: 1917 });
  assert.equal(parsed.truncated, false);
});

Deno.test("max-tokens-no-candidates-token-count.json: truncated, empty, zero output", async () => {
  const parsed = geminiAdapter.parseReply(
    await fixtureBody("max-tokens-no-candidates-token-count.json"),
  );
  assert.equal(parsed.truncated, true);
  assert.equal(parsed.finishReason, "MAX_TOKENS");
  assert.equal(parsed.text, "");
  assert.deepEqual(parsed.usage, { input: 1843, cached: 0, output: 0, thinking: 8189 });
});

Deno.test("MAX_TOKENS with some text marks the text truncated and keeps it", () => {
  const parsed = geminiAdapter.parseReply(reply({
    content: { role: "model", parts: [{ text: "^^^src/a.ts\nconst a" }] },
    finishReason: "MAX_TOKENS",
  }));
  assert.equal(parsed.text, "^^^src/a.ts\nconst a");
  assert.equal(parsed.truncated, true);
});

Deno.test("blocked-prompt.json: an error naming the block reason", () => {
  assert.throws(
    () => geminiAdapter.parseReply(FIXTURES.blocked),
    { message: "Gemini blocked the prompt (PROHIBITED_CONTENT)" },
  );
});

Deno.test("a blocked prompt with blockReasonMessage quotes it", () => {
  assert.throws(
    () =>
      geminiAdapter.parseReply({
        promptFeedback: { blockReason: "OTHER", blockReasonMessage: "The prompt was blocked." },
      }),
    { message: "Gemini blocked the prompt (OTHER): The prompt was blocked." },
  );
});

Deno.test("safety-finish.json: an error naming the finish reason, not an empty reply", () => {
  assert.throws(
    () => geminiAdapter.parseReply(FIXTURES.safety),
    { message: "Gemini stopped the reply (finish reason SAFETY)" },
  );
});

/** Non-normal finish reasons of the API; each is an error naming it. */
for (
  const reason of ["RECITATION", "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "LANGUAGE"]
) {
  Deno.test(`finish reason ${reason} is an error naming it (text or not)`, () => {
    assert.throws(
      () =>
        geminiAdapter.parseReply(reply({
          content: { role: "model", parts: [{ text: "partial answer" }] },
          finishReason: reason,
          finishMessage: "details from the API",
        })),
      { message: `Gemini stopped the reply (finish reason ${reason}): details from the API` },
    );
  });
}

Deno.test("no candidate at all, or an empty list, is an error", () => {
  assert.throws(() => geminiAdapter.parseReply({}), { message: "Gemini returned no candidate" });
  assert.throws(() => geminiAdapter.parseReply({ candidates: [] }), {
    message: "Gemini returned no candidate",
  });
});

Deno.test("empty content is an error naming the finish reason", () => {
  const empties: Json[] = [
    { content: { role: "model" }, finishReason: "STOP" },
    { content: { role: "model", parts: [] }, finishReason: "STOP" },
    { content: { role: "model", parts: [{ text: "" }] }, finishReason: "STOP" },
    { finishReason: "STOP" },
    { content: { role: "model", parts: [{ text: "only a thought", thought: true }] } },
    { content: { role: "model", parts: [{ inlineData: { mimeType: "image/png", data: "" } }] } },
  ];
  for (const candidate of empties) {
    assert.throws(
      () => geminiAdapter.parseReply(reply(candidate)),
      { message: "Gemini returned an empty reply (finish reason STOP)" },
      JSON.stringify(candidate),
    );
  }
});

Deno.test("a missing finish reason or FINISH_REASON_UNSPECIFIED reads as normal", () => {
  const noReason = geminiAdapter.parseReply(reply({ content: { parts: [{ text: "hi" }] } }));
  assert.equal(noReason.finishReason, "STOP");
  assert.equal(noReason.truncated, false);
  const unspecified = geminiAdapter.parseReply(
    reply({ content: { parts: [{ text: "hi" }] }, finishReason: "FINISH_REASON_UNSPECIFIED" }),
  );
  assert.equal(unspecified.text, "hi");
});

Deno.test("parts without text (function calls) and thought: false parts", () => {
  const parsed = geminiAdapter.parseReply(reply({
    content: {
      parts: [
        { functionCall: { name: "x", args: {} } },
        { text: "a", thought: false },
        { text: "b" },
      ],
    },
    finishReason: "STOP",
  }));
  assert.equal(parsed.text, "ab");
});

Deno.test("only the first candidate is read", () => {
  const parsed = geminiAdapter.parseReply({
    candidates: [
      { content: { parts: [{ text: "first" }] }, finishReason: "STOP" },
      { content: { parts: [{ text: "second" }] }, finishReason: "STOP" },
    ],
  });
  assert.equal(parsed.text, "first");
});

Deno.test("missing usageMetadata gives zero counts", () => {
  const parsed = geminiAdapter.parseReply(reply({ content: { parts: [{ text: "hi" }] } }));
  assert.deepEqual(parsed.usage, { input: 0, cached: 0, output: 0, thinking: 0 });
});

/** Bodies of the wrong shape: zod refuses them with a message. */
const MALFORMED: [string, unknown][] = [
  ["null", null],
  ["a string", "hello"],
  ["an array", [{ candidates: [] }]],
  ["candidates not an array", { candidates: { content: {} } }],
  ["a part's text not a string", reply({ content: { parts: [{ text: 42 }] } })],
  ["thought not a boolean", reply({ content: { parts: [{ text: "a", thought: "yes" }] } })],
  ["parts not an array", reply({ content: { parts: "hello" } })],
  ["a negative token count", {
    ...reply({ content: { parts: [{ text: "a" }] } }),
    usageMetadata: { promptTokenCount: -1 },
  }],
  ["a token count as a string", {
    ...reply({ content: { parts: [{ text: "a" }] } }),
    usageMetadata: { candidatesTokenCount: "12" },
  }],
  ["finishReason not a string", reply({ content: { parts: [{ text: "a" }] }, finishReason: 1 })],
];

for (const [name, body] of MALFORMED) {
  Deno.test(`a body of the wrong shape is refused: ${name}`, () => {
    assert.throws(
      () => geminiAdapter.parseReply(body),
      /^Error: the reply is not a generateContent response: .+/,
    );
  });
}

// ---------------------------------------------------------------------------
// Error bodies

Deno.test("429-retry-info.json: status word, message, and RetryInfo's delay", async () => {
  const text = await fixtureText("429-retry-info.json");
  const parsed = geminiAdapter.parseError(JSON.parse(text), text);
  assert.match(parsed.message, /^RESOURCE_EXHAUSTED: You exceeded your current quota/);
  assert.equal(parsed.retryDelayMs, 58_000);
});

Deno.test("RetryInfo delays with a fraction are read", async () => {
  for (const [delay, ms] of [["1.2s", 1200], ["0.2s", 200], ["0.250s", 250]] as const) {
    const text = (await fixtureText("429-retry-info.json")).replace('"58s"', `"${delay}"`);
    assert.equal(geminiAdapter.parseError(JSON.parse(text), text).retryDelayMs, ms, delay);
  }
});

Deno.test("503-overloaded.json: the API's own message, no delay", async () => {
  const text = await fixtureText("503-overloaded.json");
  assert.deepEqual(geminiAdapter.parseError(JSON.parse(text), text), {
    message: "UNAVAILABLE: The model is overloaded. Please try again later.",
    retryDelayMs: undefined,
    keyRejected: false,
  });
});

Deno.test("400 and 403 fixtures: the API's own message", async () => {
  const invalid = await fixtureText("400-invalid-argument.json");
  assert.equal(
    geminiAdapter.parseError(JSON.parse(invalid), invalid).message,
    "INVALID_ARGUMENT: API key not valid. Please pass a valid API key.",
  );
  const denied = await fixtureText("403-permission-denied.json");
  assert.match(
    geminiAdapter.parseError(JSON.parse(denied), denied).message,
    /^PERMISSION_DENIED: Generative Language API has not been used in project 123456789012/,
  );
});

Deno.test("an error wrapped in a one-element array is unwrapped", () => {
  const body = [{ error: { code: 503, message: "Overloaded.", status: "UNAVAILABLE" } }];
  assert.equal(
    geminiAdapter.parseError(body, JSON.stringify(body)).message,
    "UNAVAILABLE: Overloaded.",
  );
});

Deno.test("an error body that is not Google's shape falls back to the raw text, flattened", () => {
  const html = "<html>\n<body>\n<h1>502 Bad Gateway</h1>\n</body>\n</html>\n";
  assert.deepEqual(geminiAdapter.parseError(undefined, html), {
    message: "<html> <body> <h1>502 Bad Gateway</h1> </body> </html>",
  });
  assert.deepEqual(geminiAdapter.parseError(undefined, ""), { message: "(empty body)" });
  assert.deepEqual(geminiAdapter.parseError({ message: "x" }, '{"message":"x"}'), {
    message: '{"message":"x"}',
  });
  // An error object with neither status nor message: the raw text stands in.
  assert.equal(
    geminiAdapter.parseError({ error: { code: 500 } }, '{"error":{"code":500}}').message,
    '{"error":{"code":500}}',
  );
});

/** RetryInfo's `retryDelay`, and the delay it gives (a protobuf Duration: seconds and `s`). */
const DURATIONS: [unknown, number | undefined][] = [
  ["58s", 58_000],
  ["1.2s", 1_200],
  ["0.250s", 250],
  ["0.2s", 200],
  ["0s", 0],
  ["57.734122963s", 57_734],
  [" 3s ", 3_000],
  ["soon", undefined],
  ["58", undefined],
  ["58ms", undefined],
  ["-1s", undefined],
  ["1m", undefined],
  ["s", undefined],
  ["", undefined],
  [58, undefined],
  [undefined, undefined],
  [null, undefined],
  [{ seconds: 58 }, undefined],
];

for (const [retryDelay, expected] of DURATIONS) {
  Deno.test(`a RetryInfo delay of ${JSON.stringify(retryDelay)} gives ${expected}`, () => {
    const body = {
      error: {
        code: 429,
        message: "slow down",
        status: "RESOURCE_EXHAUSTED",
        details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay }],
      },
    };
    assert.equal(geminiAdapter.parseError(body, JSON.stringify(body)).retryDelayMs, expected);
  });
}
