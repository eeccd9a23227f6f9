/**
 * Tests of `ask`, one LLM call as the workflows make it, with a real RunLog
 * in a temporary folder, a memory console and the fake LLM server: the log
 * files of each call (an `ERROR` reply file on failure, the JSON
 * body), the refusal of a prompt that holds a key (nothing sent), retries
 * and the waiting line on stderr, the time-and-tokens line, and — after
 * every test — no raw key in any file written, anything printed, or any
 * URL requested.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Console } from "../../lib/console/console.ts";
import { memoryStreams } from "../support/console.ts";
import { CodeCommitError, InterruptedError } from "../../lib/errors/errors.ts";
import { ask, TokenTally } from "../../lib/llm/ask.ts";
import { createClient } from "../../lib/llm/client.ts";
import { type ModelName, MODELS } from "../../lib/llm/models.ts";
import type { StreamProgress } from "../../lib/llm/adapter.ts";
import { type LlmClient, LlmError } from "../../lib/llm/types.ts";
import {
  type CallLogNames,
  INITIAL_QUERY,
  repairQuery,
  SINGLE_QUERY,
} from "../../lib/logger/log_names.ts";
import { RunLog } from "../../lib/logger/run_log.ts";
import { Redactor } from "../../lib/secrets/redact.ts";
import {
  type FakeLlmServer,
  geminiError,
  geminiReply,
  geminiStream,
  loadLlmFixture,
  openaiReply,
  openaiStream,
  type ScriptStep,
  startFakeLlmServer,
} from "../support/fake_llm_server.ts";
import { GEMINI_KEY, listFiles, OPENAI_KEY, tempProject } from "../support/project.ts";

// ---------------------------------------------------------------------------
// Harness

const KEYS: Record<ModelName, string> = {
  "gemini-2.5-pro": GEMINI_KEY,
  "gpt-5": OPENAI_KEY,
  "gemini-3-pro-preview": GEMINI_KEY,
  "gpt-5.2": OPENAI_KEY,
};

/** One call's world: server, project folder, log, console, client. */
interface World extends AsyncDisposable {
  readonly server: FakeLlmServer;
  readonly root: string;
  readonly log: RunLog;
  readonly streams: ReturnType<typeof memoryStreams>;
  readonly console: Console;
  readonly redactor: Redactor;
  readonly client: LlmClient;
  readonly tally: TokenTally;
  /** The waits the client asked for. */
  readonly waits: number[];
  /** Reads a file of the run's log folder. */
  read(name: string): Promise<string>;
  /** The names of the files in the run's log folder, sorted. */
  files(): Promise<string[]>;
  /** Everything printed on stderr, joined. */
  stderr(): string;
}

async function world(
  model: ModelName,
  script: ScriptStep[],
  options: { terminal?: boolean; timeoutMs?: number } = {},
): Promise<World> {
  const server = await startFakeLlmServer(script);
  const { root } = await tempProject(); // removed when the world is closed
  const redactor = new Redactor([GEMINI_KEY, OPENAI_KEY]);
  const log = await RunLog.create(root, "committing-code", redactor);
  const streams = memoryStreams({ terminal: options.terminal });
  const console = new Console(streams, redactor);
  const waits: number[] = [];
  const baseUrl = MODELS[model].provider === "gemini" ? server.geminiBaseUrl : server.openaiBaseUrl;
  const client = createClient(model, KEYS[model], baseUrl, {
    timeoutMs: options.timeoutMs ?? 30_000,
    retry: { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 8_000, maxHintMs: 60_000 },
    random: () => 0.5,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
  });
  const w: World = {
    server,
    root,
    log,
    streams,
    console,
    redactor,
    client,
    tally: new TokenTally(),
    waits,
    read: (name) => Deno.readTextFile(join(root, log.dir, name)),
    async files() {
      const names: string[] = [];
      for await (const entry of Deno.readDir(join(root, log.dir))) names.push(entry.name);
      return names.sort();
    },
    stderr: () => streams.err.join(""),
    async [Symbol.asyncDispose]() {
      try {
        await assertNoLeak(w);
      } finally {
        await server.close();
        await Deno.remove(root, { recursive: true });
      }
    },
  };
  return w;
}

/**
 * The check every test ends with: no raw key in any file under the project
 * folder, in stdout or stderr, or in any URL or body the server received.
 */
