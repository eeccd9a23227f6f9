/**
 * Tests of the fake LLM server (the fixtures themselves are checked in
 * `tests/fixtures_test.ts`).
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  type FakeLlmServer,
  geminiError,
  geminiReply,
  geminiStream,
  geminiText,
  jsonStringContent,
  listLlmFixtures,
  loadLlmFixture,
  openaiError,
  openaiReply,
  openaiStream,
  openaiText,
  type ScriptStep,
  startFakeLlmServer,
} from "./fake_llm_server.ts";

/** A parsed JSON value, read field by field in assertions. */
// deno-lint-ignore no-explicit-any
type Json = any;

/** Starts a server, runs `body`, and always closes the server. */
async function withServer(
  script: ScriptStep[],
  body: (server: FakeLlmServer) => Promise<void> | void,
): Promise<void> {
  const server = await startFakeLlmServer(script);
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

function geminiUrl(server: FakeLlmServer, model = "gemini-2.5-pro"): string {
  return `${server.geminiBaseUrl}/models/${model}:generateContent`;
}

function openaiUrl(server: FakeLlmServer): string {
  return `${server.openaiBaseUrl}/chat/completions`;
}

/** POSTs `body` as JSON, the way code-commit calls Gemini. */
function postGemini(server: FakeLlmServer, prompt = "hello", init: RequestInit = {}) {
  return fetch(geminiUrl(server), {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Goog-Api-Key": "gemini-test-key" },
    body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: prompt }] }] }),
    ...init,
  });
}

/** POSTs `body` as JSON, the way code-commit calls OpenAI. */
function postOpenai(server: FakeLlmServer, prompt = "hello", init: RequestInit = {}) {
  return fetch(openaiUrl(server), {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: "Bearer sk-test-key" },
    body: JSON.stringify({ model: "gpt-5", messages: [{ role: "user", content: prompt }] }),
    ...init,
  });
}

async function json(response: Response): Promise<Json> {
  return await response.json();
}

