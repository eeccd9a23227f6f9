/**
 * The LLM client: one POST over web `fetch` per attempt, a time limit per
 * request, and retries that follow the server's hints. The key travels
 * only in a header.
 *
 * @module
 */
import { interruption } from "../errors/errors.ts";
import type { ApiAdapter } from "./adapter.ts";
import { excerpt, oneLine } from "./adapter.ts";
import { geminiAdapter } from "./gemini.ts";
import { type ModelName, MODELS, type Provider } from "./models.ts";
import { openaiAdapter } from "./openai.ts";
import {
  backoffDelayMs,
  DEFAULT_RETRY_POLICY,
  isRetryableStatus,
  retryAfterFromHeaders,
  type RetryPolicy,
} from "./retry.ts";
import { formatSeconds } from "../text/numbers.ts";
import { type CompleteOptions, type LlmClient, LlmError, type LlmReply } from "./types.ts";

const ADAPTERS: Record<Provider, ApiAdapter> = { gemini: geminiAdapter, openai: openaiAdapter };

/** How a client behaves; everything but the time limit has a default. */
export interface ClientOptions {
  /** How long one HTTP request (answer and body) may take, in milliseconds. */
  readonly timeoutMs: number;
  /** Retry policy. */
  readonly retry?: RetryPolicy;
  /** Random numbers in [0, 1) for the jitter. */
  readonly random?: () => number;
  /** Waits `ms` milliseconds unless `signal` aborts first (then rejects). */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Makes the client of `model`, sending to `baseUrl` (already validated)
 * with `key`.
 */
export function createClient(
  model: ModelName,
  key: string,
  baseUrl: string,
  options: ClientOptions,
): LlmClient {
  const info = MODELS[model];
  const adapter = ADAPTERS[info.provider];
  const policy = options.retry ?? DEFAULT_RETRY_POLICY;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? abortableSleep;

  return {
    model,
    async complete(prompt: string, callOptions: CompleteOptions = {}): Promise<LlmReply> {
      const { signal, onRetry } = callOptions;
      const request = adapter.request(baseUrl, model, key, prompt);
      try {
        new Headers(request.headers);
      } catch {
        // Never echo the header: it holds the key.
        throw new LlmError(
          `${model}: the key in ${info.keyFile} cannot be sent in an HTTP header; copy the key into the file again`,
        );
      }
      const started = performance.now();
      for (let attempt = 1;; attempt++) {
        if (signal?.aborted) throw interruption(signal);
        const last = attempt >= policy.maxAttempts;
        const after = attempt > 1 ? ` (after ${attempt} attempts)` : "";
        let outcome: Outcome;
        try {
          outcome = await send(request, options.timeoutMs, signal);
        } catch (error) {
          if (signal?.aborted) throw interruption(signal);
          if (error instanceof Deno.errors.NotCapable) {
            // Deno's permissions refuse the host: no retry can help.
            throw new LlmError(
              `${model}: code-commit may not connect to ${new URL(request.url).host} ` +
                `(its Deno permissions allow only the two APIs and this machine)`,
            );
          }
          if (error instanceof RedirectError) {
            throw new LlmError(
              `${model}: ${
                new URL(request.url).host
              } answered with a redirect, which code-commit ` +
                "does not follow (it would send your key and prompt elsewhere): check the endpoint",
            );
          }
          if (error instanceof BodyTooLargeError) {
            throw new LlmError(
              `${model}: the reply is larger than ${MAX_BODY_BYTES / 2 ** 20} MiB, far more than ` +
                "any model's output: refused",
            );
          }
          if (error instanceof TimeoutError) {
            throw new LlmError(
              `${model}: no reply within ${
                formatSeconds(options.timeoutMs)
              }; raise --llm-timeout if the model needs longer`,
            );
          }
          const reason = `cannot reach ${new URL(request.url).host}: ${(error as Error).message}`;
          if (last) throw new LlmError(`${model}: ${reason}${after}`, { cause: error });
          const delayMs = backoffDelayMs(attempt, policy, random);
          onRetry?.({
            attempt,
            maxAttempts: policy.maxAttempts,
            reason,
            delayMs,
            serverHint: false,
          });
          await sleep(delayMs, signal);
          continue;
        }

        const { response, text } = outcome;
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }

        if (response.ok) {
          if (json === undefined) {
            throw new LlmError(`${model}: the reply is not JSON: ${excerpt(text)}`, {
              status: response.status,
              body: text,
            });
          }
          try {
            const parsed = adapter.parseReply(json);
            return {
              ...parsed,
              body: text,
              elapsedMs: performance.now() - started,
              attempts: attempt,
            };
          } catch (error) {
            throw new LlmError(`${model}: ${oneLine((error as Error).message)}`, {
              status: response.status,
              body: text,
            });
          }
        }

        const apiError = adapter.parseError(json, text);
        const reason = `HTTP ${response.status} ${oneLine(apiError.message)}`;
        const retryable = isRetryableStatus(response.status) && apiError.retryable !== false;
        if (!retryable || last) {
          const hint = hintFor(response.status, apiError.keyRejected === true, info.keyFile);
          throw new LlmError(
            `${model}: ${reason}${hint}${after}`,
            {
              status: response.status,
              body: text,
            },
          );
        }
        const hint = retryAfterFromHeaders(response.headers) ?? apiError.retryDelayMs;
        if (hint !== undefined && hint > policy.maxHintMs) {
          throw new LlmError(
            `${model}: ${reason}; the server asks to wait ${
              formatSeconds(hint)
            } before trying again, ` +
              `longer than code-commit waits (${formatSeconds(policy.maxHintMs)}): try again later`,
            { status: response.status, body: text },
          );
        }
        const delayMs = hint ?? backoffDelayMs(attempt, policy, random);
        onRetry?.({
          attempt,
          maxAttempts: policy.maxAttempts,
          reason,
          delayMs,
          serverHint: hint !== undefined,
        });
        await sleep(delayMs, signal);
      }
    },
  };
}

interface Outcome {
  readonly response: Response;
  readonly text: string;
}

class TimeoutError extends Error {}
class BodyTooLargeError extends Error {}
class RedirectError extends Error {}

/** The largest response body read: a model's whole output is well under 1 MiB. */
export const MAX_BODY_BYTES = 64 * 2 ** 20;

/** Reads a response body as text, refusing one larger than {@link MAX_BODY_BYTES}. */
async function readBody(response: Response): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new BodyTooLargeError();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** Sends one request and reads its whole body, within `timeoutMs`. */
async function send(
  request: { url: string; headers: Record<string, string>; body: string },
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Outcome> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const response = await fetch(request.url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
      // A redirect would re-send the key (in its header) and the prompt somewhere else: refuse.
      redirect: "error",
    });
    const text = await readBody(response);
    return { response, text };
  } catch (error) {
    if (timedOut) throw new TimeoutError();
    if (error instanceof TypeError && /redirect/i.test(error.message)) throw new RedirectError();
    throw error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

/** What to do about an error the user can fix. */
function hintFor(status: number, keyRejected: boolean, keyFile: string): string {
  if (keyRejected || status === 401 || status === 403) return ` (check the key in ${keyFile})`;
  return "";
}

/** Waits `ms` milliseconds; rejects with {@link InterruptedError} if `signal` aborts first. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
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
