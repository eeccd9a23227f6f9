/**
 * A fake LLM server for tests: it speaks the two HTTP APIs code-commit calls
 * (Gemini `generateContent` and `streamGenerateContent`, OpenAI chat
 * completions) on 127.0.0.1 and answers from a script, one step per
 * request, in order: with a whole body, or streamed as server-sent events
 * (a `stream` step, built by {@link geminiStream} or {@link openaiStream}). It records every
 * request so that tests can assert on what the tool sent.
 *
 * It is built on `node:http` rather than `Deno.serve`: `Deno.serve` always
 * writes a status line (returning `Response.error()` gives a 500, a throwing
 * handler gives a 500), so it cannot drop a connection before answering,
 * which the `reset` step needs. `node:http` can (`socket.destroy()`).
 *
 * ```ts
 * const server = await startFakeLlmServer([geminiReply("^^^a.txt\nhi\n^^^end\n")]);
 * try {
 *   // run code-commit with server.env, then:
 *   assert.equal(server.remaining(), 0);
 *   assert.match(geminiText(server.requests[0]), /a query/);
 * } finally {
 *   await server.close();
 * }
 * ```
 *
 * @module
 */

import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** The two APIs the fake server speaks. */
export type LlmApi = "gemini" | "openai";

/** Fields every script step may carry. */
interface StepBase {
  /** The API the request answered by this step must be for; on a mismatch the server answers 500 saying so. */
  readonly expect?: LlmApi;
}

/** A raw HTTP answer. */
export interface ResponseStep extends StepBase {
  /** Selects this kind of step. */
  readonly kind: "response";
  /** The HTTP status. */
  readonly status: number;
  /** Response headers. `content-length`, `transfer-encoding`, `content-encoding` and `connection` are ignored. */
  readonly headers?: Record<string, string>;
  /**
   * The body. A string is sent as it is (content type `text/plain; charset=utf-8`
   * unless `headers` says otherwise); anything else is JSON-encoded, pretty-printed
   * with two spaces as both real APIs do, with content type `application/json`.
   */
  readonly body: unknown;
  /** Milliseconds to wait before answering. */
  readonly delayMs?: number;
}

/** Never answers, until the client gives up or the server is closed (which drops the connection). */
export interface HangStep extends StepBase {
  /** Selects this kind of step. */
  readonly kind: "hang";
}

/** Drops the connection without any HTTP answer: the client's `fetch` rejects with a `TypeError`. */
export interface ResetStep extends StepBase {
  /** Selects this kind of step. */
  readonly kind: "reset";
}

/** Answers with a fixture file from `tests/fixtures/llm/`. */
export interface FixtureStep extends StepBase {
  /** Selects this kind of step. */
  readonly kind: "fixture";
  /** The fixture's path relative to `tests/fixtures/llm/`, e.g. `"gemini/ok.json"`. */
  readonly file: string;
  /** Milliseconds to wait before answering. */
  readonly delayMs?: number;
  /**
   * Substitutions applied, in order, to the body's JSON text (pretty-printed with
   * two spaces, so `"finishReason": "STOP"` matches) before it is sent: every
   * occurrence of each key is replaced by its value, verbatim. Use
   * {@link jsonStringContent} for a value that goes inside a JSON string.
   * A key that does not occur makes {@link startFakeLlmServer} throw.
   */
  readonly replace?: Record<string, string>;
}

/**
 * A streamed answer: `chunks` written one at a time as they are (cut
 * anywhere: the client must join them), `intervalMs` apart, content type
 * `text/event-stream` unless `headers` says otherwise.
 */
export interface StreamStep extends StepBase {
  /** Selects this kind of step. */
  readonly kind: "stream";
  /** The HTTP status; default 200. */
  readonly status?: number;
  /** Response headers (as {@link ResponseStep.headers}). */
  readonly headers?: Record<string, string>;
  /** The pieces of the body, written in order. */
  readonly chunks: readonly string[];
  /** Milliseconds between two pieces; default 0. */
  readonly intervalMs?: number;
  /** Drops the connection after the last piece instead of ending the body (a stream cut). */
  readonly reset?: boolean;
  /** Never ends the body after the last piece (a stream that stalls). */
  readonly hang?: boolean;
}