async function assertNoLeak(w: World): Promise<void> {
  const files = await listFiles(w.root);
  assert.ok(files.length > 0, "some log was written");
  for (const path of files) {
    const text = await Deno.readTextFile(join(w.root, path));
    for (const key of [GEMINI_KEY, OPENAI_KEY]) {
      assert.ok(!text.includes(key), `a key leaked into ${path}`);
    }
  }
  for (const key of [GEMINI_KEY, OPENAI_KEY]) {
    assert.ok(!w.streams.out.join("").includes(key), "a key leaked to stdout");
    assert.ok(!w.streams.err.join("").includes(key), "a key leaked to stderr");
    for (const request of w.server.requests) {
      assert.ok(!request.path.includes(key), `a key was sent in the URL ${request.path}`);
      assert.ok(!request.bodyText.includes(key), "a key was sent in a request body");
    }
  }
}

/** Runs `ask` and returns the error it must throw. */
async function askFailing(w: World, prompt: string, names: CallLogNames, signal?: AbortSignal) {
  try {
    await ask(w.client, prompt, {
      console: w.console,
      log: w.log,
      names,
      redactor: w.redactor,
      tally: w.tally,
      signal,
    });
  } catch (error) {
    return error;
  }
  assert.fail("ask succeeded");
}

function askOk(w: World, prompt: string, names: CallLogNames) {
  return ask(w.client, prompt, {
    console: w.console,
    log: w.log,
    names,
    redactor: w.redactor,
    tally: w.tally,
  });
}

async function fixtureText(file: string): Promise<string> {
  return JSON.stringify((await loadLlmFixture(file)).body, null, 2);
}

const PROMPT = "[project structure]\n[query] Rename fullName.\n--- src/a.ts ---\nconst x = 1;\n";

// ---------------------------------------------------------------------------
// Success

Deno.test("success: query, reply text and whole JSON body logged under the call's names", async () => {
  await using w = await world("gemini-2.5-pro", [{ kind: "fixture", file: "gemini/ok.json" }]);
  const reply = await askOk(w, PROMPT, INITIAL_QUERY);

  assert.deepEqual(await w.files(), [
    "1-initial-query-response.json",
    "1-initial-query-response.txt",
    "1-initial-query.txt",
  ]);
  assert.equal(await w.read("1-initial-query.txt"), PROMPT);
  assert.equal(await w.read("1-initial-query-response.txt"), reply.text);
  assert.equal(await w.read("1-initial-query-response.json"), await fixtureText("gemini/ok.json"));
  assert.equal(w.server.requests.length, 1);
  assert.equal(
    (w.server.requests[0].body as { contents: { parts: { text: string }[] }[] }).contents[0]
      .parts[0].text,
    PROMPT,
    "the prompt is sent as logged",
  );
  // The model, the time taken and the tokens, on stderr; nothing on stdout.
  assert.deepEqual(w.streams.out, []);
  assert.match(
    w.stderr(),
    // 1,843 × $1.25/M + (97 + 1,112) × $10/M = $0.00230375 + $0.01209 = $0.01439375
    /^gemini-2\.5-pro answered in \d+(\.\d+)?s: 1,843 input, 97 output, 1,112 thinking tokens, est\. \$0\.0144\n$/,
  );
  assert.equal(w.tally.calls, 1);
  assert.deepEqual([w.tally.input, w.tally.output, w.tally.thinking], [1843, 97, 1112]);
});

Deno.test("a reply over 1 MiB is logged whole once: the .json holds it, the .txt its outline and where the rest is", async () => {
  const content = "export const value = 'abcdefghijklmnopqrstuvwxyz0123456789';\n".repeat(400);
  const text = "Here it is.\n" +
    Array.from({ length: 60 }, (_, i) => `^^^src/file${i}.ts\n${content}^^^end\n`).join("") +
    "^^^src/old.ts\n^^^delete\nDone.\n";
  await using w = await world("gemini-2.5-pro", [geminiReply(text)]);
  const reply = await askOk(w, PROMPT, INITIAL_QUERY);
  assert.equal(reply.text, text);
  const body = JSON.parse(await w.read("1-initial-query-response.json"));
  assert.equal(body.candidates[0].content.parts.at(-1).text, text);
  const logged = await w.read("1-initial-query-response.txt");
  const block = `[code-commit: 400 lines (${
    content.length.toLocaleString("en-US")
  } characters) left out; see 1-initial-query-response.json]`;
  assert.equal(
    logged,
    `[code-commit: this reply is ${text.length.toLocaleString("en-US")} characters long; the ` +
      "content of its file blocks is left out here, and the whole reply is in " +
      "1-initial-query-response.json]\n" +
      "Here it is.\n" +
      Array.from({ length: 60 }, (_, i) => `^^^src/file${i}.ts\n${block}\n^^^end\n`).join("") +
      "^^^src/old.ts\n^^^delete\nDone.\n",
  );
  assert.ok(!logged.startsWith("ERROR"), "a reply logged in part is no failed call");
});