Deno.test("base URLs point at 127.0.0.1 and the env holds them", async () => {
  await withServer([], (server) => {
    assert.match(server.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(server.geminiBaseUrl, `${server.origin}/v1beta`);
    assert.equal(server.openaiBaseUrl, `${server.origin}/v1`);
    assert.deepEqual(server.env, {
      CODE_COMMIT_GEMINI_BASE_URL: server.geminiBaseUrl,
      CODE_COMMIT_OPENAI_BASE_URL: server.openaiBaseUrl,
    });
    assert.equal(server.remaining(), 0);
  });
});

Deno.test("a response step sends its status, headers and JSON body", async () => {
  await withServer([
    { kind: "response", status: 201, headers: { "X-Extra": "yes" }, body: { a: [1, 2] } },
  ], async (server) => {
    const response = await postGemini(server);
    assert.equal(response.status, 201);
    assert.equal(response.headers.get("content-type"), "application/json");
    assert.equal(response.headers.get("x-extra"), "yes");
    const text = await response.text();
    assert.equal(text, JSON.stringify({ a: [1, 2] }, null, 2));
  });
});

Deno.test("a response step sends a string body as it is", async () => {
  await withServer([
    { kind: "response", status: 200, body: '{"candidates": [' },
    {
      kind: "response",
      status: 502,
      headers: { "content-type": "text/html" },
      body: "<html>Bad Gateway</html>",
    },
  ], async (server) => {
    const first = await postGemini(server);
    assert.equal(first.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.equal(await first.text(), '{"candidates": [');
    const second = await postOpenai(server);
    assert.equal(second.status, 502);
    assert.equal(second.headers.get("content-type"), "text/html");
    assert.equal(await second.text(), "<html>Bad Gateway</html>");
  });
});

Deno.test("a response step with delayMs answers after the delay", async () => {
  await withServer([{ ...geminiReply("late"), delayMs: 150 }], async (server) => {
    const start = performance.now();
    const response = await postGemini(server);
    await response.body?.cancel();
    assert.ok(performance.now() - start >= 140, "answered too early");
  });
});

Deno.test("requests are recorded: headers lower-cased, body raw and parsed", async () => {
  await withServer([geminiReply("one"), openaiReply("two")], async (server) => {
    await (await postGemini(server, "gemini prompt")).body?.cancel();
    await (await postOpenai(server, "openai prompt")).body?.cancel();
    assert.equal(server.requests.length, 2);
    const [gemini, openai] = server.requests;

    assert.equal(gemini.method, "POST");
    assert.equal(gemini.path, "/v1beta/models/gemini-2.5-pro:generateContent");
    assert.equal(gemini.api, "gemini");
    assert.equal(gemini.model, "gemini-2.5-pro");
    assert.equal(gemini.headers["x-goog-api-key"], "gemini-test-key");
    assert.equal(gemini.headers["content-type"], "application/json");
    assert.ok(Object.keys(gemini.headers).every((name) => name === name.toLowerCase()));
    assert.equal(
      gemini.bodyText,
      JSON.stringify({ contents: [{ role: "user", parts: [{ text: "gemini prompt" }] }] }),
    );
    assert.deepEqual(gemini.body, JSON.parse(gemini.bodyText));
    assert.equal(gemini.step, 0);
    assert.equal(geminiText(gemini), "gemini prompt");

    assert.equal(openai.path, "/v1/chat/completions");
    assert.equal(openai.api, "openai");
    assert.equal(openai.model, "gpt-5");
    assert.equal(openai.headers["authorization"], "Bearer sk-test-key");
    assert.equal(openai.step, 1);
    assert.equal(openaiText(openai), "openai prompt");

    assert.ok(gemini.receivedAt <= openai.receivedAt);
    assert.ok(Math.abs(gemini.receivedAt - Date.now()) < 60_000);
  });
});

Deno.test("the query string is recorded and a non-JSON body parses to undefined", async () => {
  await withServer([geminiReply("x")], async (server) => {
    const response = await fetch(`${geminiUrl(server)}?alt=json`, {
      method: "POST",
      body: "not json",
    });
    await response.body?.cancel();
    const [request] = server.requests;
    assert.equal(request.path, "/v1beta/models/gemini-2.5-pro:generateContent?alt=json");
    assert.equal(request.bodyText, "not json");
    assert.equal(request.body, undefined);
    assert.throws(() => geminiText(request), /contents\[0\]\.parts\[0\]\.text/);
    assert.throws(() => openaiText(request), /messages\[0\]\.content/);
  });
});

Deno.test("steps are consumed in order across both APIs", async () => {
  await withServer([
    openaiReply("first"),
    geminiReply("second"),
    openaiReply("third"),
  ], async (server) => {
    assert.equal(server.remaining(), 3);
    const g = await json(await postGemini(server));
    assert.equal(g.object, "chat.completion", "the first step answers whatever comes first");
    assert.equal(server.remaining(), 2);
    const o = await json(await postOpenai(server));
    assert.ok(Array.isArray(o.candidates));
    const third = await json(await postGemini(server));
    assert.equal((third as Json).choices[0].message.content, "third");
    assert.equal(server.remaining(), 0);
    assert.deepEqual(server.requests.map((r) => [r.api, r.step]), [
      ["gemini", 0],
      ["openai", 1],
      ["gemini", 2],
    ]);
  });
});

Deno.test("a step whose expect does not match answers 500 and says why", async () => {
  await withServer([
    { ...geminiReply("for gemini"), expect: "gemini" },
    { ...openaiReply("for openai"), expect: "openai" },
  ], async (server) => {
    const mismatch = await postOpenai(server);
    assert.equal(mismatch.status, 500);
    const body = await json(mismatch);
    assert.match(
      (body.error as { message: string }).message,
      /step 0 expects a gemini request, but got a openai request/,
    );
    const match = await postOpenai(server);
    assert.equal(match.status, 200);
    await match.body?.cancel();
    assert.equal(server.remaining(), 0);
  });
});

Deno.test("an exhausted script answers 500 with the documented message", async () => {
  await withServer([geminiReply("only")], async (server) => {
    await (await postGemini(server)).body?.cancel();
    const response = await postOpenai(server);
    assert.equal(response.status, 500);
    assert.deepEqual(await json(response), {
      error: { message: "fake LLM server: no scripted reply left" },
    });
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[1].step, null);
    assert.equal(server.remaining(), 0);
  });
});

Deno.test("an unknown route answers 404 JSON, is recorded and uses no step", async () => {
  await withServer([geminiReply("kept")], async (server) => {
    const wrongPath = await fetch(`${server.origin}/v1/models`, { method: "POST", body: "{}" });
    assert.equal(wrongPath.status, 404);
    const body = await json(wrongPath);
    assert.match((body.error as { message: string }).message, /no route for POST \/v1\/models/);
    const wrongMethod = await fetch(geminiUrl(server));
    assert.equal(wrongMethod.status, 404);
    await wrongMethod.body?.cancel();
    assert.equal(server.requests.length, 2);
    assert.deepEqual(server.requests.map((r) => [r.method, r.api, r.step]), [
      ["POST", null, null],
      ["GET", null, null],
    ]);
    assert.equal(server.remaining(), 1);
  });
});

Deno.test("any Gemini model name is routed and recorded", async () => {
  await withServer([geminiReply("x")], async (server) => {
    await (await postGemini(server, "p", {})).body?.cancel();
    const response = await fetch(geminiUrl(server, "gemini-2.5-flash"), {
      method: "POST",
      body: "{}",
    });
    await response.body?.cancel();
    assert.deepEqual(server.requests.map((r) => r.model), ["gemini-2.5-pro", "gemini-2.5-flash"]);
  });
});

Deno.test("hang: the client's own timeout gives up, and close() still returns", async () => {
  const server = await startFakeLlmServer([{ kind: "hang" }]);
  const start = performance.now();
  await assert.rejects(
    postGemini(server, "p", { signal: AbortSignal.timeout(100) }),
    (error: Error) => error.name === "TimeoutError",
  );
  assert.ok(performance.now() - start >= 90);
  assert.equal(server.requests.length, 1);
  assert.equal(server.remaining(), 0);
  await server.close();
});

Deno.test("hang: close() releases a waiting client with a network error", async () => {
  const server = await startFakeLlmServer([{ kind: "hang" }]);
  const pending = postOpenai(server);
  pending.catch(() => {}); // it rejects while close() is awaited; asserted below
  while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
  const start = performance.now();
  await server.close();
  await assert.rejects(pending, TypeError);
  assert.ok(performance.now() - start < 2000, "close() waited for the hanging answer");
});

Deno.test("close() cancels a delayed answer and can be called twice", async () => {
  const server = await startFakeLlmServer([{ ...openaiReply("never"), delayMs: 60_000 }]);
  const pending = postOpenai(server);
  pending.catch(() => {}); // it rejects while close() is awaited; asserted below
  while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
  await server.close();
  await server.close();
  await assert.rejects(pending, TypeError);
});

Deno.test("reset: the client's fetch rejects with a TypeError, the next request works", async () => {
  await withServer([{ kind: "reset" }, geminiReply("after the reset")], async (server) => {
    await assert.rejects(postGemini(server), TypeError);
    const response = await postGemini(server);
    assert.equal(response.status, 200);
    const body = await response.json() as Json;
    assert.equal(body.candidates[0].content.parts[0].text, "after the reset");
    assert.deepEqual(server.requests.map((r) => r.step), [0, 1]);
  });
});

Deno.test("fixture: sends the file's status, headers and body", async () => {
  const fixture = await loadLlmFixture("gemini/429-retry-info.json");
  await withServer([{ kind: "fixture", file: "gemini/429-retry-info.json" }], async (server) => {
    const response = await postGemini(server);
    assert.equal(response.status, 429);
    assert.equal(response.headers.get("content-type"), "application/json; charset=UTF-8");
    assert.equal(response.headers.get("server"), "scaffolding on HTTPServer2");
    const text = await response.text();
    assert.equal(text, JSON.stringify(fixture.body, null, 2));
  });
});

Deno.test("fixture: replace substitutes in the JSON text, and delayMs applies", async () => {
  const reply = 'line "one"\nline two\n';
  await withServer([
    {
      kind: "fixture",
      file: "gemini/429-retry-info.json",
      replace: { '"retryDelay": "58s"': '"retryDelay": "0.05s"' },
    },
    {
      kind: "fixture",
      file: "openai/ok.json",
      delayMs: 100,
      replace: {
        "I will make the greeting configurable and cover it with a test.": jsonStringContent(reply),
        '"finish_reason": "stop"': '"finish_reason": "length"',
      },
    },
  ], async (server) => {
    const gemini = await json(await postGemini(server)) as Json;
    assert.equal(gemini.error.details[2].retryDelay, "0.05s");
    const start = performance.now();
    const openai = await json(await postOpenai(server)) as Json;
    assert.ok(performance.now() - start >= 90);
    assert.ok(openai.choices[0].message.content.startsWith(reply));
    assert.equal(openai.choices[0].finish_reason, "length");
  });
});

Deno.test("fixture: a missing file or an absent replace key fails at start", async () => {
  await assert.rejects(
    startFakeLlmServer([{ kind: "fixture", file: "gemini/no-such.json" }]),
    /cannot read LLM fixture gemini\/no-such\.json/,
  );
  await assert.rejects(
    startFakeLlmServer([
      { kind: "fixture", file: "gemini/ok.json", replace: { "not in the file": "x" } },
    ]),
    /replace key "not in the file" does not occur in the body of gemini\/ok\.json/,
  );
  await assert.rejects(loadLlmFixture("../replies/crlf.txt"), /leaves the folder/);
});

Deno.test("geminiReply builds a realistic GenerateContentResponse", async () => {
  const plain = geminiReply("answer", { usage: { prompt: 10, candidates: 2, thoughts: 5 } });
  assert.equal(plain.status, 200);
  assert.deepEqual(plain.body, {
    candidates: [
      {
        content: { parts: [{ text: "answer" }], role: "model" },
        finishReason: "STOP",
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: 10,
      candidatesTokenCount: 2,
      totalTokenCount: 17,
      promptTokensDetails: [{ modality: "TEXT", tokenCount: 10 }],
      thoughtsTokenCount: 5,
    },
    modelVersion: "gemini-2.5-pro",
    responseId: (plain.body as Json).responseId,
  });
  assert.match((plain.body as Json).responseId, /^[A-Za-z0-9_-]{20,}$/);

  const thinking = geminiReply("text", { thoughts: "pondering", finishReason: "MAX_TOKENS" })
    .body as Json;
  assert.deepEqual(thinking.candidates[0].content.parts, [
    { text: "pondering", thought: true },
    { text: "text" },
  ]);
  assert.equal(thinking.candidates[0].finishReason, "MAX_TOKENS");
  const usage = thinking.usageMetadata;
  assert.equal(
    usage.totalTokenCount,
    usage.promptTokenCount + usage.candidatesTokenCount + usage.thoughtsTokenCount,
  );

  const noCount = geminiReply("", { usage: { candidates: 0 } }).body as Json;
  assert.deepEqual(noCount.candidates[0].content, { role: "model" });
  assert.equal("candidatesTokenCount" in noCount.usageMetadata, false);

  await withServer([plain], async (server) => {
    const response = await postGemini(server);
    assert.equal(response.headers.get("content-type"), "application/json; charset=UTF-8");
    assert.deepEqual(await response.json(), plain.body);
  });
});

Deno.test("openaiReply builds a realistic chat completion", async () => {
  const step = openaiReply("answer", {
    finishReason: "length",
    usage: { prompt: 10, completion: 30, reasoning: 25 },
  });
  const body = step.body as Json;
  assert.match(body.id, /^chatcmpl-[A-Za-z0-9]{29}$/);
  assert.equal(body.object, "chat.completion");
  assert.ok(Number.isInteger(body.created) && Math.abs(body.created - Date.now() / 1000) < 60);
  assert.equal(body.model, "gpt-5-2025-08-07");
  assert.deepEqual(body.choices, [
    {
      index: 0,
      message: { role: "assistant", content: "answer", refusal: null, annotations: [] },
      finish_reason: "length",
    },
  ]);
  assert.deepEqual(body.usage, {
    prompt_tokens: 10,
    completion_tokens: 30,
    total_tokens: 40,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 25,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  });
  assert.equal(body.service_tier, "default");
  assert.equal(body.system_fingerprint, null);
  assert.equal((openaiReply("x").body as Json).choices[0].finish_reason, "stop");

  await withServer([step], async (server) => {
    const response = await postOpenai(server);
    assert.equal(response.headers.get("content-type"), "application/json");
    assert.match(response.headers.get("x-request-id") ?? "", /^req_[0-9a-f]{32}$/);
    assert.deepEqual(await response.json(), body);
  });
});

Deno.test("geminiError and openaiError use each API's error shape", async () => {
  const retry = { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" };
  await withServer([
    geminiError(503, "The model is overloaded. Please try again later.", "UNAVAILABLE"),
    geminiError(429, "quota", "RESOURCE_EXHAUSTED", [retry]),
    openaiError(429, "Rate limit reached", "requests", "rate_limit_exceeded"),
    openaiError(500, "The server had an error", "server_error"),
  ], async (server) => {
    const a = await postGemini(server);
    assert.equal(a.status, 503);
    assert.deepEqual(await a.json(), {
      error: {
        code: 503,
        message: "The model is overloaded. Please try again later.",
        status: "UNAVAILABLE",
      },
    });
    const b = await postGemini(server);
    assert.deepEqual(await b.json(), {
      error: { code: 429, message: "quota", status: "RESOURCE_EXHAUSTED", details: [retry] },
    });
    const c = await postOpenai(server);
    assert.equal(c.status, 429);
    assert.deepEqual(await c.json(), {
      error: {
        message: "Rate limit reached",
        type: "requests",
        param: null,
        code: "rate_limit_exceeded",
      },
    });
    const d = await postOpenai(server);
    assert.deepEqual(await d.json(), {
      error: { message: "The server had an error", type: "server_error", param: null, code: null },
    });
  });
});

Deno.test("a large request body is received whole", async () => {
  const prompt = "x".repeat(5_000_000) + "é";
  await withServer([geminiReply("ok")], async (server) => {
    await (await postGemini(server, prompt)).body?.cancel();
    assert.equal(geminiText(server.requests[0]), prompt);
  });
});

Deno.test("every fixture is served byte for byte", async () => {
  const files = await listLlmFixtures();
  await withServer(
    files.map((file) => ({ kind: "fixture", file })),
    async (server) => {
      for (const file of files) {
        const fixture = await loadLlmFixture(file);
        const response = file.startsWith("gemini/")
          ? await postGemini(server)
          : await postOpenai(server);
        assert.equal(response.status, fixture.status, file);
        assert.equal(await response.text(), JSON.stringify(fixture.body, null, 2), file);
      }
      assert.equal(server.remaining(), 0);
    },
  );
});

Deno.test("a stream step: the streaming Gemini route, text/event-stream, its pieces in order", async () => {
  await withServer([geminiStream("hello world", { piece: 4 })], async (server) => {
    const url = `${server.geminiBaseUrl}/models/gemini-2.5-pro:streamGenerateContent?alt=sse`;
    const response = await fetch(url, { method: "POST", body: "{}" });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    const text = await response.text();
    const events = text.split("\r\n\r\n").filter((e) => e !== "").map((e) =>
      JSON.parse(e.replace(/^data: /, ""))
    );
    assert.deepEqual(events.map((e: Json) => e.candidates[0].content.parts[0].text), [
      "hell",
      "o wo",
      "rld",
    ]);
    assert.equal(events.at(-1).candidates[0].finishReason, "STOP");
    assert.equal(server.requests[0].api, "gemini");
    assert.equal(
      server.requests[0].path,
      "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
    );
  });
});

Deno.test("openaiStream: role, content pieces, the finish reason, usage with no choice, [DONE]", async () => {
  await withServer([openaiStream("abcdefghij", { piece: 5 })], async (server) => {
    const text = await (await postOpenai(server)).text();
    const data = text.split("\r\n\r\n").filter((e) => e !== "").map((e) => e.slice(6));
    assert.equal(data.at(-1), "[DONE]");
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    assert.deepEqual(chunks.map((c: Json) => c.choices[0]?.delta.content ?? null), [
      "",
      "abcde",
      "fghij",
      null,
      null,
    ]);
    assert.equal(chunks[3].choices[0].finish_reason, "stop");
    assert.deepEqual(chunks[4].choices, []);
    assert.equal(typeof chunks[4].usage.completion_tokens, "number");
  });
});

Deno.test("a stream step with reset: the pieces arrive, then the connection drops", async () => {
  const step = openaiStream("abc");
  await withServer([{ ...step, chunks: step.chunks.slice(0, 2), reset: true }], async (server) => {
    const response = await postOpenai(server);
    const reader = response.body!.getReader();
    let received = "";
    await assert.rejects(async () => {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        received += new TextDecoder().decode(value);
      }
    });
    assert.equal(received, step.chunks.slice(0, 2).join(""));
  });
});