/** One scripted answer; each incoming request consumes the next one. */
export type ScriptStep = ResponseStep | HangStep | ResetStep | FixtureStep | StreamStep;

/** One request the fake server received. */
export interface RecordedRequest {
  /** The HTTP method, e.g. `"POST"`. */
  readonly method: string;
  /** The request target: path plus query string, e.g. `/v1/chat/completions`. */
  readonly path: string;
  /** The API whose route matched, or `null` for an unknown route (answered 404). */
  readonly api: LlmApi | null;
  /** The model: from the path for Gemini, from the body's `model` for OpenAI; `null` when absent. */
  readonly model: string | null;
  /** The request headers, names lower-cased; repeated headers are joined with `", "`. */
  readonly headers: Record<string, string>;
  /** The raw body text (UTF-8). */
  readonly bodyText: string;
  /** The body parsed as JSON, or `undefined` when it is empty or not JSON. */
  readonly body: unknown;
  /** When the request arrived (its body fully read), in milliseconds since the Unix epoch, sub-millisecond precision. */
  readonly receivedAt: number;
  /** The index of the script step it consumed, or `null` when it consumed none (unknown route, script exhausted). */
  readonly step: number | null;
}

/** A running fake LLM server. */
export interface FakeLlmServer {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** `http://127.0.0.1:<port>/v1beta`: the value for `CODE_COMMIT_GEMINI_BASE_URL`. */
  readonly geminiBaseUrl: string;
  /** `http://127.0.0.1:<port>/v1`: the value for `CODE_COMMIT_OPENAI_BASE_URL`. */
  readonly openaiBaseUrl: string;
  /** Both base URL variables, ready to pass as the environment of a child process. */
  readonly env: Readonly<
    Record<"CODE_COMMIT_GEMINI_BASE_URL" | "CODE_COMMIT_OPENAI_BASE_URL", string>
  >;
  /** Every request received so far, in arrival order (unknown routes included). */
  readonly requests: RecordedRequest[];
  /** How many script steps have not been used yet. */
  remaining(): number;
  /** Stops the server: cancels delayed answers, drops every connection (hanging ones too) and waits until all are closed. Safe to call twice. */
  close(): Promise<void>;
}

/** A fixture file's content: `{ status, headers, body }` plus `_`-prefixed notes. */
export interface LlmFixture {
  /** The HTTP status. */
  readonly status: number;
  /** The response headers. */
  readonly headers: Record<string, string>;
  /** The exact JSON body the real API sends (a string is sent as it is). */
  readonly body: unknown;
  /** What real situation the fixture reproduces. */
  readonly _note: string;
}

/** The folder that holds the LLM fixtures (`tests/fixtures/llm/`). */
export const LLM_FIXTURE_DIR: URL = new URL("../fixtures/llm/", import.meta.url);

const GEMINI_ROUTE = /^\/v1beta\/models\/([^/:]+):(?:generateContent|streamGenerateContent)$/;
const OPENAI_ROUTE = "/v1/chat/completions";
const GEMINI_CONTENT_TYPE = "application/json; charset=UTF-8";
const OPENAI_CONTENT_TYPE = "application/json";
const IGNORED_RESPONSE_HEADERS = new Set([
  "content-length",
  "transfer-encoding",
  "content-encoding",
  "connection",
]);

/** Every LLM fixture, relative to `tests/fixtures/llm/` (`gemini/ok.json`, ...), sorted. */
export async function listLlmFixtures(): Promise<string[]> {
  const files: string[] = [];
  for (const api of ["gemini", "openai"]) {
    for await (const entry of Deno.readDir(new URL(`${api}/`, LLM_FIXTURE_DIR))) {
      if (entry.isFile) files.push(`${api}/${entry.name}`);
    }
  }
  return files.sort();
}

/**
 * Reads and checks one fixture file, `file` being relative to `tests/fixtures/llm/`.
 *
 * @throws {Error} naming the file when it is missing, is not JSON, or lacks a
 * numeric `status`, a `headers` object, a `body` or a `_note` string.
 */