Deno.test("once logged, the reply goes on without its body; its text is kept", async () => {
  const content = "export const value = 'abcdefghijklmnopqrstuvwxyz0123456789';\n".repeat(400);
  const big = Array.from({ length: 60 }, (_, i) => `^^^src/file${i}.ts\n${content}^^^end\n`)
    .join("");
  await using w = await world("gemini-2.5-pro", [geminiReply(big)]);
  const reply = await askOk(w, PROMPT, INITIAL_QUERY);
  assert.equal(reply.text, big, "the reply itself is kept");
  assert.equal(reply.body, "");
  assert.ok((await w.read("1-initial-query-response.json")).includes("src/file59.ts"));
});

Deno.test("success with a truncated reply: logged, and the line says it was cut off", async () => {
  await using w = await world("gpt-5", [{ kind: "fixture", file: "openai/length.json" }]);
  const reply = await askOk(w, PROMPT, SINGLE_QUERY);
  assert.equal(reply.truncated, true);
  assert.deepEqual(await w.files(), ["query-response.json", "query-response.txt", "query.txt"]);
  assert.equal(await w.read("query-response.txt"), reply.text);
  assert.match(
    w.stderr(),
    // 5,877 × $1.25/M + (64 + 4,032) × $10/M = $0.00734625 + $0.04096 = $0.04830625
    /^gpt-5 answered in [\d.]+s: 5,877 input, 64 output, 4,032 thinking tokens, est\. \$0\.0483; the reply was cut off at the model's output limit\n$/,
  );
});

Deno.test("a retry is reported on stderr with the server's wait, and the attempts counted", async () => {
  await using w = await world("gemini-2.5-pro", [
    { kind: "fixture", file: "gemini/429-retry-info.json", replace: { '"58s"': '"0.2s"' } },
    geminiReply("^^^src/a.ts\nok\n^^^end\n"),
  ]);
  await askOk(w, PROMPT, repairQuery(2));
  assert.deepEqual(w.waits, [200]);
  const stderr = w.stderr();
  assert.match(
    stderr,
    /^warning: gemini-2\.5-pro: HTTP 429 RESOURCE_EXHAUSTED: You exceeded your current quota[^]*; retrying in 0\.2s as the server asked \(attempt 2 of 3\)\n/,
  );
  assert.match(stderr, /\ngemini-2\.5-pro answered in [\d.]+s: .* \(2 attempts\)\n$/);
  assert.deepEqual(await w.files(), [
    "3-repair-query-2-response.json",
    "3-repair-query-2-response.txt",
    "3-repair-query-2.txt",
  ]);
  assert.equal(await w.read("3-repair-query-2-response.txt"), "^^^src/a.ts\nok\n^^^end\n");
});

Deno.test("a retry after the backoff is reported without 'as the server asked'", async () => {
  await using w = await world("gemini-2.5-pro", [
    geminiError(503, "The model is overloaded. Please try again later.", "UNAVAILABLE"),
    geminiReply("done"),
  ]);
  await askOk(w, PROMPT, INITIAL_QUERY);
  assert.match(
    w.stderr(),
    /^warning: gemini-2\.5-pro: HTTP 503 UNAVAILABLE: The model is overloaded\. Please try again later\.; retrying in 0\.75s \(attempt 2 of 3\)\n/,
  );
});

// ---------------------------------------------------------------------------
// Failures

