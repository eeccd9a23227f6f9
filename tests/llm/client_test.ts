/**
 * Tests of the LLM client against the fake LLM server (real HTTP on
 * 127.0.0.1): the requests it sends (key in a header, never in the URL or
 * the body), the replies it reads, which failures it retries and exactly
 * how long it waits (the server's hints first, else the backoff formula),
 * the bounded attempts, the per-request timeout and the abort signal.
 *
 * Waits are recorded by an injected `sleep`; one test per API uses the
 * real sleep to show it really waits.
 */

import assert from "node:assert/strict";
import { createClient } from "../../lib/llm/client.ts";
import type { StreamProgress } from "../../lib/llm/adapter.ts";
import { resolveBaseUrl } from "../../lib/llm/endpoint.ts";
import { type ModelName, MODELS } from "../../lib/llm/models.ts";
import type { RetryPolicy } from "../../lib/llm/retry.ts";
import { type LlmClient, LlmError, type RetryNotice } from "../../lib/llm/types.ts";
import { InterruptedError } from "../../lib/errors/errors.ts";
import {
  type FakeLlmServer,
  geminiError,
  geminiReply,
  geminiStream,
  loadLlmFixture,
  openaiError,
  openaiReply,
  openaiStream,
  type ResponseStep,
  type ScriptStep,
  sseEvents,
  startFakeLlmServer,
  type StreamStep,
} from "../support/fake_llm_server.ts";
import { GEMINI_KEY, OPENAI_KEY } from "../support/project.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

// ---------------------------------------------------------------------------
// Harness

const KEYS: Record<ModelName, string> = {
  "gemini-2.5-pro": GEMINI_KEY,
  "gpt-5": OPENAI_KEY,
  "gemini-3-pro-preview": GEMINI_KEY,
  "gpt-5.2": OPENAI_KEY,
};

/** The test policy: 3 attempts, 1 s doubling to 8 s, hints up to 60 s. */
const POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 1_000,
  maxDelayMs: 8_000,
  maxHintMs: 60_000,
};

/** A running fake server that `await using` closes. */
type Server = FakeLlmServer & AsyncDisposable;

async function serve(script: ScriptStep[]): Promise<Server> {
  const server = await startFakeLlmServer(script);
  return Object.assign(server, { [Symbol.asyncDispose]: () => server.close() });
}

/** What one client under test recorded. */
interface Harness {
  readonly client: LlmClient;
  /** Every wait the client asked for, in milliseconds. */
  readonly waits: number[];
  /** Every retry notice, in order. */
  readonly notices: RetryNotice[];
}

interface HarnessOptions {
  readonly retry?: RetryPolicy;
  readonly timeoutMs?: number;
  readonly random?: () => number;
  /** Use the client's own sleep instead of recording. */
  readonly realSleep?: boolean;
}

/** Makes a client of `model` pointed at `server` the way a session does. */
function harness(model: ModelName, server: FakeLlmServer, options: HarnessOptions = {}): Harness {
  const info = MODELS[model];
  const value = info.provider === "gemini" ? server.geminiBaseUrl : server.openaiBaseUrl;
  const baseUrl = resolveBaseUrl(info.baseUrlEnv, value, info.defaultBaseUrl);
  const waits: number[] = [];
  const notices: RetryNotice[] = [];
  const sleep = (ms: number, signal?: AbortSignal) => {
    waits.push(ms);
    return signal?.aborted ? Promise.reject(new InterruptedError()) : Promise.resolve();
  };
  const client = createClient(model, KEYS[model], baseUrl, {
    timeoutMs: options.timeoutMs ?? 30_000,
    retry: options.retry ?? POLICY,
    random: options.random ?? (() => 0.5),
    ...(options.realSleep ? {} : { sleep }),
  });
  const complete = client.complete.bind(client);
  return {
    waits,
    notices,
    client: {
      model: client.model,
      complete: (prompt, callOptions = {}) =>
        complete(prompt, {
          ...callOptions,
          onRetry: (notice) => {
            notices.push(notice);
            callOptions.onRetry?.(notice);
          },
        }),
    },
  };
}

/** Calls and returns the LlmError the call must end with. */
async function failure(client: LlmClient, prompt = "the prompt"): Promise<LlmError> {
  try {
    await client.complete(prompt);
  } catch (error) {
    assert.ok(error instanceof LlmError, `expected an LlmError, got ${error}`);
    return error;
  }
  assert.fail("the call succeeded");
}

/**
 * The key is in the API's header and nowhere else: not in any URL, body or
 * other header of any request the server received.
 */
function assertKeyOnlyInHeader(server: FakeLlmServer): void {
  for (const request of server.requests) {
    for (const key of [GEMINI_KEY, OPENAI_KEY]) {
      assert.ok(!request.path.includes(key), `a key is in the URL ${request.path}`);
      assert.ok(!decodeURIComponent(request.path).includes(key), "a key is in the URL");
      assert.ok(!request.bodyText.includes(key), "a key is in the request body");
    }
    const { "x-goog-api-key": googKey, authorization, ...others } = request.headers;
    for (const [name, value] of Object.entries(others)) {
      assert.ok(!value.includes(GEMINI_KEY) && !value.includes(OPENAI_KEY), `key in ${name}`);
    }
    if (request.api === "gemini") {
      assert.equal(googKey, GEMINI_KEY);
      assert.equal(authorization, undefined);
    } else {
      assert.equal(authorization, `Bearer ${OPENAI_KEY}`);
      assert.equal(googKey, undefined);
    }
  }
}

/** No raw key in a text the user may see. */
function assertNoKey(text: string): void {
  assert.ok(!text.includes(GEMINI_KEY) && !text.includes(OPENAI_KEY), `a key in: ${text}`);
}

/** The Gemini RetryInfo detail. */
function retryInfo(delay: string): Json {
  return { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: delay };
}

/** `step` with more response headers. */
function withHeaders(step: ResponseStep, headers: Record<string, string>): ResponseStep {
  return { ...step, headers: { ...step.headers, ...headers } };
}

/** The body the server sends for a fixture (pretty-printed JSON). */
async function fixtureText(file: string): Promise<string> {
  return JSON.stringify((await loadLlmFixture(file)).body, null, 2);
}

/** Waits until the server has received `count` requests. */
async function receivedRequests(server: FakeLlmServer, count: number): Promise<void> {
  while (server.requests.length < count) await new Promise((r) => setTimeout(r, 5));
}

const OVERLOADED = () => geminiError(503, "The model is overloaded.", "UNAVAILABLE");

// ---------------------------------------------------------------------------
// Requests and replies