export async function loadLlmFixture(file: string): Promise<LlmFixture> {
  if (file.split(/[\\/]/).includes("..")) {
    throw new Error(`fixture path leaves the folder: ${file}`);
  }
  const url = new URL(file, LLM_FIXTURE_DIR);
  let text: string;
  try {
    text = await Deno.readTextFile(url);
  } catch (error) {
    throw new Error(`cannot read LLM fixture ${file}: ${error}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`LLM fixture ${file} is not JSON: ${error}`);
  }
  const value = parsed as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`LLM fixture ${file} is not a JSON object`);
  }
  if (!Number.isInteger(value.status)) problems.push("an integer status");
  const headers = value.headers;
  if (
    typeof headers !== "object" || headers === null || Array.isArray(headers) ||
    !Object.values(headers).every((v) => typeof v === "string")
  ) {
    problems.push("a headers object of strings");
  }
  if (!("body" in value)) problems.push("a body");
  if (typeof value._note !== "string" || value._note === "") problems.push("a _note string");
  if (problems.length > 0) throw new Error(`LLM fixture ${file} lacks ${problems.join(", ")}`);
  return value as unknown as LlmFixture;
}

/** Returns the text to put between the quotes of a JSON string so that it decodes to `text`. */
export function jsonStringContent(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** A step resolved to what will be sent. */
type Prepared =
  | {
    readonly kind: "send";
    readonly status: number;
    readonly headers: Record<string, string>;
    readonly body: string;
    readonly delayMs: number;
  }
  | {
    readonly kind: "stream";
    readonly status: number;
    readonly headers: Record<string, string>;
    readonly chunks: readonly string[];
    readonly intervalMs: number;
    readonly end: "end" | "reset" | "hang";
  }
  | { readonly kind: "hang" }
  | { readonly kind: "reset" };

function encodeBody(body: unknown, headers: Record<string, string>): string {
  if (typeof body === "string") {
    headers["content-type"] ??= "text/plain; charset=utf-8";
    return body;
  }
  headers["content-type"] ??= "application/json";
  return JSON.stringify(body, null, 2) ?? "";
}

function cleanHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (!IGNORED_RESPONSE_HEADERS.has(lower)) out[lower] = value;
  }
  return out;
}

async function prepare(step: ScriptStep, index: number): Promise<Prepared> {
  switch (step.kind) {
    case "response": {
      const headers = cleanHeaders(step.headers);
      const body = encodeBody(step.body, headers);
      return { kind: "send", status: step.status, headers, body, delayMs: step.delayMs ?? 0 };
    }
    case "fixture": {
      const fixture = await loadLlmFixture(step.file);
      const headers = cleanHeaders(fixture.headers);
      let body = encodeBody(fixture.body, headers);
      for (const [from, to] of Object.entries(step.replace ?? {})) {
        if (from === "" || !body.includes(from)) {
          throw new Error(
            `script step ${index}: replace key ${
              JSON.stringify(from)
            } does not occur in the body of ${step.file}`,
          );
        }
        body = body.replaceAll(from, to);
      }
      return { kind: "send", status: fixture.status, headers, body, delayMs: step.delayMs ?? 0 };
    }
    case "stream": {
      const headers = cleanHeaders(step.headers);
      headers["content-type"] ??= "text/event-stream";
      return {
        kind: "stream",
        status: step.status ?? 200,
        headers,
        chunks: step.chunks,
        intervalMs: step.intervalMs ?? 0,
        end: step.reset ? "reset" : step.hang ? "hang" : "end",
      };
    }
    case "hang":
    case "reset":
      return { kind: step.kind };
    default:
      throw new Error(
        `script step ${index}: unknown kind ${JSON.stringify((step as { kind: unknown }).kind)}`,
      );
  }
}

function errorBody(message: string): string {
  return JSON.stringify({ error: { message } }, null, 2);
}

function readHeaders(raw: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    out[name] = name in out ? `${out[name]}, ${raw[i + 1]}` : raw[i + 1];
  }
  return out;
}

/**
 * Starts a fake LLM server on 127.0.0.1 on an ephemeral port that answers
 * requests with `script`, one step per request in arrival order, whichever
 * API a request is for. Routes: `POST /v1beta/models/<model>:generateContent`
 * and `POST /v1/chat/completions`; anything else gets a 404 JSON error and
 * uses no step. A request past the end of the script gets
 * `500 {"error":{"message":"fake LLM server: no scripted reply left"}}`.
 *
 * @throws {Error} before listening when a fixture step names a missing or
 * malformed fixture, or a `replace` key that does not occur in it.
 */
export async function startFakeLlmServer(script: ScriptStep[]): Promise<FakeLlmServer> {
  const steps = [...script];
  const prepared = await Promise.all(steps.map((step, index) => prepare(step, index)));
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const socketsClosed: Promise<void>[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let cursor = 0;
  let closing: Promise<void> | undefined;

  const server = http.createServer((req, res) => {
    const chunks: Uint8Array[] = [];
    req.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    req.on("error", () => {});
    req.on("end", () => {
      const bodyText = new TextDecoder().decode(concat(chunks));
      handle(req, res, bodyText);
    });
  });

  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socketsClosed.push(new Promise((resolve) => socket.once("close", () => resolve())));
    socket.once("close", () => sockets.delete(socket));
    if (closing) socket.destroy();
  });

  function send(
    res: http.ServerResponse,
    status: number,
    headers: Record<string, string>,
    body: string,
    delayMs = 0,
  ): void {
    const write = () => {
      if (closing || res.destroyed) return;
      res.writeHead(status, headers);
      res.end(body);
    };
    if (delayMs <= 0) return write();
    const timer = setTimeout(() => {
      timers.delete(timer);
      write();
    }, delayMs);
    timers.add(timer);
    res.once("close", () => {
      clearTimeout(timer);
      timers.delete(timer);
    });
  }

  function handle(req: http.IncomingMessage, res: http.ServerResponse, bodyText: string): void {
    const method = req.method ?? "GET";
    const path = req.url ?? "/";
    const pathname = path.split("?")[0];
    let body: unknown = undefined;
    if (bodyText.trim() !== "") {
      try {
        body = JSON.parse(bodyText);
      } catch {
        body = undefined;
      }
    }
    let api: LlmApi | null = null;
    let model: string | null = null;
    const gemini = GEMINI_ROUTE.exec(pathname);
    if (method === "POST" && gemini) {
      api = "gemini";
      model = decodeURIComponent(gemini[1]);
    } else if (method === "POST" && pathname === OPENAI_ROUTE) {
      api = "openai";
      const bodyModel = (body as { model?: unknown } | undefined)?.model;
      model = typeof bodyModel === "string" ? bodyModel : null;
    }
    const index = api !== null && cursor < steps.length ? cursor++ : null;
    requests.push({
      method,
      path,
      api,
      model,
      headers: readHeaders(req.rawHeaders),
      bodyText,
      body,
      receivedAt: performance.timeOrigin + performance.now(),
      step: index,
    });
    if (closing) {
      req.socket.destroy();
      return;
    }
    const json = { "content-type": "application/json" };
    if (api === null) {
      send(res, 404, json, errorBody(`fake LLM server: no route for ${method} ${path}`));
      return;
    }
    if (index === null) {
      send(res, 500, json, errorBody("fake LLM server: no scripted reply left"));
      return;
    }
    const expected = steps[index].expect;
    if (expected !== undefined && expected !== api) {
      send(
        res,
        500,
        json,
        errorBody(
          `fake LLM server: script step ${index} expects a ${expected} request, ` +
            `but got a ${api} request (${method} ${path})`,
        ),
      );
      return;
    }
    const answer = prepared[index];
    switch (answer.kind) {
      case "send":
        send(res, answer.status, { ...answer.headers }, answer.body, answer.delayMs);
        return;
      case "stream":
        stream(res, answer);
        return;
      case "hang":
        return;
      case "reset":
        req.socket.destroy();
        return;
    }
  }

  function stream(res: http.ServerResponse, answer: Prepared & { kind: "stream" }): void {
    res.writeHead(answer.status, { ...answer.headers });
    let next = 0;
    let pending: ReturnType<typeof setTimeout> | undefined;
    const write = () => {
      if (closing || res.destroyed) return;
      if (next < answer.chunks.length) {
        res.write(answer.chunks[next++]);
        if (answer.intervalMs <= 0) return write();
        const timer = setTimeout(() => {
          timers.delete(timer);
          write();
        }, answer.intervalMs);
        timers.add(timer);
        pending = timer;
        return;
      }
      if (answer.end === "end") res.end();
      // Dropped once what was written has left: the client reads it, then the cut.
      else if (answer.end === "reset") res.write("", () => res.socket?.destroy());
    };
    res.once("close", () => {
      if (pending === undefined) return;
      clearTimeout(pending);
      timers.delete(pending);
    });
    write();
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const geminiBaseUrl = `${origin}/v1beta`;
  const openaiBaseUrl = `${origin}/v1`;

  return {
    origin,
    geminiBaseUrl,
    openaiBaseUrl,
    env: {
      CODE_COMMIT_GEMINI_BASE_URL: geminiBaseUrl,
      CODE_COMMIT_OPENAI_BASE_URL: openaiBaseUrl,
    },
    requests,
    remaining: () => steps.length - cursor,
    close(): Promise<void> {
      closing ??= (async () => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const socket of sockets) socket.destroy();
        await stopped;
        await Promise.all(socketsClosed);
      })();
      return closing;
    },
  };
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Builders for realistic replies
// ---------------------------------------------------------------------------

function randomId(length: number, alphabet: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const BASE64URL = ALNUM + "-_";

/** A rough token count (four characters a token), at least 1. */
function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Options of {@link geminiReply}. */
export interface GeminiReplyOptions {
  /** A thought summary, sent as a `{ "text": ..., "thought": true }` part before the answer. */
  readonly thoughts?: string;
  /** The candidate's `finishReason`; default `"STOP"`. */
  readonly finishReason?: string;
  /** Token counts; a count of 0 is left out of `usageMetadata`, as the real API does. */
  readonly usage?: {
    readonly prompt?: number;
    readonly candidates?: number;
    readonly thoughts?: number;
  };
}

/**
 * Builds a 200 step whose body is a `GenerateContentResponse` like the one
 * `gemini-2.5-pro` sends: one candidate (role `model`, `finishReason`,
 * `index: 0`), `usageMetadata`, `modelVersion` and `responseId`. An empty
 * `text` without `thoughts` gives a content with no `parts`, as the real API
 * sends an empty answer. Unset token counts are estimated; 2.5 Pro always
 * thinks, so `thoughtsTokenCount` defaults to a non-zero value.
 */
export function geminiReply(text: string, opts: GeminiReplyOptions = {}): ResponseStep {
  const parts: { text: string; thought?: true }[] = [];
  if (opts.thoughts !== undefined) parts.push({ text: opts.thoughts, thought: true });
  if (text !== "") parts.push({ text });
  const prompt = opts.usage?.prompt ?? 1500;
  const candidates = opts.usage?.candidates ?? (text === "" ? 0 : estimateTokens(text));
  const thoughts = opts.usage?.thoughts ?? estimateTokens(opts.thoughts ?? "") + 320;
  const usageMetadata: Record<string, unknown> = { promptTokenCount: prompt };
  if (candidates > 0) usageMetadata.candidatesTokenCount = candidates;
  usageMetadata.totalTokenCount = prompt + candidates + thoughts;
  usageMetadata.promptTokensDetails = [{ modality: "TEXT", tokenCount: prompt }];
  if (thoughts > 0) usageMetadata.thoughtsTokenCount = thoughts;
  return {
    kind: "response",
    status: 200,
    headers: { "content-type": GEMINI_CONTENT_TYPE },
    body: {
      candidates: [
        {
          content: parts.length > 0 ? { parts, role: "model" } : { role: "model" },
          finishReason: opts.finishReason ?? "STOP",
          index: 0,
        },
      ],
      usageMetadata,
      modelVersion: "gemini-2.5-pro",
      responseId: randomId(23, BASE64URL),
    },
  };
}

/** Options of {@link openaiReply}. */
export interface OpenaiReplyOptions {
  /** The choice's `finish_reason`; default `"stop"`. */
  readonly finishReason?: string;
  /** Token counts; `completion` includes `reasoning`, as in the real API. */
  readonly usage?: {
    readonly prompt?: number;
    readonly completion?: number;
    readonly reasoning?: number;
  };
}

/**
 * Builds a 200 step whose body is a chat completion like the one `gpt-5`
 * sends: `id`, `object: "chat.completion"`, `created`,
 * `model: "gpt-5-2025-08-07"`, one choice with an assistant message
 * (`refusal: null`, `annotations: []`) and `finish_reason`, and `usage` with
 * the token details, `service_tier: "default"`, `system_fingerprint: null`.
 */
export function openaiReply(text: string, opts: OpenaiReplyOptions = {}): ResponseStep {
  const prompt = opts.usage?.prompt ?? 1500;
  const reasoning = opts.usage?.reasoning ?? 256;
  const completion = opts.usage?.completion ?? estimateTokens(text) + reasoning;
  return {
    kind: "response",
    status: 200,
    headers: {
      "content-type": OPENAI_CONTENT_TYPE,
      "openai-version": "2020-10-01",
      "openai-processing-ms": "4213",
      "x-request-id": `req_${randomId(32, "0123456789abcdef")}`,
    },
    body: {
      id: `chatcmpl-${randomId(29, ALNUM)}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: "gpt-5-2025-08-07",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: text, refusal: null, annotations: [] },
          finish_reason: opts.finishReason ?? "stop",
        },
      ],
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: reasoning,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      },
      service_tier: "default",
      system_fingerprint: null,
    },
  };
}