Deno.test("a 400: the reply file starts with ERROR, the .json holds the error body, one request", async () => {
  await using w = await world("gpt-5", [
    { kind: "fixture", file: "openai/400-unsupported-parameter.json" },
    openaiReply("never"),
  ]);
  const error = await askFailing(w, PROMPT, INITIAL_QUERY);
  assert.ok(error instanceof LlmError);
  assert.equal(w.server.requests.length, 1);
  const text = await w.read("1-initial-query-response.txt");
  assert.equal(text, `ERROR\n${error.message}\n`);
  assert.match(text, /^ERROR\ngpt-5: HTTP 400 unsupported_value: Unsupported value: 'temperature'/);
  assert.equal(
    await w.read("1-initial-query-response.json"),
    await fixtureText("openai/400-unsupported-parameter.json"),
  );
  assert.equal(await w.read("1-initial-query.txt"), PROMPT);
  assert.equal(w.tally.calls, 0);
  assert.doesNotMatch(w.stderr(), /answered in/);
});

Deno.test("a 200 that is no usable reply (blocked prompt): ERROR with the reason, body kept", async () => {
  await using w = await world("gemini-2.5-pro", [
    { kind: "fixture", file: "gemini/blocked-prompt.json" },
  ]);
  await askFailing(w, PROMPT, INITIAL_QUERY);
  assert.equal(
    await w.read("1-initial-query-response.txt"),
    "ERROR\ngemini-2.5-pro: Gemini blocked the prompt (PROHIBITED_CONTENT)\n",
  );
  assert.equal(
    await w.read("1-initial-query-response.json"),
    await fixtureText("gemini/blocked-prompt.json"),
  );
});

Deno.test("a timeout: ERROR saying so, and no .json (nothing was received)", async () => {
  await using w = await world("gemini-2.5-pro", [{ kind: "hang" }], { timeoutMs: 200 });
  const error = await askFailing(w, PROMPT, INITIAL_QUERY);
  assert.ok(error instanceof LlmError);
  assert.deepEqual(await w.files(), ["1-initial-query-response.txt", "1-initial-query.txt"]);
  assert.equal(
    await w.read("1-initial-query-response.txt"),
    "ERROR\ngemini-2.5-pro: no reply within 0.2s; raise --llm-timeout if the model needs longer\n",
  );
});

Deno.test("an interrupted call: InterruptedError and an ERROR reply file saying so", async () => {
  await using w = await world("gpt-5", [{ kind: "hang" }]);
  const controller = new AbortController();
  const pending = askFailing(w, PROMPT, INITIAL_QUERY, controller.signal);
  while (w.server.requests.length < 1) await new Promise((r) => setTimeout(r, 5));
  controller.abort();
  assert.ok((await pending) instanceof InterruptedError);
  assert.equal(
    await w.read("1-initial-query-response.txt"),
    "ERROR\ninterrupted (Ctrl-C); no file was left half-written, before the reply arrived\n",
  );
});

Deno.test("OpenAI's 401 echo of the key is masked in the logs and on the console", async () => {
  // The fixture's echo ends with the sent key's last four characters.
  await using w = await world("gpt-5", [{
    kind: "fixture",
    file: "openai/401-invalid-key.json",
    replace: { "abcd.": `${OPENAI_KEY.slice(-4)}.` },
  }]);
  const error = await askFailing(w, PROMPT, INITIAL_QUERY);
  assert.ok(error instanceof LlmError);
  assert.match(error.message, /\(check the key in agent-config\/openai-key\.txt\)$/);
  // The workflow prints the error through the console, as main.ts does.
  w.console.error(error.message);

  const tail4 = OPENAI_KEY.slice(-4);
  const mask = `********${OPENAI_KEY.slice(-2)}`;
  for (
    const text of [
      await w.read("1-initial-query-response.txt"),
      await w.read("1-initial-query-response.json"),
      w.stderr(),
    ]
  ) {
    assert.ok(text.includes(`Incorrect API key provided: ${mask}.`), text);
    assert.ok(!text.includes(tail4), `the key's last four characters leaked: ${text}`);
    assert.ok(!text.includes("sk-proj-*"), text);
  }
});

// ---------------------------------------------------------------------------
// A prompt holding a key is never sent