Deno.test("Gemini: POST <base>/models/gemini-2.5-pro:streamGenerateContent?alt=sse, key in x-goog-api-key", async () => {
  await using server = await serve([{ kind: "fixture", file: "gemini/ok.json" }]);
  const { client } = harness("gemini-2.5-pro", server);
  const prompt = 'Rename the helper.\n--- src/a.ts ---\nconst é = "✓";\n';
  const reply = await client.complete(prompt);

  assert.equal(server.requests.length, 1);
  const [request] = server.requests;
  assert.equal(request.method, "POST");
  assert.equal(request.path, "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
  assert.equal(request.api, "gemini");
  assert.equal(request.model, "gemini-2.5-pro");
  assert.equal(request.headers["x-goog-api-key"], GEMINI_KEY);
  assert.match(request.headers["content-type"], /^application\/json/);
  assert.equal((request.body as Json).contents[0].parts[0].text, prompt);
  assertKeyOnlyInHeader(server);

  const body = await fixtureText("gemini/ok.json");
  assert.equal(reply.body, body, "the whole JSON body, as received");
  assert.equal(reply.text, JSON.parse(body).candidates[0].content.parts[0].text);
  assert.deepEqual(reply.usage, { input: 1843, cached: 0, output: 97, thinking: 1112 });
  assert.equal(reply.finishReason, "STOP");
  assert.equal(reply.truncated, false);
  assert.equal(reply.attempts, 1);
  assert.ok(reply.elapsedMs > 0);
});

Deno.test("OpenAI: POST <base>/chat/completions, Bearer key, gpt-5, no temperature or limits", async () => {
  await using server = await serve([{ kind: "fixture", file: "openai/ok.json" }]);
  const { client } = harness("gpt-5", server);
  const reply = await client.complete("Make the build pass.");

  assert.equal(server.requests.length, 1);
  const [request] = server.requests;
  assert.equal(request.method, "POST");
  assert.equal(request.path, "/v1/chat/completions");
  assert.equal(request.headers.authorization, `Bearer ${OPENAI_KEY}`);
  assert.match(request.headers["content-type"], /^application\/json/);
  const body = request.body as Json;
  assert.equal(body.model, "gpt-5");
  assert.deepEqual(body.messages, [{ role: "user", content: "Make the build pass." }]);
  for (const name of ["temperature", "max_tokens", "max_completion_tokens"]) {
    assert.equal(name in body, false, `${name} must not be sent to gpt-5`);
  }
  assert.deepEqual(Object.keys(body).sort(), ["messages", "model", "stream", "stream_options"]);
  assert.deepEqual(body.stream_options, { include_usage: true });
  assertKeyOnlyInHeader(server);

  assert.equal(reply.body, await fixtureText("openai/ok.json"));
  assert.deepEqual(reply.usage, { input: 1791, cached: 0, output: 92, thinking: 1152 });
  assert.equal(reply.finishReason, "stop");
  assert.equal(reply.attempts, 1);
});

Deno.test("Gemini thought parts through HTTP: only the answer parts, joined", async () => {
  await using server = await serve([{ kind: "fixture", file: "gemini/thought-parts.json" }]);
  const fixture = await loadLlmFixture("gemini/thought-parts.json");
  const reply = await harness("gemini-2.5-pro", server).client.complete("x");
  assert.equal(reply.text, (fixture as unknown as { _expectedText: string })._expectedText);
});

Deno.test("truncated replies come back marked, not as errors (MAX_TOKENS, length)", async () => {
  await using server = await serve([
    { kind: "fixture", file: "gemini/max-tokens-no-candidates-token-count.json" },
    { kind: "fixture", file: "openai/length.json" },
  ]);
  const gemini = await harness("gemini-2.5-pro", server).client.complete("x");
  assert.equal(gemini.truncated, true);
  assert.equal(gemini.text, "");
  assert.deepEqual(gemini.usage, { input: 1843, cached: 0, output: 0, thinking: 8189 });
  const openai = await harness("gpt-5", server).client.complete("x");
  assert.equal(openai.truncated, true);
  assert.equal(openai.finishReason, "length");
  assert.match(openai.text, /for \(const tok$/);
});

/** 200 answers that are not usable replies: an error naming why, never retried. */
const UNUSABLE: [string, ModelName, ScriptStep, RegExp][] = [
  [
    "a blocked prompt",
    "gemini-2.5-pro",
    { kind: "fixture", file: "gemini/blocked-prompt.json" },
    /^gemini-2\.5-pro: Gemini blocked the prompt \(PROHIBITED_CONTENT\)$/,
  ],
  [
    "a SAFETY finish",
    "gemini-2.5-pro",
    { kind: "fixture", file: "gemini/safety-finish.json" },
    /^gemini-2\.5-pro: Gemini stopped the reply \(finish reason SAFETY\)$/,
  ],
  [
    "an empty Gemini reply",
    "gemini-2.5-pro",
    geminiReply(""),
    /^gemini-2\.5-pro: Gemini returned an empty reply \(finish reason STOP\)$/,
  ],
  [
    "an OpenAI refusal",
    "gpt-5",
    { kind: "fixture", file: "openai/refusal.json" },
    /^gpt-5: the model refused: I'm sorry, but I can't help with that\.$/,
  ],
  [
    "a body of the wrong shape",
    "gpt-5",
    { kind: "response", status: 200, body: { choices: "none" } },
    /^gpt-5: the reply is not a chat completion: /,
  ],
  [
    "a body that is not JSON",
    "gemini-2.5-pro",
    { kind: "response", status: 200, body: "<html>\n<body>Welcome to the captive portal</body>" },
    /^gemini-2\.5-pro: the reply is not JSON: <html> <body>Welcome to the captive portal<\/body>$/,
  ],
];

for (const [name, model, step, pattern] of UNUSABLE) {
  Deno.test(`a 200 with ${name} is an LlmError with the body, not retried`, async () => {
    await using server = await serve([step, step]);
    const { client, waits } = harness(model, server);
    const error = await failure(client);
    assert.match(error.message, pattern);
    assert.equal(error.status, 200);
    assert.ok(error.body !== undefined && error.body.length > 0, "the body is kept for the log");
    assert.equal(server.requests.length, 1);
    assert.deepEqual(waits, []);
  });
}

// ---------------------------------------------------------------------------
// Errors that are not retried

/** Non-retryable errors: the step, the model, what the message must contain, the key hint. */
const NOT_RETRIED: [string, ModelName, ScriptStep, string, boolean][] = [
  [
    "Gemini 400 (invalid key)",
    "gemini-2.5-pro",
    { kind: "fixture", file: "gemini/400-invalid-argument.json" },
    "HTTP 400 INVALID_ARGUMENT: API key not valid. Please pass a valid API key.",
    true, // API_KEY_INVALID: Gemini's way of saying 401
  ],

  [
    "Gemini 404",
    "gemini-2.5-pro",
    geminiError(404, "models/gemini-2.5-pro is not found for API version v1beta.", "NOT_FOUND"),
    "HTTP 404 NOT_FOUND: models/gemini-2.5-pro is not found for API version v1beta.",
    false,
  ],
  [
    "Gemini 401",
    "gemini-2.5-pro",
    geminiError(401, "Request had invalid authentication credentials.", "UNAUTHENTICATED"),
    "HTTP 401 UNAUTHENTICATED: Request had invalid authentication credentials.",
    true,
  ],
  [
    "OpenAI 400 (unsupported temperature)",
    "gpt-5",
    { kind: "fixture", file: "openai/400-unsupported-parameter.json" },
    "HTTP 400 unsupported_value: Unsupported value: 'temperature' does not support 0.2",
    false,
  ],
  [
    "OpenAI 401 (invalid key)",
    "gpt-5",
    { kind: "fixture", file: "openai/401-invalid-key.json" },
    "HTTP 401 invalid_api_key: Incorrect API key provided: sk-proj-***",
    true,
  ],
  [
    "OpenAI 403",
    "gpt-5",
    openaiError(
      403,
      "Country, region, or territory not supported",
      "request_forbidden",
      "unsupported_country_region_territory",
    ),
    "HTTP 403 unsupported_country_region_territory: Country, region, or territory not supported",
    true,
  ],
  [
    "OpenAI 404",
    "gpt-5",
    openaiError(
      404,
      "The model `gpt-5` does not exist or you do not have access to it.",
      "invalid_request_error",
      "model_not_found",
    ),
    "HTTP 404 model_not_found: The model `gpt-5` does not exist",
    false,
  ],
];

for (const [name, model, step, expected, keyHint] of NOT_RETRIED) {
  // A Gemini 404 to the streaming method is asked once more at the plain one (a server that
  // knows only generateContent); a 404 there too is the end.
  const plainToo = name === "Gemini 404";
  Deno.test(`${name}: exactly one request, the API's own message`, async () => {
    await using server = await serve([
      step,
      plainToo ? step : geminiReply("never sent"),
      geminiReply("never sent"),
      openaiReply("never"),
    ]);
    const { client, waits, notices } = harness(model, server);
    const error = await failure(client);
    assert.equal(server.requests.length, plainToo ? 2 : 1, "not retried");
    if (plainToo) assert.match(server.requests[1].path, /:generateContent$/);
    assert.deepEqual(waits, []);
    assert.deepEqual(notices, []);
    assert.ok(error.message.startsWith(`${model}: `), error.message);
    assert.ok(error.message.includes(expected), error.message);
    const hint = ` (check the key in ${MODELS[model].keyFile})`;
    assert.equal(error.message.endsWith(hint), keyHint, error.message);
    assert.doesNotMatch(error.message, /after \d+ attempts/);
    const status = step.kind === "fixture"
      ? (await loadLlmFixture(step.file)).status
      : (step as ResponseStep).status;
    assert.equal(error.status, status);
    assert.ok(error.body?.includes('"error"'), "the error body is kept for the log");
    assertNoKey(error.message);
    assertKeyOnlyInHeader(server);
  });
}

// ---------------------------------------------------------------------------
// Retries and their waits

for (const status of [408, 429, 500, 502, 503, 504]) {
  for (const model of ["gemini-2.5-pro", "gpt-5"] as const) {
    Deno.test(`${model}: HTTP ${status} is retried after the backoff, then succeeds`, async () => {
      const error = model === "gpt-5"
        ? openaiError(status, `failure ${status}`, "server_error")
        : geminiError(status, `failure ${status}`, "UNAVAILABLE");
      const ok = model === "gpt-5" ? openaiReply("done") : geminiReply("done");
      await using server = await serve([error, ok]);
      const { client, waits, notices } = harness(model, server);
      const reply = await client.complete("x");
      assert.equal(reply.text, "done");
      assert.equal(reply.attempts, 2);
      assert.equal(server.requests.length, 2);
      // No hint: base 1000 ms · 2^0, jitter factor 0.5 + 0.5/2 = 0.75.
      assert.deepEqual(waits, [750]);
      assert.equal(notices.length, 1);
      assert.equal(notices[0].attempt, 1);
      assert.equal(notices[0].maxAttempts, 3);
      assert.equal(notices[0].delayMs, 750);
      assert.equal(notices[0].serverHint, false);
      assert.match(notices[0].reason, new RegExp(`^HTTP ${status} .*failure ${status}$`));
      assert.equal(server.requests[0].bodyText, server.requests[1].bodyText, "the same request");
      assertKeyOnlyInHeader(server);
    });
  }
}

Deno.test("backoff without hints: base·2^(n-1), capped, times the jitter drawn from random", async () => {
  await using server = await serve([
    OVERLOADED(),
    OVERLOADED(),
    OVERLOADED(),
    OVERLOADED(),
    OVERLOADED(),
    geminiReply("finally"),
  ]);
  const draws = [0, 0.5, 0.999, 0.25, 0];
  const { client, waits, notices } = harness("gemini-2.5-pro", server, {
    retry: { maxAttempts: 6, baseDelayMs: 1_000, maxDelayMs: 5_000, maxHintMs: 60_000 },
    random: () => draws.shift()!,
  });
  const reply = await client.complete("x");
  assert.equal(reply.attempts, 6);
  // ceilings 1000, 2000, 4000, 5000 (capped), 5000; factors 0.5, 0.75, 0.9995, 0.625, 0.5
  assert.deepEqual(waits, [500, 1_500, 3_998, 3_125, 2_500]);
  assert.deepEqual(notices.map((n) => n.attempt), [1, 2, 3, 4, 5]);
  assert.ok(notices.every((n) => !n.serverHint && n.maxAttempts === 6));
});

/** Server hints: the step and the wait it must give. */
const HINTS: [string, ModelName, ScriptStep, number][] = [
  [
    "OpenAI 429: retry-after-ms beats retry-after",
    "gpt-5",
    { kind: "fixture", file: "openai/429-rate-limit.json" }, // retry-after-ms 1200, retry-after 2
    1_200,
  ],
  [
    "retry-after in seconds",
    "gpt-5",
    withHeaders(openaiError(503, "busy", "server_error"), { "retry-after": "7" }),
    7_000,
  ],
  [
    "Gemini 429 fixture: RetryInfo 58s",
    "gemini-2.5-pro",
    { kind: "fixture", file: "gemini/429-retry-info.json" },
    58_000,
  ],
  [
    "RetryInfo 1.2s",
    "gemini-2.5-pro",
    { kind: "fixture", file: "gemini/429-retry-info.json", replace: { '"58s"': '"1.2s"' } },
    1_200,
  ],
  [
    "retry-after beats RetryInfo",
    "gemini-2.5-pro",
    withHeaders(
      geminiError(429, "quota", "RESOURCE_EXHAUSTED", [retryInfo("58s")]),
      { "retry-after": "3" },
    ),
    3_000,
  ],
  [
    "retry-after-ms beats retry-after and RetryInfo",
    "gemini-2.5-pro",
    withHeaders(
      geminiError(429, "quota", "RESOURCE_EXHAUSTED", [retryInfo("58s")]),
      { "retry-after-ms": "250", "retry-after": "3" },
    ),
    250,
  ],
  [
    "retry-after as a date in the past: no wait",
    "gpt-5",
    withHeaders(openaiError(503, "busy", "server_error"), {
      "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT",
    }),
    0,
  ],
  [
    "a hint on a 503, not only a 429",
    "gemini-2.5-pro",
    geminiError(503, "The model is overloaded.", "UNAVAILABLE", [retryInfo("0.250s")]),
    250,
  ],
];

for (const [name, model, step, expected] of HINTS) {
  Deno.test(`the wait follows the server's hint: ${name}`, async () => {
    const ok = model === "gpt-5" ? openaiReply("done") : geminiReply("done");
    await using server = await serve([step, ok]);
    const { client, waits, notices } = harness(model, server);
    const reply = await client.complete("x");
    assert.equal(reply.text, "done");
    assert.deepEqual(waits, [expected]);
    assert.equal(notices[0].delayMs, expected);
    assert.equal(notices[0].serverHint, true);
  });
}

Deno.test("an unreadable retry-after falls back to the backoff", async () => {
  await using server = await serve([
    withHeaders(openaiError(503, "busy", "server_error"), { "retry-after": "soon" }),
    openaiReply("done"),
  ]);
  const { client, waits, notices } = harness("gpt-5", server);
  await client.complete("x");
  assert.deepEqual(waits, [750]);
  assert.equal(notices[0].serverHint, false);
});

Deno.test("each retry follows its own answer's hint", async () => {
  await using server = await serve([
    { kind: "fixture", file: "gemini/429-retry-info.json", replace: { '"58s"': '"1.2s"' } },
    OVERLOADED(),
    { kind: "fixture", file: "gemini/429-retry-info.json", replace: { '"58s"': '"0.3s"' } },
    geminiReply("done"),
  ]);
  const { client, waits, notices } = harness("gemini-2.5-pro", server, {
    retry: { ...POLICY, maxAttempts: 4 },
  });
  await client.complete("x");
  // hint, backoff for retry 2 (2000 · 0.75), hint
  assert.deepEqual(waits, [1_200, 1_500, 300]);
  assert.deepEqual(notices.map((n) => n.serverHint), [true, false, true]);
});

Deno.test("a hint longer than maxHintMs ends the call with a message, without waiting", async () => {
  await using server = await serve([
    { kind: "fixture", file: "gemini/429-retry-info.json" },
    geminiReply("never"),
  ]);
  const { client, waits } = harness("gemini-2.5-pro", server, {
    retry: { ...POLICY, maxHintMs: 30_000 },
  });
  const error = await failure(client);
  assert.equal(server.requests.length, 1);
  assert.deepEqual(waits, []);
  assert.match(error.message, /^gemini-2\.5-pro: HTTP 429 RESOURCE_EXHAUSTED: You exceeded/);
  assert.ok(
    error.message.endsWith(
      "; the server asks to wait 58s before trying again, longer than code-commit waits (30s): " +
        "try again later",
    ),
    error.message,
  );
  assert.equal(error.status, 429);
});

Deno.test("a hint exactly at maxHintMs is honoured", async () => {
  await using server = await serve([
    { kind: "fixture", file: "gemini/429-retry-info.json" },
    geminiReply("done"),
  ]);
  const { client, waits } = harness("gemini-2.5-pro", server, {
    retry: { ...POLICY, maxHintMs: 58_000 },
  });
  await client.complete("x");
  assert.deepEqual(waits, [58_000]);
});

Deno.test("attempts are bounded by maxAttempts, and the message says how many", async () => {
  await using server = await serve([OVERLOADED(), OVERLOADED(), OVERLOADED(), OVERLOADED()]);
  const { client, waits, notices } = harness("gemini-2.5-pro", server);
  const error = await failure(client);
  assert.equal(server.requests.length, 3);
  assert.equal(server.remaining(), 1);
  assert.deepEqual(waits, [750, 1_500]);
  assert.equal(notices.length, 2);
  assert.equal(
    error.message,
    "gemini-2.5-pro: HTTP 503 UNAVAILABLE: The model is overloaded. (after 3 attempts)",
  );
  assert.equal(error.status, 503);
  assert.ok(error.body?.includes("The model is overloaded."));
});

Deno.test("maxAttempts 1 never retries", async () => {
  await using server = await serve([
    { kind: "fixture", file: "openai/500.json" },
    openaiReply("x"),
  ]);
  const { client, waits } = harness("gpt-5", server, { retry: { ...POLICY, maxAttempts: 1 } });
  const error = await failure(client);
  assert.equal(server.requests.length, 1);
  assert.deepEqual(waits, []);
  assert.match(error.message, /^gpt-5: HTTP 500 server_error: The server had an error/);
});

/** Error bodies that repeat the status, and the message naming it once. */
const STATUS_ECHOES: [string, ModelName, unknown, string][] = [
  [
    "an OpenAI-compatible server's numeric code",
    "gpt-5",
    { error: { code: 500, message: "model failed to load", type: "server_error" } },
    "gpt-5: HTTP 500 server_error: model failed to load",
  ],
  [
    "a numeric code and no type",
    "gpt-5",
    { error: { code: 500, message: "model failed to load" } },
    "gpt-5: HTTP 500 model failed to load",
  ],
  [
    "a proxy's plain-text body",
    "gemini-2.5-pro",
    "500 Internal Server Error\n",
    "gemini-2.5-pro: HTTP 500 Internal Server Error",
  ],
  [
    "a proxy's bare status",
    "gemini-2.5-pro",
    "500",
    "gemini-2.5-pro: HTTP 500",
  ],
];

for (const [name, model, body, expected] of STATUS_ECHOES) {
  Deno.test(`an error answer with ${name} names its status once`, async () => {
    await using server = await serve([{ kind: "response", status: 500, body }]);
    const { client } = harness(model, server, { retry: { ...POLICY, maxAttempts: 1 } });
    const error = await failure(client);
    assert.equal(error.message, expected);
  });
}

Deno.test("the last attempt's rate limit ends the call even with a hint", async () => {
  const limited: ScriptStep = { kind: "fixture", file: "openai/429-rate-limit.json" };
  await using server = await serve([limited, limited, limited]);
  const { client, waits } = harness("gpt-5", server);
  const error = await failure(client);
  assert.deepEqual(waits, [1_200, 1_200]);
  assert.match(error.message, /^gpt-5: HTTP 429 rate_limit_exceeded: Rate limit reached/);
  assert.match(error.message, /\(after 3 attempts\)$/);
});

Deno.test("a retryable answer that is not JSON (a proxy's 502 page) is retried", async () => {
  await using server = await serve([
    { kind: "response", status: 502, body: "<html>\n<h1>502 Bad Gateway</h1>\n</html>\n" },
    geminiReply("done"),
  ]);
  const { client, notices } = harness("gemini-2.5-pro", server);
  assert.equal((await client.complete("x")).text, "done");
  assert.equal(notices[0].reason, "HTTP 502 <html> <h1>502 Bad Gateway</h1> </html>");
});

// ---------------------------------------------------------------------------
// Errors no wait can cure: one request, the cause named, what to do

/**
 * Real bodies (see each fixture's _note) that a retry cannot cure: the step,
 * the model, the start of the message (the model, the cause, what to do),
 * and the API's own words that must follow.
 */
const INCURABLE: [string, ModelName, ScriptStep, string, string][] = [
  [
    "Gemini 429 with a per-day quota",
    "gemini-2.5-pro",
    { kind: "fixture", file: "gemini/429-per-day-quota.json" },
    "gemini-2.5-pro: daily quota used up (GenerateContentInputTokensPerModelPerDay-FreeTier); " +
    "it resets at midnight Pacific time: run again then, or raise the quota with billing on " +
    "the key's Google Cloud project; not retried: ",
    "HTTP 429 RESOURCE_EXHAUSTED: You exceeded your current quota",
  ],
  [
    "Gemini 429 with limit: 0 for the model (free tier)",
    "gemini-2.5-pro",
    { kind: "fixture", file: "gemini/429-free-tier-limit-zero.json" },
    "gemini-2.5-pro: free-tier limit: the free tier allows this model no requests (limit 0); " +
    "enable billing for the key's Google Cloud project (Google AI Studio, Billing), or choose " +
    "another model with --model; not retried: ",
    "limit: 0, model: gemini-2.5-pro Please retry in 35.593370567s.",
  ],
  [
    "OpenAI 429 request too large",
    "gpt-5",
    { kind: "fixture", file: "openai/429-request-too-large.json" },
    "gpt-5: request larger than the limit (30,601 tokens requested, 30,000 allowed per minute); " +
    "make the prompt smaller (a smaller agent-config/codeRollup.txt, or --build-context), or " +
    "raise the organization's limit (a higher usage tier); not retried: ",
    "HTTP 429 rate_limit_exceeded: Request too large for gpt-5 in organization",
  ],
  [
    "Gemini 403 SERVICE_DISABLED (the key is fine)",
    "gemini-2.5-pro",
    { kind: "fixture", file: "gemini/403-permission-denied.json" },
    "gemini-2.5-pro: API not enabled: Generative Language API is not enabled for the key's " +
    "Google Cloud project; enable it at https://console.developers.google.com/apis/api/" +
    "generativelanguage.googleapis.com/overview?project=123456789012, wait a few minutes, and " +
    "run again; not retried: ",
    "HTTP 403 PERMISSION_DENIED: Generative Language API has not been used in project",
  ],
];

for (const [name, model, step, start, apiWords] of INCURABLE) {
  Deno.test(`${name}: one request, exit with the cause and what to do`, async () => {
    const ok = MODELS[model].provider === "gemini" ? geminiReply("never") : openaiReply("never");
    await using server = await serve([step, ok]);
    const { client, waits, notices } = harness(model, server);
    const error = await failure(client);
    assert.equal(server.requests.length, 1, "not retried");
    assert.deepEqual(waits, []);
    assert.deepEqual(notices, []);
    assert.ok(error.message.startsWith(start), error.message);
    assert.ok(error.message.includes(apiWords), error.message);
    assert.doesNotMatch(error.message, /\(not retried/, "the API's words are not put in brackets");
    assert.doesNotMatch(error.message, /check the key/);
    assert.doesNotMatch(error.message, /[\r\n]/);
    assert.equal(error.status, (await loadLlmFixture((step as { file: string }).file)).status);
    assert.ok(error.body?.includes('"error"'), "the body is kept for the log");
  });
}

Deno.test("a per-day quota after a transient error ends the call and counts the attempts", async () => {
  await using server = await serve([
    OVERLOADED(),
    { kind: "fixture", file: "gemini/429-per-day-quota.json" },
    geminiReply("never"),
  ]);
  const { client, waits } = harness("gemini-2.5-pro", server);
  const error = await failure(client);
  assert.equal(server.requests.length, 2);
  assert.deepEqual(waits, [750]);
  assert.match(error.message, /^gemini-2\.5-pro: daily quota used up /);
  assert.match(error.message, /; not retried: HTTP 429 [^()]* \(after 2 attempts\)$/);
});

Deno.test("a quota counted per minute is still retried, as the server's RetryInfo says", async () => {
  // The fixture's QuotaFailure names GenerateRequestsPerMinutePerProjectPerModel-FreeTier, limit 2.
  await using server = await serve([
    { kind: "fixture", file: "gemini/429-retry-info.json", replace: { '"58s"': '"1.5s"' } },
    geminiReply("done"),
  ]);
  const { client, waits } = harness("gemini-2.5-pro", server);
  assert.equal((await client.complete("x")).text, "done");
  assert.deepEqual(waits, [1_500]);
});

Deno.test("a quotaValue of 0 alone marks the free-tier limit", async () => {
  await using server = await serve([
    geminiError(429, "You exceeded your current quota.", "RESOURCE_EXHAUSTED", [{
      "@type": "type.googleapis.com/google.rpc.QuotaFailure",
      violations: [{
        quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
        quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
        quotaValue: "0",
      }],
    }, retryInfo("20s")]),
    geminiReply("never"),
  ]);
  const error = await failure(harness("gemini-3-pro-preview", server).client);
  assert.equal(server.requests.length, 1);
  assert.match(error.message, /^gemini-3-pro-preview: free-tier limit: /);
});

Deno.test("limit: 0 on a paid quota says the project has no quota for the model", async () => {
  // The body a user with prepaid credits quoted (davidlary/PortraitGenerator, 2026-01-31).
  await using server = await serve([
    geminiError(
      429,
      "You exceeded your current quota, please check your plan and billing details. \n* Quota " +
        "exceeded for metric: generativelanguage.googleapis.com/generate_requests_per_model_per_day, limit: 0",
      "RESOURCE_EXHAUSTED",
      [{
        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
        violations: [{
          quotaMetric: "generativelanguage.googleapis.com/generate_requests_per_model_per_day",
          quotaId: "GenerateRequestsPerDayPerProjectPerModel",
        }],
      }],
    ),
    geminiReply("never"),
  ]);
  const error = await failure(harness("gemini-2.5-pro", server).client);
  assert.equal(server.requests.length, 1);
  assert.match(
    error.message,
    /^gemini-2\.5-pro: no quota: the key's project may not use this model \(limit 0\); ask for a quota/,
  );
});

Deno.test("OpenAI's limit merely reached (Requested below the Limit) is still retried", async () => {
  // 429-rate-limit.json: "Limit 500, Used 500, Requested 1".
  await using server = await serve([
    { kind: "fixture", file: "openai/429-rate-limit.json" },
    openaiReply("done"),
  ]);
  const { client, waits } = harness("gpt-5.2", server);
  assert.equal((await client.complete("x")).text, "done");
  assert.deepEqual(waits, [1_200]);
});

// ---------------------------------------------------------------------------
// Each model's request, and local models

Deno.test("gemini-3-pro-preview: its own path, and thinkingLevel high instead of a budget", async () => {
  await using server = await serve([{ kind: "fixture", file: "gemini/ok.json" }]);
  await harness("gemini-3-pro-preview", server).client.complete("the prompt");
  const [request] = server.requests;
  assert.equal(request.path, "/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse");
  assert.equal(request.model, "gemini-3-pro-preview");
  assert.deepEqual(request.body, {
    contents: [{ role: "user", parts: [{ text: "the prompt" }] }],
    generationConfig: { thinkingConfig: { thinkingLevel: "high" } },
  });
  assertKeyOnlyInHeader(server);
});

Deno.test("gemini-2.5-pro: contents only (no thinking budget or level: it thinks dynamically)", async () => {
  await using server = await serve([{ kind: "fixture", file: "gemini/ok.json" }]);
  await harness("gemini-2.5-pro", server).client.complete("the prompt");
  assert.deepEqual(server.requests[0].body, {
    contents: [{ role: "user", parts: [{ text: "the prompt" }] }],
  });
});

Deno.test("gpt-5.2: model gpt-5.2 with reasoning_effort high (it reasons at none unless told)", async () => {
  await using server = await serve([{ kind: "fixture", file: "openai/ok.json" }]);
  await harness("gpt-5.2", server).client.complete("the prompt");
  const [request] = server.requests;
  assert.equal(request.path, "/v1/chat/completions");
  assert.deepEqual(request.body, {
    model: "gpt-5.2",
    messages: [{ role: "user", content: "the prompt" }],
    reasoning_effort: "high",
    stream: true,
    stream_options: { include_usage: true },
  });
  assertKeyOnlyInHeader(server);
});

Deno.test("cached input is read from both APIs' usage", async () => {
  await using server = await serve([
    {
      kind: "fixture",
      file: "gemini/ok.json",
      replace: {
        '"promptTokenCount": 1843,': '"promptTokenCount": 1843,\n"cachedContentTokenCount": 1024,',
      },
    },
    {
      kind: "fixture",
      file: "openai/ok.json",
      replace: { '"cached_tokens": 0': '"cached_tokens": 1536' },
    },
  ]);
  const gemini = await harness("gemini-2.5-pro", server).client.complete("x");
  assert.deepEqual(gemini.usage, { input: 1843, cached: 1024, output: 97, thinking: 1112 });
  const openai = await harness("gpt-5", server).client.complete("x");
  assert.deepEqual(openai.usage, { input: 1791, cached: 1536, output: 92, thinking: 1152 });
});

/** A client of `local:NAME` pointed at the fake server's OpenAI-compatible route, as a session makes it. */
function localClient(name: string, server: FakeLlmServer): LlmClient {
  return createClient(`local:${name}`, undefined, server.openaiBaseUrl, {
    timeoutMs: 30_000,
    retry: POLICY,
    random: () => 0.5,
    sleep: () => Promise.resolve(),
  });
}

Deno.test("local:NAME sends NAME, and no key at all, to the OpenAI-compatible endpoint", async () => {
  await using server = await serve([openaiReply("from the local model")]);
  const client = localClient("qwen2.5-coder:32b", server);
  assert.equal(client.model, "local:qwen2.5-coder:32b");
  const reply = await client.complete("the prompt");
  assert.equal(reply.text, "from the local model");
  const [request] = server.requests;
  assert.equal(request.path, "/v1/chat/completions");
  assert.equal(request.model, "qwen2.5-coder:32b");
  assert.deepEqual(request.body, {
    model: "qwen2.5-coder:32b",
    messages: [{ role: "user", content: "the prompt" }],
    stream: true,
    stream_options: { include_usage: true },
  });
  assert.equal(request.headers.authorization, undefined);
  assert.equal(request.headers["x-goog-api-key"], undefined);
});

Deno.test("a local server that wants a key: the message says none is sent, not to check a key file", async () => {
  await using server = await serve([
    openaiError(401, "Invalid API Key", "invalid_request_error", "invalid_api_key"),
  ]);
  const error = await failure(localClient("llama3", server));
  assert.equal(
    error.message,
    "local:llama3: HTTP 401 invalid_api_key: Invalid API Key " +
      "(the server wants a key, but code-commit sends none to a local model)",
  );
});

Deno.test("a model of the table without a key is a programming error", () => {
  assert.throws(
    () => createClient("gpt-5.2", undefined, "https://api.openai.com/v1", { timeoutMs: 1_000 }),
    /createClient: gpt-5\.2 needs the key of agent-config\/openai-key\.txt/,
  );
});

// ---------------------------------------------------------------------------
// Network errors, timeout, abort

Deno.test("a dropped connection is retried after the backoff, then succeeds", async () => {
  await using server = await serve([{ kind: "reset" }, openaiReply("after the reset")]);
  const { client, waits, notices } = harness("gpt-5", server);
  const reply = await client.complete("x");
  assert.equal(reply.text, "after the reset");
  assert.equal(reply.attempts, 2);
  assert.equal(server.requests.length, 2);
  assert.deepEqual(waits, [750]);
  assert.equal(notices[0].serverHint, false);
  assert.match(notices[0].reason, /^cannot reach 127\.0\.0\.1:\d+: /);
  assertNoKey(notices[0].reason);
  assertKeyOnlyInHeader(server);
});

Deno.test("dropped connections on every attempt: an LlmError naming the host", async () => {
  await using server = await serve([{ kind: "reset" }, { kind: "reset" }, { kind: "reset" }]);
  const { client, waits } = harness("gemini-2.5-pro", server);
  const error = await failure(client);
  assert.equal(server.requests.length, 3);
  assert.deepEqual(waits, [750, 1_500]);
  assert.match(
    error.message,
    /^gemini-2\.5-pro: cannot reach 127\.0\.0\.1:\d+: .+ \(after 3 attempts\)$/,
  );
  assert.ok(error.cause instanceof TypeError);
  assert.equal(error.status, undefined);
  assert.equal(error.body, undefined);
  assertNoKey(error.message);
});

Deno.test("no answer within timeoutMs: an LlmError saying so, not retried", async () => {
  await using server = await serve([{ kind: "hang" }, geminiReply("never")]);
  const { client, waits, notices } = harness("gemini-2.5-pro", server, { timeoutMs: 200 });
  const started = performance.now();
  const error = await failure(client);
  assert.ok(performance.now() - started >= 200, "it waited the whole time limit");
  assert.equal(
    error.message,
    "gemini-2.5-pro: no reply within 0.2s; raise --llm-timeout if the model needs longer",
  );
  assert.equal(server.requests.length, 1);
  assert.deepEqual(waits, []);
  assert.deepEqual(notices, []);
});

Deno.test("the time limit is per request: a slow answer within it is fine", async () => {
  await using server = await serve([{ ...openaiReply("slow but fine"), delayMs: 100 }]);
  const { client } = harness("gpt-5", server, { timeoutMs: 5_000 });
  assert.equal((await client.complete("x")).text, "slow but fine");
});

Deno.test("an abort during the request: InterruptedError, no retry", async () => {
  await using server = await serve([{ kind: "hang" }, openaiReply("never")]);
  const { client, waits } = harness("gpt-5", server);
  const controller = new AbortController();
  const call = client.complete("x", { signal: controller.signal });
  await receivedRequests(server, 1);
  controller.abort();
  await assert.rejects(call, InterruptedError);
  assert.equal(server.requests.length, 1);
  assert.deepEqual(waits, []);
});

Deno.test("a signal aborted before the call: InterruptedError, nothing sent", async () => {
  await using server = await serve([geminiReply("never")]);
  const { client } = harness("gemini-2.5-pro", server);
  await assert.rejects(
    client.complete("x", { signal: AbortSignal.abort() }),
    InterruptedError,
  );
  assert.equal(server.requests.length, 0);
});

Deno.test("an abort during the wait between attempts (real sleep): InterruptedError at once", async () => {
  await using server = await serve([
    withHeaders(openaiError(503, "busy", "server_error"), { "retry-after": "30" }),
    openaiReply("never"),
  ]);
  const { client } = harness("gpt-5", server, { realSleep: true });
  const controller = new AbortController();
  const call = client.complete("x", {
    signal: controller.signal,
    onRetry: () => setTimeout(() => controller.abort(), 50),
  });
  await assert.rejects(call, InterruptedError);
  assert.equal(server.requests.length, 1, "the 30 s wait was cut short, nothing more sent");
});

// ---------------------------------------------------------------------------
// The real sleep really waits

Deno.test("real sleep: Gemini's RetryInfo 0.2s is waited before the next request", async () => {
  await using server = await serve([
    { kind: "fixture", file: "gemini/429-retry-info.json", replace: { '"58s"': '"0.2s"' } },
    geminiReply("done"),
  ]);
  const { client, notices } = harness("gemini-2.5-pro", server, { realSleep: true });
  assert.equal((await client.complete("x")).text, "done");
  assert.equal(notices[0].delayMs, 200);
  const gap = server.requests[1].receivedAt - server.requests[0].receivedAt;
  assert.ok(gap >= 200, `the second request came ${gap} ms after the first`);
});

Deno.test("real sleep: OpenAI's retry-after-ms 250 is waited before the next request", async () => {
  await using server = await serve([
    withHeaders(openaiError(429, "Rate limit reached", "requests", "rate_limit_exceeded"), {
      "retry-after-ms": "250",
      "retry-after": "1",
    }),
    openaiReply("done"),
  ]);
  const { client } = harness("gpt-5", server, { realSleep: true });
  await client.complete("x");
  const gap = server.requests[1].receivedAt - server.requests[0].receivedAt;
  assert.ok(gap >= 250, `the second request came ${gap} ms after the first`);
});

// ---------------------------------------------------------------------------
// Doubtful behaviours, shown by tests the lead can un-ignore once lib/ is fixed

// Gemini rejects a wrong key with 400 INVALID_ARGUMENT / API_KEY_INVALID, not 401: still point at the key file.
Deno.test({
  name: "Gemini 400 API_KEY_INVALID points at agent-config/gemini-key.txt",

  async fn() {
    await using server = await serve([{
      kind: "fixture",
      file: "gemini/400-invalid-argument.json",
    }]);
    const error = await failure(harness("gemini-2.5-pro", server).client);
    assert.equal(server.requests.length, 1);
    assert.match(error.message, /agent-config\/gemini-key\.txt/);
  },
});

// OpenAI's 429 insufficient_quota means no credit left: no wait cures it, so it is not retried.
Deno.test({
  name: "OpenAI 429 insufficient_quota is not retried",

  async fn() {
    await using server = await serve([
      openaiError(
        429,
        "You exceeded your current quota, please check your plan and billing details.",
        "insufficient_quota",
        "insufficient_quota",
      ),
      openaiReply("never"),
    ]);
    const { client, waits } = harness("gpt-5", server);
    const error = await failure(client);
    assert.equal(server.requests.length, 1);
    assert.deepEqual(waits, []);
    assert.match(error.message, /insufficient_quota: You exceeded your current quota/);
  },
});

// A key fetch cannot put in a header fails at once, named as a key problem, not retried as a network error.
Deno.test({
  name: "a key fetch cannot send is reported at once, not retried as a network error",

  async fn() {
    await using server = await serve([geminiReply("never")]);
    const baseUrl = server.geminiBaseUrl;
    const waits: number[] = [];
    const client = createClient("gemini-2.5-pro", "AIzaSy\u200bTEST-0123456789", baseUrl, {
      timeoutMs: 5_000,
      retry: POLICY,
      sleep: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    });
    const error = await failure(client);
    assert.equal(server.requests.length, 0);
    assert.deepEqual(waits, [], "not retried");
    assert.doesNotMatch(error.message, /cannot reach/);
  },
});

Deno.test("the API's multi-line message becomes one line in retry reasons and the error", async () => {
  // Gemini's 429 message holds "\n* Quota exceeded for metric: ...\nPlease retry in 57.7s."
  const limited: ScriptStep = {
    kind: "fixture",
    file: "gemini/429-retry-info.json",
    replace: { '"58s"': '"0.1s"' },
  };
  await using server = await serve([limited, limited, limited]);
  const { client, notices } = harness("gemini-2.5-pro", server);
  const error = await failure(client);
  assert.equal(notices.length, 2);
  for (const notice of notices) {
    assert.doesNotMatch(notice.reason, /[\r\n]/);
    assert.match(notice.reason, /rate-limit\. \* Quota exceeded for metric: .* Please retry in/);
  }
  assert.doesNotMatch(error.message, /[\r\n]/);
  assert.match(
    error.message,
    /limit: 2, model: gemini-2\.5-pro Please retry in 57\.734122963s\. \(after 3 attempts\)$/,
  );
  assert.ok(error.body?.includes("\\n* Quota exceeded"), "the body itself is kept as received");
});

Deno.test("a reply's multi-line finish message becomes one line in the error", async () => {
  await using server = await serve([{
    kind: "response",
    status: 200,
    body: {
      candidates: [{
        content: { role: "model", parts: [{ text: "partial" }] },
        finishReason: "RECITATION",
        finishMessage: "The reply\nrecited\r\n  a source.",
      }],
    },
  }]);
  const error = await failure(harness("gemini-2.5-pro", server).client);
  assert.equal(
    error.message,
    "gemini-2.5-pro: Gemini stopped the reply (finish reason RECITATION): The reply recited a source.",
  );
});

Deno.test("a redirect is never followed: the key and the prompt stay where they were sent", async () => {
  await using elsewhere = await serve([geminiReply("stolen")]);
  await using server = await serve([{
    kind: "response",
    status: 307,
    headers: { location: `${elsewhere.geminiBaseUrl}/models/gemini-2.5-pro:generateContent` },
    body: "",
  }]);
  const { client, waits } = harness("gemini-2.5-pro", server);
  const error = await failure(client);
  assert.equal(elsewhere.requests.length, 0, "nothing reached the other server");
  assert.equal(server.requests.length, 1, "not retried");
  assert.deepEqual(waits, []);
  assert.match(error.message, /answered with a redirect, which code-commit does not follow/);
});

Deno.test("a reply body larger than 64 MiB is refused, not read into memory whole", async () => {
  const huge = "x".repeat(65 * 2 ** 20);
  await using server = await serve([{ kind: "response", status: 200, body: huge }]);
  const { client } = harness("gemini-2.5-pro", server);
  const error = await failure(client);
  assert.match(error.message, /the reply is larger than 64 MiB/);
});

// ---------------------------------------------------------------------------
// Streamed replies (server-sent events)

/** Calls with progress recorded. */
async function streamed(client: LlmClient, progress: StreamProgress[] = []) {
  return await client.complete("the prompt", { onProgress: (p) => progress.push(p) });
}

Deno.test("Gemini stream: the answer parts joined, thoughts apart, usage and body as unstreamed", async () => {
  const step = geminiStream("^^^a.txt\nhello streamed world\n^^^end\n", {
    thoughts: "Let me think.",
    usage: { prompt: 1200, candidates: 30, thoughts: 400 },
    piece: 5,
  });
  await using server = await serve([step]);
  const progress: StreamProgress[] = [];
  const reply = await streamed(harness("gemini-2.5-pro", server).client, progress);
  assert.equal(reply.text, "^^^a.txt\nhello streamed world\n^^^end\n");
  assert.deepEqual(reply.usage, { input: 1200, cached: 0, output: 30, thinking: 400 });
  assert.equal(reply.finishReason, "STOP");
  assert.equal(reply.events, step.chunks.join(""), "the raw events, as received");
  const body = JSON.parse(reply.body);
  assert.deepEqual(body.candidates[0].content, {
    parts: [
      { text: "Let me think.", thought: true },
      { text: "^^^a.txt\nhello streamed world\n^^^end\n" },
    ],
    role: "model",
  });
  assert.equal(body.candidates[0].finishReason, "STOP");
  assert.equal(body.usageMetadata.thoughtsTokenCount, 400);
  assert.equal(typeof body.responseId, "string");
  // Progress: from nothing, thinking first, then the answer as the API counts it.
  assert.equal(progress[0].thinkingChars + progress[0].answerChars, 0, "nothing yet");
  assert.equal(progress[1].thinkingChars, "Let me think.".length);
  assert.equal(progress[1].thinkingTokens, 400);
  assert.equal(progress.at(-1)!.answerChars, reply.text.length);
  assert.equal(progress.at(-1)!.answerTokens, 30);
  assert.ok(progress.length > 5, `${progress.length} progress reports`);
  assertKeyOnlyInHeader(server);
});

Deno.test("OpenAI stream: deltas joined, usage from the last chunk, [DONE], body as unstreamed", async () => {
  const step = openaiStream("the whole answer, in pieces", {
    usage: { prompt: 900, completion: 300, reasoning: 256 },
  });
  await using server = await serve([step]);
  const progress: StreamProgress[] = [];
  const reply = await streamed(harness("gpt-5", server).client, progress);
  assert.equal(reply.text, "the whole answer, in pieces");
  assert.deepEqual(reply.usage, { input: 900, cached: 0, output: 44, thinking: 256 });
  assert.equal(reply.finishReason, "stop");
  assert.equal(reply.events, step.chunks.join(""));
  const body = JSON.parse(reply.body);
  assert.equal(body.object, "chat.completion");
  assert.deepEqual(body.choices, [{
    index: 0,
    message: { role: "assistant", content: "the whole answer, in pieces", refusal: null },
    finish_reason: "stop",
  }]);
  assert.equal(body.usage.completion_tokens_details.reasoning_tokens, 256);
  // Before the usage arrives, only characters are known; then the tokens.
  const before = progress.at(-3)!; // then the usage chunk, then [DONE]
  assert.equal(before.answerChars, reply.text.length);
  assert.equal(before.answerTokens, undefined);
  assert.deepEqual(progress.at(-1), {
    thinkingChars: 0,
    answerChars: reply.text.length,
    thinkingTokens: 256,
    answerTokens: 44,
  });
});

Deno.test("OpenAI-compatible stream with reasoning_content: thinking counted apart, kept in the body", async () => {
  const chunk = (delta: unknown, finish: string | null = null) => ({
    id: "x",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  await using server = await serve([{
    kind: "stream",
    chunks: sseEvents([
      chunk({ role: "assistant", reasoning_content: "hmm, " }),
      chunk({ reasoning_content: "yes" }),
      chunk({ content: "answer" }),
      chunk({}, "stop"),
      "[DONE]",
    ]),
  }]);
  const progress: StreamProgress[] = [];
  const reply = await streamed(harness("gpt-5", server).client, progress);
  assert.equal(reply.text, "answer");
  assert.deepEqual(reply.usage, { input: 0, cached: 0, output: 0, thinking: 0 });
  assert.equal(JSON.parse(reply.body).choices[0].message.reasoning_content, "hmm, yes");
  assert.deepEqual(progress.at(-1), {
    thinkingChars: 8,
    answerChars: 6,
    thinkingTokens: undefined,
    answerTokens: undefined,
  });
});

Deno.test("a server that answers a streaming request with plain JSON is read as before, no events", async () => {
  await using server = await serve([{ kind: "fixture", file: "openai/ok.json" }]);
  const progress: StreamProgress[] = [];
  const reply = await streamed(harness("gpt-5", server).client, progress);
  assert.equal(reply.body, await fixtureText("openai/ok.json"));
  assert.equal(reply.events, undefined);
  assert.deepEqual(progress, []);
});

Deno.test("a stream cut by a connection reset is retried, never a partial reply", async () => {
  const whole = geminiStream("^^^a.txt\nthe full reply\n^^^end\n", { piece: 4 });
  await using server = await serve([
    { ...whole, chunks: whole.chunks.slice(0, 3), reset: true },
    whole,
  ]);
  const { client, notices } = harness("gemini-2.5-pro", server);
  const reply = await client.complete("x");
  assert.equal(reply.text, "^^^a.txt\nthe full reply\n^^^end\n");
  assert.equal(reply.attempts, 2);
  assert.equal(notices.length, 1);
  assert.match(
    notices[0].reason,
    /^127\.0\.0\.1:\d+: the (connection broke during the reply|reply stream ended before its end)/,
  );
});

/** Cuts for each API: the stream, and what the retry reason names as missing. */
const CUTS: [string, ModelName, () => StreamStep, RegExp][] = [
  ["Gemini, no finishReason", "gemini-2.5-pro", () => {
    const step = geminiStream("^^^a.txt\nhi there\n^^^end\n", { piece: 4 });
    return { ...step, chunks: step.chunks.slice(0, -1) };
  }, /ended before its end \(no finish reason\)/],
  ["OpenAI, no [DONE]", "gpt-5", () => {
    const step = openaiStream("hi there");
    return { ...step, chunks: step.chunks.slice(0, -1) };
  }, /ended before its end \(no \[DONE\]\)/],
  ["OpenAI, no finish_reason", "gpt-5", () => {
    const step = openaiStream("hi there");
    return { ...step, chunks: step.chunks.slice(0, 2) };
  }, /ended before its end \(no finish reason\)/],
  ["OpenAI, the last event unfinished", "gpt-5", () => {
    const step = openaiStream("hi there");
    return { ...step, chunks: [...step.chunks.slice(0, -1), "data: [DONE]"] };
  }, /ended before its end \(no \[DONE\], an unfinished event\)/],
];

for (const [name, model, cut, reason] of CUTS) {
  Deno.test(`a stream that ends early is retried, then fails with its events: ${name}`, async () => {
    const steps = [cut(), cut(), cut()];
    await using server = await serve(steps);
    const error = await failure(harness(model, server).client);
    assert.match(error.message, reason);
    assert.match(error.message, /\(after 3 attempts\)$/);
    assert.equal(server.requests.length, 3);
    assert.equal(error.events, steps[2].chunks.join(""), "the last attempt's raw events");
  });
}

Deno.test("an error event in a stream is read like the same HTTP error: Gemini 503 retried", async () => {
  const whole = geminiStream("^^^a.txt\nok\n^^^end\n");
  const error = {
    error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" },
  };
  await using server = await serve([
    { kind: "stream", chunks: [whole.chunks[0], ...sseEvents([error])] },
    whole,
  ]);
  const { client, notices, waits } = harness("gemini-2.5-pro", server);
  const reply = await client.complete("x");
  assert.equal(reply.attempts, 2);
  assert.equal(notices[0].reason, "HTTP 503 UNAVAILABLE: The model is overloaded.");
  assert.deepEqual(waits, [750], "the backoff, as for an HTTP 503");
});

Deno.test("an error event in a stream is read like the same HTTP error: OpenAI 400 not retried", async () => {
  const error = {
    error: {
      message: "This model's maximum context length is 400000 tokens.",
      type: "invalid_request_error",
      param: "messages",
      code: "context_length_exceeded",
    },
  };
  await using server = await serve([{ kind: "stream", chunks: sseEvents([error]) }]);
  const failed = await failure(harness("gpt-5", server).client);
  assert.equal(
    failed.message,
    "gpt-5: HTTP 400 context_length_exceeded: This model's maximum context length is 400000 tokens.",
  );
  assert.equal(failed.status, 400);
  assert.equal(JSON.parse(failed.body!).error.code, "context_length_exceeded");
  assert.equal(server.requests.length, 1);
});

Deno.test("an OpenAI rate-limit error event is retried; a wrong key in a stream is not", async () => {
  const limit = {
    error: { message: "Rate limit reached", type: "tokens", code: "rate_limit_exceeded" },
  };
  const key = {
    error: { message: "Incorrect API key", type: "invalid_request_error", code: "invalid_api_key" },
  };
  await using server = await serve([
    { kind: "stream", chunks: sseEvents([limit]) },
    { kind: "stream", chunks: sseEvents([key]) },
  ]);
  const failed = await failure(harness("gpt-5", server).client);
  assert.match(
    failed.message,
    /^gpt-5: HTTP 401 invalid_api_key: Incorrect API key \(check the key in /,
  );
  assert.equal(server.requests.length, 2);
});

Deno.test("an event that is not JSON ends the call, not retried", async () => {
  await using server = await serve([{ kind: "stream", chunks: ["data: {not json\n\n"] }]);
  const failed = await failure(harness("gemini-2.5-pro", server).client);
  assert.equal(
    failed.message,
    "gemini-2.5-pro: the reply stream holds an event that is not JSON: {not json",
  );
  assert.equal(failed.events, "data: {not json\n\n", "what arrived, for the log");
  assert.equal(server.requests.length, 1);
});

Deno.test("a stream that stalls ends at the per-request time limit, as a whole answer does", async () => {
  const step = openaiStream("never finished");
  await using server = await serve([{ ...step, chunks: step.chunks.slice(0, 2), hang: true }]);
  const failed = await failure(harness("gpt-5", server, { timeoutMs: 300 }).client);
  assert.match(failed.message, /^gpt-5: no reply within 0\.3s; raise --llm-timeout/);
  assert.equal(server.requests.length, 1);
});

Deno.test("a stream larger than 64 MiB is refused like a body that large", async () => {
  const mib = `: ${"x".repeat(2 ** 20 - 3)}\n`; // a comment line of 1 MiB
  await using server = await serve([{
    kind: "stream",
    chunks: Array.from({ length: 65 }, () => mib),
  }]);
  const failed = await failure(harness("gpt-5", server).client);
  assert.match(failed.message, /^gpt-5: the reply is larger than 64 MiB/);
  assert.equal(server.requests.length, 1);
});

Deno.test("Ctrl-C during a stream: InterruptedError at once, no retry", async () => {
  const step = openaiStream("never finished");
  await using server = await serve([{ ...step, chunks: step.chunks.slice(0, 2), hang: true }]);
  const controller = new AbortController();
  const progress: StreamProgress[] = [];
  const call = harness("gpt-5", server).client.complete("x", {
    signal: controller.signal,
    onProgress: (p) => {
      progress.push(p);
      if (p.answerChars > 0) controller.abort();
    },
  });
  await assert.rejects(call, InterruptedError);
  assert.equal(server.requests.length, 1);
});

Deno.test("a Gemini server that knows only generateContent (404 to the stream) is asked there", async () => {
  const fixture = new URL("../fixtures/llm/gemini/ok.json", import.meta.url);
  const ok = JSON.stringify(JSON.parse(await Deno.readTextFile(fixture)).body);
  const paths: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const url = new URL(request.url);
    paths.push(url.pathname + url.search);
    return url.pathname.endsWith(":generateContent")
      ? new Response(ok, { headers: { "content-type": "application/json" } })
      : new Response('{"error":{"code":404,"message":"not found"}}', { status: 404 });
  });
  try {
    const baseUrl = `http://127.0.0.1:${server.addr.port}/v1beta`;
    const client = createClient("gemini-2.5-pro", GEMINI_KEY, baseUrl, { timeoutMs: 10_000 });
    const reply = await client.complete("hello");
    assert.equal(reply.attempts, 1);
    assert.ok(reply.text.length > 0);
    assert.deepEqual(paths, [
      "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
      "/v1beta/models/gemini-2.5-pro:generateContent",
    ]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("an answer not valid UTF-8: the offset named, and the file block only when the byte is inside one", async () => {
  const encoder = new TextEncoder();
  // Each reply text, `@@` where the bad byte goes, and the block named.
  const cases: [string, string | undefined][] = [
    ["^^^src/a.ts\nconst x = 1;@@\n", "src/a.ts"],
    ["^^^src/a.ts\nx\n^^^end\nprose@@", undefined],
    ["^^^src/a.ts\n^^^delete\nprose@@", undefined],
    ["@@", undefined],
  ];
  let body = new Uint8Array();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(body, { headers: { "content-type": "application/json" } }),
  );
  try {
    const baseUrl = `http://127.0.0.1:${server.addr.port}/v1beta`;
    const client = createClient("gemini-2.5-pro", GEMINI_KEY, baseUrl, { timeoutMs: 30_000 });
    for (const [text, block] of cases) {
      const [head, tail] = JSON.stringify({ text }).split("@@").map((part) => encoder.encode(part));
      body = new Uint8Array([...head, 0xff, ...tail]);
      const where = block === undefined ? "" : ` (in the block of the file ${block})`;
      assert.equal(
        (await failure(client)).message,
        `gemini-2.5-pro: the reply is not valid UTF-8: byte ${head.length} of its body${where} ` +
          "is not part of a UTF-8 character; refused (its files are never written with bytes " +
          "replaced): ask again",
        text,
      );
    }
  } finally {
    await server.shutdown();
  }
});
