/**
 * The LLM client: one POST per attempt, a time limit, retries; the key only in a header. A
 * streamed answer is read event by event, never taken as a reply before it says it is whole.
 * @module
 */
import { EXIT, interruption } from "../errors/errors.ts";
import type {
  ApiAdapter,
  HttpRequest,
  ParsedReply,
  StreamAssembler,
  StreamProgress,
} from "./adapter.ts";
import { excerpt, httpReason, oneLine } from "./adapter.ts";
import { type ModelId, type ModelTarget, modelTarget, type Provider } from "./models.ts";
import {
  backoffDelayMs,
  DEFAULT_RETRY_POLICY,
  isRetryableStatus,
  retryAfterFromHeaders,
  type RetryPolicy,
} from "./retry.ts";
import { formatSeconds } from "../text/numbers.ts";
import { decodeStrictly, firstInvalidUtf8 } from "../text/utf8.ts";
import { SseParser } from "./sse.ts";
import {
  type CompleteOptions,
  type LlmClient,
  LlmError,
  type LlmErrorDetails,
  type LlmReply,
} from "./types.ts";

const ADAPTERS: Record<Provider, () => Promise<ApiAdapter>> = {
  gemini: async () => (await import("./gemini.ts")).geminiAdapter,
  openai: async () => (await import("./openai.ts")).openaiAdapter,
};

/** How a client behaves: `timeoutMs` per HTTP request (answer and body); the rest has defaults. */
export interface ClientOptions {
  readonly timeoutMs: number;
  readonly retry?: RetryPolicy;
  /** Random numbers in [0, 1) for the jitter. */
  readonly random?: () => number;
  /** Waits `ms` milliseconds unless `signal` aborts first (then rejects). */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Makes the client of `model`, sending to `baseUrl` (already validated) with `key` (none for a
 * local model). @throws {Error} when a model of the table is given no key (a programming error).
 */
export function createClient(
  model: ModelId,
  key: string | undefined,
  baseUrl: string,
  options: ClientOptions,
): LlmClient {
  const target = modelTarget(model);
  if (!target.local && key === undefined) {
    throw new Error(`createClient: ${model} needs the key of ${target.keyFile}`);
  }
  // Loaded from now on, while the run sets up; awaited by the first call.
  const adapter = ADAPTERS[target.provider]();
  adapter.catch(() => {}); // a client never called has no use for it
  const { retry: policy = DEFAULT_RETRY_POLICY, random = Math.random, sleep = abortableSleep } =
    options;

  return {
    model,
    async complete(prompt: string, callOptions: CompleteOptions = {}): Promise<LlmReply> {
      const { signal, onRetry, onProgress } = callOptions;
      const api = await adapter;
      let request = api.request(baseUrl, target.apiModel, key, prompt, target.request);
      try {
        new Headers(request.headers);
      } catch {
        // Never echo the header: it holds the key.
        throw new LlmError(
          `${model}: the key in ${target.keyFile} cannot be sent in an HTTP header; copy the key into the file again`,
          { exitCode: EXIT.setup },
        );
      }
      const context: AttemptContext = {
        target,
        adapter: api,
        host: new URL(request.url).host,
        timeoutMs: options.timeoutMs,
        onProgress,
      };
      const started = performance.now();
      for (let attempt = 1;; attempt++) {
        if (signal?.aborted) throw interruption(signal);
        const verdict = await tryOnce(request, context, signal);
        // A server that knows only the unstreamed method is asked again there, once.
        const unstreamed = verdict.kind !== "reply" && verdict.details.status === 404
          ? context.adapter.unstreamedUrl?.(request.url)
          : undefined;
        if (unstreamed !== undefined) {
          request = { ...request, url: unstreamed };
          attempt--;
          continue;
        }
        if (verdict.kind === "reply") {
          return {
            ...verdict.reply,
            body: verdict.text,
            ...(verdict.events !== undefined && { events: verdict.events }),
            elapsedMs: performance.now() - started,
            attempts: attempt,
          };
        }
        const { message: reason, details, hintMs } = verdict;
        const after = verdict.counted && attempt > 1 ? ` (after ${attempt} attempts)` : "";
        if (!verdict.retry || attempt >= policy.maxAttempts) {
          throw new LlmError(`${model}: ${reason}${after}`, details);
        }
        if (hintMs !== undefined && hintMs > policy.maxHintMs) {
          throw new LlmError(
            `${model}: ${reason}; the server asks to wait ${formatSeconds(hintMs)} ` +
              `before trying again, longer than code-commit waits ` +
              `(${formatSeconds(policy.maxHintMs)}): try again later`,
            details,
          );
        }
        const delayMs = hintMs ?? backoffDelayMs(attempt, policy, random);
        const serverHint = hintMs !== undefined;
        onRetry?.({ attempt, maxAttempts: policy.maxAttempts, reason, delayMs, serverHint });
        await sleep(delayMs, signal);
      }
    },
  };
}

interface AttemptContext {
  readonly target: ModelTarget;
  readonly adapter: ApiAdapter;
  readonly host: string;
  readonly timeoutMs: number;
  readonly onProgress?: (progress: StreamProgress) => void;
}

/** One attempt's outcome; `counted`: a failure's message ends with how many attempts were made. */
type Verdict =
  | { kind: "reply"; reply: ParsedReply; text: string; events?: string }
  | {
    kind: "fail";
    message: string;
    details: LlmErrorDetails;
    retry: boolean;
    counted: boolean;
    hintMs?: number;
  };

function final(message: string, details: LlmErrorDetails = {}, counted = false): Verdict {
  return { kind: "fail", message, details, retry: false, counted };
}

function retry(message: string, details: LlmErrorDetails, hintMs?: number): Verdict {
  return { kind: "fail", message, details, retry: true, counted: true, hintMs };
}

/** Makes one attempt and classifies it. @throws {InterruptedError} on abort. */
async function tryOnce(
  request: HttpRequest,
  context: AttemptContext,
  signal: AbortSignal | undefined,
): Promise<Verdict> {
  // The timer of AbortSignal.timeout does not keep the process alive; the request does.
  const timeout = AbortSignal.timeout(context.timeoutMs);
  let answer: Answer;
  try {
    const response = await fetch(request.url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal: signal === undefined ? timeout : AbortSignal.any([timeout, signal]),
      // A redirect would re-send the key (in its header) and the prompt somewhere else: refuse.
      redirect: "error",
    });
    answer = await readAnswer(response, context);
  } catch (error) {
    if (signal?.aborted) throw interruption(signal);
    return classifyFailure(error, context, timeout.aborted);
  }
  return classifyAnswer(answer, context);
}