for (
  const [model, key] of [
    ["gemini-2.5-pro", GEMINI_KEY],
    ["gemini-2.5-pro", OPENAI_KEY], // the key of the model not in use counts too
    ["gpt-5", OPENAI_KEY],
  ] as const
) {
  Deno.test(`${model}: a prompt holding ${key.slice(0, 6)}… is refused before it is sent`, async () => {
    await using w = await world(model, [geminiReply("never"), openaiReply("never")]);
    const prompt = `${PROMPT}--- config/settings.ts ---\nconst apiKey = "${key}";\n`;
    const error = await askFailing(w, prompt, INITIAL_QUERY);
    assert.ok(error instanceof CodeCommitError);
    assert.ok(!(error instanceof LlmError));
    assert.equal(w.server.requests.length, 0, "nothing reached the server");
    assert.match(error.message, new RegExp(`^the prompt for ${model} contains an API key`));
    assert.ok(error.message.includes(`${w.log.dir}/1-initial-query.txt`), error.message);
    assert.ok(!error.message.includes(key));

    const logged = await w.read("1-initial-query.txt");
    assert.equal(logged, prompt.replace(key, `********${key.slice(-2)}`), "logged, masked");
    const reply = await w.read("1-initial-query-response.txt");
    assert.equal(reply, `ERROR\n${error.message}\n`);
    assert.deepEqual(await w.files(), ["1-initial-query-response.txt", "1-initial-query.txt"]);
    assert.doesNotMatch(w.stderr(), /answered in/);
  });
}

// ---------------------------------------------------------------------------
// The waiting line

Deno.test("not a terminal: no live line, no control characters on stderr", async () => {
  await using w = await world("gpt-5", [openaiReply("done", { finishReason: "stop" })]);
  await askOk(w, PROMPT, INITIAL_QUERY);
  assert.equal(w.streams.err.length, 1, "only the answered line");
  assert.ok(!w.stderr().includes("\r") && !w.stderr().includes("\x1b"), "no control characters");
});

Deno.test("a terminal: the waiting line is drawn, then cleared before the answered line", async () => {
  await using w = await world("gemini-2.5-pro", [geminiReply("done")], { terminal: true });
  await askOk(w, PROMPT, INITIAL_QUERY);
  const err = w.streams.err;
  assert.equal(err[0], "\r\x1b[2Kwaiting for gemini-2.5-pro… 0s");
  assert.equal(err[1], "\r\x1b[2K", "cleared when the reply arrived");
  assert.match(err[2], /^gemini-2\.5-pro answered in /);
  assert.equal(err.length, 3);
});

Deno.test("a terminal: a retry warning goes above the waiting line, which is redrawn", async () => {
  await using w = await world("gemini-2.5-pro", [
    geminiError(503, "The model is overloaded.", "UNAVAILABLE"),
    geminiReply("done"),
  ], { terminal: true });
  await askOk(w, PROMPT, INITIAL_QUERY);
  const err = w.streams.err;
  assert.equal(err[0], "\r\x1b[2Kwaiting for gemini-2.5-pro… 0s");
  assert.equal(err[1], "\r\x1b[2K");
  assert.match(err[2], /^warning: gemini-2\.5-pro: HTTP 503 .*retrying in 0\.75s/);
  assert.ok(err[3].startsWith("\r\x1b[2Kwaiting for gemini-2.5-pro… "), err[3]);
  assert.match(err[3].slice(5), /^waiting for gemini-2\.5-pro… \d+s$/);
  assert.equal(err[4], "\r\x1b[2K");
  assert.match(err[5], /answered in/);
});

Deno.test("a terminal: the waiting line is cleared when the call fails", async () => {
  await using w = await world("gpt-5", [{
    kind: "fixture",
    file: "openai/400-unsupported-parameter.json",
  }], {
    terminal: true,
  });
  await askFailing(w, PROMPT, INITIAL_QUERY);
  assert.deepEqual(w.streams.err, ["\r\x1b[2Kwaiting for gpt-5… 0s", "\r\x1b[2K"]);
});

// ---------------------------------------------------------------------------
// Token totals

Deno.test("TokenTally adds calls and costs and describes the totals with thousands separators", () => {
  const tally = new TokenTally();
  assert.equal(tally.describe(), "0 input, 0 output, 0 thinking tokens, est. $0.00");
  tally.add({ input: 12_000, cached: 0, output: 2_000, thinking: 4_500 }, {
    kind: "usd",
    nanoUsd: 80_000_000,
  });
  tally.add({ input: 345, cached: 300, output: 100, thinking: 500 }, {
    kind: "usd",
    nanoUsd: 6_543_210,
  });
  assert.equal(tally.calls, 2);
  assert.equal(
    tally.describe(),
    "12,345 input (300 cached), 2,100 output, 5,000 thinking tokens, est. $0.0865",
  );
  const large = new TokenTally();
  large.add({ input: 1, cached: 0, output: 1_000_000, thinking: 0 }, { kind: "local" });
  assert.match(large.describe(), /^1 input, 1,000,000 output, 0 thinking tokens, /);
});