/**
 * Builds an error step in Gemini's shape:
 * `{ "error": { "code": status, "message", "status": statusText, "details"? } }`,
 * e.g. `geminiError(503, "The model is overloaded. Please try again later.", "UNAVAILABLE")`.
 */
export function geminiError(
  status: number,
  message: string,
  statusText: string,
  details?: unknown[],
): ResponseStep {
  const error: Record<string, unknown> = { code: status, message, status: statusText };
  if (details !== undefined) error.details = details;
  return {
    kind: "response",
    status,
    headers: { "content-type": GEMINI_CONTENT_TYPE },
    body: { error },
  };
}

/**
 * Builds an error step in OpenAI's shape:
 * `{ "error": { "message", "type", "param", "code" } }` (`param` and `code`
 * default to `null`), e.g. `openaiError(500, "...", "server_error")`.
 */
export function openaiError(
  status: number,
  message: string,
  type: string,
  code: string | null = null,
  param: string | null = null,
): ResponseStep {
  return {
    kind: "response",
    status,
    headers: { "content-type": OPENAI_CONTENT_TYPE },
    body: { error: { message, type, param, code } },
  };
}

// ---------------------------------------------------------------------------
// Streamed replies

/** The events of `data`, each `data: <JSON>` and a blank line, as the real APIs send them. */
export function sseEvents(data: readonly unknown[]): string[] {
  return data.map((item) =>
    `data: ${typeof item === "string" ? item : JSON.stringify(item)}\r\n\r\n`
  );
}