function classifyFailure(error: unknown, context: AttemptContext, timedOut: boolean): Verdict {
  const { host } = context;
  if (timedOut) {
    const limit = formatSeconds(context.timeoutMs);
    return final(`no reply within ${limit}; raise --llm-timeout if the model needs longer`);
  }
  if (error instanceof Deno.errors.NotCapable) {
    return final(
      `code-commit may not connect to ${host} ` +
        `(its Deno permissions allow only the two APIs and this machine)`,
    );
  }
  if (error instanceof TypeError && /redirect/i.test(error.message)) {
    return final(
      `${host} answered with a redirect, which code-commit does not follow ` +
        "(it would send your key and prompt elsewhere): check the endpoint",
    );
  }
  if (error instanceof BodyTooLargeError) {
    const mib = MAX_BODY_BYTES / 2 ** 20;
    return final(`the reply is larger than ${mib} MiB, far more than any model's output: refused`);
  }
  if (error instanceof StreamError) {
    // A cut stream is never a partial reply: what arrived is logged, the request made again.
    return error.cut
      ? retry(`${host}: ${error.message}`, { cause: error, events: error.events })
      : final(error.message, { events: error.events });
  }
  return retry(`cannot reach ${host}: ${(error as Error).message}`, { cause: error });
}

/** An error answer is retried when its status is worth it and its body shows no incurable cause. */
function classifyAnswer(answer: Answer, context: AttemptContext): Verdict {
  const { status, headers, text, events } = answer;
  const { target, adapter } = context;
  const details = { status, body: text, ...(events !== undefined && { events }) };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }

  if (status >= 200 && status <= 299) {
    // Never written with its bad bytes replaced by U+FFFD: refused, saying where.
    if (answer.invalid !== undefined) return final(answer.invalid, details);
    if (json === undefined) return final(`the reply is not JSON: ${excerpt(text)}`, details);
    try {
      return { kind: "reply", reply: adapter.parseReply(json), text, events };
    } catch (error) {
      return final(oneLine((error as Error).message), details);
    }
  }

  const apiError = adapter.parseError(json, text);
  const reason = httpReason(status, apiError.message);
  if (apiError.diagnosis !== undefined) {
    const { cause, action } = apiError.diagnosis;
    return final(`${cause}; ${action}; not retried: ${reason}`, details, true);
  }
  if (isRetryableStatus(status) && apiError.retryable !== false && !apiError.keyRejected) {
    return retry(reason, details, retryAfterFromHeaders(headers) ?? apiError.retryDelayMs);
  }
  // What to do about an error the key may cause (a rejected key, 401, 403).
  const key = apiError.keyRejected !== true && status !== 401 && status !== 403
    ? ""
    : target.local
    ? " (the server wants a key, but code-commit sends none to a local model)"
    : ` (check the key in ${target.keyFile})`;
  return final(`${reason}${key}`, details, true);
}