Deno.test("a tally with a local call has no cost", () => {
  const tally = new TokenTally();
  tally.add({ input: 10, cached: 0, output: 5, thinking: 0 }, { kind: "local" });
  assert.equal(tally.describe(), "10 input, 5 output, 0 thinking tokens, no cost (local model)");
});

Deno.test("two calls of a run add up in the tally", async () => {
  await using w = await world("gpt-5", [
    openaiReply("one", { usage: { prompt: 100, completion: 30, reasoning: 20 } }),
    openaiReply("two", { usage: { prompt: 200, completion: 50, reasoning: 40 } }),
  ]);
  await askOk(w, PROMPT, INITIAL_QUERY);
  await askOk(w, PROMPT, repairQuery(1));
  assert.deepEqual(
    [w.tally.calls, w.tally.input, w.tally.output, w.tally.thinking],
    [2, 300, 20, 60],
  );
  assert.deepEqual(await w.files(), [
    "1-initial-query-response.json",
    "1-initial-query-response.txt",
    "1-initial-query.txt",
    "2-repair-query-1-response.json",
    "2-repair-query-1-response.txt",
    "2-repair-query-1.txt",
  ]);
});

// ---------------------------------------------------------------------------
// Streamed replies

Deno.test("a streamed reply: the .json holds the assembled body, the raw events their own log, both masked", async () => {
  // The model echoes a key: every log of the reply must mask it.
  const text = `^^^a.txt\nkey ${GEMINI_KEY} here\n^^^end\n`;
  await using w = await world("gemini-2.5-pro", [geminiStream(text, { piece: 6 })]);
  const reply = await askOk(w, PROMPT, INITIAL_QUERY);
  assert.equal(reply.text, text);
  assert.equal(reply.events, undefined, "not kept once logged");
  assert.deepEqual(await w.files(), [
    "1-initial-query-response-events.txt",
    "1-initial-query-response.json",
    "1-initial-query-response.txt",
    "1-initial-query.txt",
  ]);
  const json = JSON.parse(await w.read("1-initial-query-response.json"));
  assert.equal(json.candidates[0].content.parts[0].text, text.replace(GEMINI_KEY, "********XY"));
  // The key arrived cut across events: the raw events are not logged, a line says why.
  assert.match(
    await w.read("1-initial-query-response-events.txt"),
    /^\[code-commit: the streamed reply holds an API key, .* 1-initial-query-response\.json holds the reply, masked\.\]\n$/,
  );
});