/** Options of {@link geminiStream}. */
export interface GeminiStreamOptions extends GeminiReplyOptions {
  /** Characters of the answer per chunk; default 8. */
  readonly piece?: number;
  /** Milliseconds between chunks. */
  readonly intervalMs?: number;
}

/**
 * Builds a 200 `stream` step as `streamGenerateContent?alt=sse` sends the
 * reply {@link geminiReply} would send whole: the thoughts in one chunk
 * (parts with `thought: true`), the answer cut into chunks of `piece`
 * characters, each chunk with `usageMetadata` counting the tokens so far,
 * and the finish reason on the last chunk.
 */
export function geminiStream(text: string, opts: GeminiStreamOptions = {}): StreamStep {
  const whole = geminiReply(text, opts).body as {
    candidates: { content: { parts?: { text: string; thought?: true }[]; role: string } }[];
    usageMetadata: Record<string, number>;
    modelVersion: string;
    responseId: string;
  };
  const usage = whole.usageMetadata;
  const piece = opts.piece ?? 8;
  const chunks: unknown[] = [];
  const chunk = (parts: unknown[], last: boolean, answered: number) => ({
    candidates: [{
      content: { parts, role: "model" },
      ...(last && { finishReason: opts.finishReason ?? "STOP" }),
      index: 0,
    }],
    usageMetadata: {
      promptTokenCount: usage.promptTokenCount,
      ...(answered > 0 && { candidatesTokenCount: answered }),
      totalTokenCount: usage.promptTokenCount + answered + (usage.thoughtsTokenCount ?? 0),
      ...(usage.thoughtsTokenCount !== undefined &&
        { thoughtsTokenCount: usage.thoughtsTokenCount }),
    },
    modelVersion: whole.modelVersion,
    responseId: whole.responseId,
  });
  const answer = usage.candidatesTokenCount ?? 0;
  if (opts.thoughts !== undefined) {
    chunks.push(chunk([{ text: opts.thoughts, thought: true }], text === "", 0));
  }
  for (let at = 0; at < text.length; at += piece) {
    const end = Math.min(text.length, at + piece);
    chunks.push(
      chunk(
        [{ text: text.slice(at, end) }],
        end === text.length,
        Math.ceil(answer * end / text.length),
      ),
    );
  }
  if (chunks.length === 0) chunks.push(chunk([], true, 0));
  return {
    kind: "stream",
    headers: { "content-type": "text/event-stream" },
    chunks: sseEvents(chunks),
    ...(opts.intervalMs !== undefined && { intervalMs: opts.intervalMs }),
  };
}