/** An HTTP answer, its body read whole; `invalid`: why a body not valid UTF-8 is refused. */
type Answer = { status: number; headers: Headers; text: string; events?: string; invalid?: string };

/** The largest response body read: a model's whole output is well under 1 MiB. */
const MAX_BODY_BYTES = 64 * 2 ** 20;

async function readAnswer(response: Response, context: AttemptContext): Promise<Answer> {
  const { status, headers, body } = response;
  const type = headers.get("content-type") ?? "";
  if (response.ok && body !== null && /^\s*text\/event-stream\b/i.test(type)) {
    const assembler = context.adapter.assembler();
    context.onProgress?.(assembler.progress()); // a retry starts from nothing
    const outcome = await readEventStream(body, assembler, context.onProgress);
    return { headers, ...outcome, status: outcome.status ?? status };
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  // Leaving the loop by the throw cancels the stream.
  for await (const chunk of body ?? []) {
    total += chunk.byteLength;
    if (total > MAX_BODY_BYTES) throw new BodyTooLargeError();
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(await new Blob(chunks as BlobPart[]).arrayBuffer());
  const text = decodeStrictly(bytes);
  if (text !== undefined) return { status, headers, text };
  const lossy = new TextDecoder().decode(bytes);
  return { status, headers, text: lossy, invalid: invalidUtf8Message(bytes) };
}

// The file blocks' marker lines, as they appear in the answer's JSON (`\n` escaped).
const MARKER = /\^\^\^([^\s"\\^][^\s"\\]*)\\n/g;

// Names the file block the first bad byte is in, if any.
function invalidUtf8Message(body: Uint8Array): string {
  const offset = firstInvalidUtf8(body) ?? body.length;
  const before = new TextDecoder().decode(body.subarray(0, offset));
  let block: string | undefined;
  for (const match of before.matchAll(MARKER)) {
    block = match[1] === "end" || match[1] === "delete" ? undefined : match[1];
  }
  const where = block === undefined ? "" : ` (in the block of the file ${block})`;
  return `the reply is not valid UTF-8: byte ${offset} of its body${where} is not part of a ` +
    "UTF-8 character; refused (its files are never written with bytes replaced): ask again";
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(interruption(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(interruption(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

class BodyTooLargeError extends Error {}

/** An unusable stream; `cut`: it ended before it said it was whole (worth another attempt). */
class StreamError extends Error {
  constructor(message: string, readonly events: string, readonly cut: boolean, cause?: unknown) {
    super(message, { cause });
  }
}

async function readEventStream(
  body: ReadableStream<Uint8Array>,
  assembler: StreamAssembler,
  onProgress?: (progress: StreamProgress) => void,
): Promise<{ status?: number; text: string; events: string }> {
  const reader = body.getReader();
  // Fatal: a reply that is not valid UTF-8 is refused, never written with U+FFFD in its place.
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const parser = new SseParser();
  const raw: string[] = [];
  // The bytes as received, to say where a byte that is not UTF-8 stands.
  const received: Uint8Array[] = [];
  let bytes = 0;
  const events = () => raw.join("");
  try {
    while (true) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        const message = `the connection broke during the reply: ${(error as Error).message}`;
        throw new StreamError(message, events(), true, error);
      }
      let text: string;
      try {
        text = chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      } catch {
        if (!chunk.done) received.push(chunk.value);
        const body = new Uint8Array(await new Blob(received as BlobPart[]).arrayBuffer());
        throw new StreamError(invalidUtf8Message(body), events(), false);
      }
      if (!chunk.done) {
        bytes += chunk.value.byteLength;
        if (bytes > MAX_BODY_BYTES) throw new BodyTooLargeError();
        received.push(chunk.value);
      }
      raw.push(text);
      for (const event of parser.push(text)) {
        let failed; // an API error sent inside the stream
        try {
          failed = assembler.add(event.data);
        } catch (error) {
          throw new StreamError((error as Error).message, events(), false);
        }
        if (failed) return { status: failed.status, text: failed.body, events: events() };
        onProgress?.(assembler.progress());
      }
      if (chunk.done) break;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const unfinished = parser.end() ? ", an unfinished event" : "";
  const missing = assembler.missing();
  if (missing !== undefined) {
    const message = `the reply stream ended before its end (${missing}${unfinished})`;
    throw new StreamError(message, events(), true);
  }
  return { text: JSON.stringify(assembler.body(), null, 2), events: events() };
}