Deno.test("a key whose pieces arrive between thinking chunks: the raw events are not logged", async () => {
  await using w = await world("gemini-2.5-pro", []);
  // Pieces of 10 characters, each after a thinking chunk: no piece is long enough to be masked.
  const pieces = GEMINI_KEY.match(/.{1,10}/g)!;
  const event = (text: string, thought = false) =>
    `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text, thought }] } }] })}\n\n`;
  const text = `key ${GEMINI_KEY}\n`;
  const client: LlmClient = {
    model: "gemini-2.5-pro",
    complete: () =>
      Promise.resolve({
        text,
        usage: { input: 1, cached: 0, output: 1, thinking: 0 },
        truncated: false,
        finishReason: "STOP",
        body: JSON.stringify({ candidates: [{ content: { parts: [{ text }] } }] }),
        events: event("key ") +
          pieces.map((piece) => event("pondering", true) + event(piece)).join("") + event("\n"),
        elapsedMs: 1,
        attempts: 1,
      }),
  };
  await ask(client, PROMPT, {
    console: w.console,
    log: w.log,
    names: INITIAL_QUERY,
    redactor: w.redactor,
  });
  const events = await w.read("1-initial-query-response-events.txt");
  assert(!pieces.some((piece) => events.includes(piece)), events);
  assert.match(events, /^\[code-commit: the streamed reply holds an API key/);
});

Deno.test("a streamed reply without a key: its raw events logged as received", async () => {
  const step = openaiStream("^^^a.txt\nplain\n^^^end\n");
  await using w = await world("gpt-5", [step]);
  await askOk(w, PROMPT, INITIAL_QUERY);
  assert.equal(await w.read("1-initial-query-response-events.txt"), step.chunks.join(""));
});

Deno.test("a stream cut on every attempt: ERROR, and the last attempt's events logged", async () => {
  const cut = () => {
    const step = openaiStream("a reply that never ends");
    return { ...step, chunks: step.chunks.slice(0, -1) };
  };
  await using w = await world("gpt-5", [cut(), cut(), cut()]);
  await assert.rejects(
    askOk(w, PROMPT, SINGLE_QUERY),
    (error: unknown) => error instanceof LlmError && /no \[DONE\]/.test(error.message),
  );
  assert.match(await w.read("query-response.txt"), /^ERROR\n.*no \[DONE\]/);
  assert.match(await w.read("query-response-events.txt"), /^data: \{"id":"chatcmpl-/);
});

Deno.test("a terminal: the live line shows the tokens streamed so far", async () => {
  const step = geminiStream("^^^a.txt\nsome answer text\n^^^end\n", {
    thoughts: "thinking hard",
    usage: { prompt: 100, candidates: 1234, thoughts: 5678 },
    intervalMs: 210,
    piece: 100,
  });
  await using w = await world("gemini-2.5-pro", [step], { terminal: true });
  await askOk(w, PROMPT, INITIAL_QUERY);
  assert.ok(
    w.streams.err.some((line) =>
      line.startsWith("\r\x1b[2K") &&
      /^waiting for gemini-2\.5-pro… \d+s · thinking 5,678 · answer 1,234 tokens$/.test(
        line.slice(5),
      )
    ),
    JSON.stringify(w.streams.err),
  );
});

Deno.test("a terminal: the live line counts tokens when the API has, else estimates them from characters", async () => {
  const cases: [StreamProgress, string][] = [
    [{ thinkingChars: 0, answerChars: 0 }, ""],
    [
      { thinkingChars: 0, answerChars: 0, thinkingTokens: 1112, answerTokens: 97 },
      " · thinking 1,112 · answer 97 tokens",
    ],
    [{ thinkingChars: 0, answerChars: 0, thinkingTokens: 300 }, " · thinking 300 tokens"],
    [
      { thinkingChars: 0, answerChars: 1001 },
      " · answer ~251 tokens (~ estimated from characters)",
    ],
    [
      { thinkingChars: 40, answerChars: 8, thinkingTokens: 12 },
      " · thinking 12 · answer ~2 tokens (~ estimated from characters)",
    ],
    [{ thinkingChars: 8, answerChars: 0 }, " · thinking ~2 tokens (~ estimated from characters)"],
  ];
  await using w = await world("gemini-2.5-pro", [], { terminal: true });
  // Wide enough that no line is cut to the terminal.
  const console = new Console({ ...w.streams, columns: () => 200 }, w.redactor);
  for (const [index, [progress, expected]] of cases.entries()) {
    w.streams.err.length = 0;
    const line = `waiting for gemini-2.5-pro… \\d+s${
      expected.replace(/[.*+?^${}()|[\]\\~]/g, "\\$&")
    }`;
    const pattern = new RegExp(`^${line}$`);
    const shown = () =>
      w.streams.err.some((text) => text.startsWith("\r\x1b[2K") && pattern.test(text.slice(5)));
    const client: LlmClient = {
      model: "gemini-2.5-pro",
      async complete(_prompt, options = {}) {
        options.onProgress?.(progress);
        // The line redraws every 200 ms: wait for the redraw that shows the progress, however slow.
        for (let waited = 0; !shown() && waited < 10_000; waited += 20) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const usage = { input: 1, cached: 0, output: 1, thinking: 0 };
        return {
          text: "ok",
          usage,
          truncated: false,
          finishReason: "STOP",
          body: "{}",
          elapsedMs: 1,
          attempts: 1,
        };
      },
    };
    const names = repairQuery(index + 1);
    await ask(client, PROMPT, { console, log: w.log, names, redactor: w.redactor });
    assert.ok(shown(), JSON.stringify(w.streams.err));
    // No progress reported: no line shows any (the first draw alone would match the pattern).
    if (expected === "") assert.ok(!w.streams.err.some((text) => text.includes(" · ")));
  }
});