/** Options of {@link openaiStream}. */
export interface OpenaiStreamOptions extends OpenaiReplyOptions {
  /** Characters of the answer per chunk; default 8. */
  readonly piece?: number;
  /** Milliseconds between chunks. */
  readonly intervalMs?: number;
}

/**
 * Builds a 200 `stream` step as chat completions with `stream: true` and
 * `stream_options.include_usage` send the reply {@link openaiReply} would
 * send whole: a first chunk with the role, the answer in chunks of `piece`
 * characters (`delta.content`), a chunk with the finish reason, a last
 * chunk with `choices: []` and the usage, then `data: [DONE]`.
 */
export function openaiStream(text: string, opts: OpenaiStreamOptions = {}): StreamStep {
  const whole = openaiReply(text, opts).body as {
    id: string;
    created: number;
    model: string;
    usage: unknown;
  };
  const base = {
    id: whole.id,
    object: "chat.completion.chunk",
    created: whole.created,
    model: whole.model,
    service_tier: "default",
    system_fingerprint: null,
  };
  const choice = (delta: unknown, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: null,
  });
  const chunks: unknown[] = [choice({ role: "assistant", content: "", refusal: null })];
  const piece = opts.piece ?? 8;
  for (let at = 0; at < text.length; at += piece) {
    chunks.push(choice({ content: text.slice(at, at + piece) }));
  }
  chunks.push(choice({}, opts.finishReason ?? "stop"));
  chunks.push({ ...base, choices: [], usage: whole.usage });
  chunks.push("[DONE]");
  return {
    kind: "stream",
    headers: { "content-type": "text/event-stream; charset=utf-8" },
    chunks: sseEvents(chunks),
    ...(opts.intervalMs !== undefined && { intervalMs: opts.intervalMs }),
  };
}

// ---------------------------------------------------------------------------
// Prompt extraction
// ---------------------------------------------------------------------------

/**
 * Returns the prompt text of a recorded Gemini request: its body's
 * `contents[0].parts[0].text`.
 *
 * @throws {Error} when the body has no such string.
 */
export function geminiText(request: RecordedRequest): string {
  // deno-lint-ignore no-explicit-any
  const text = (request.body as any)?.contents?.[0]?.parts?.[0]?.text;
  if (typeof text !== "string") {
    throw new Error(`request ${request.method} ${request.path} has no contents[0].parts[0].text`);
  }
  return text;
}

/**
 * Returns the prompt text of a recorded OpenAI request: its body's
 * `messages[0].content`.
 *
 * @throws {Error} when the body has no such string.
 */
export function openaiText(request: RecordedRequest): string {
  // deno-lint-ignore no-explicit-any
  const text = (request.body as any)?.messages?.[0]?.content;
  if (typeof text !== "string") {
    throw new Error(`request ${request.method} ${request.path} has no messages[0].content string`);
  }
  return text;
}
