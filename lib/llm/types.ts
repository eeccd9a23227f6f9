/**
 * The one interface every LLM client offers: a prompt in; the text, the
 * whole JSON body, the token usage and how the reply finished out.
 *
 * @module
 */
import { CodeCommitError, EXIT, type ExitStatus } from "../errors/errors.ts";
import type { ModelId } from "./models.ts";
import type { StreamProgress } from "./progress.ts";

/** Tokens one call used. */
export interface TokenUsage {
  /** Tokens of the prompt. */
  readonly input: number;
  /** Tokens of the prompt read from the provider's cache (part of `input`, billed lower; 0 when not reported). */
  readonly cached: number;
  /** Tokens of the visible reply (thinking excluded). */
  readonly output: number;
  /** Tokens the model spent thinking. */
  readonly thinking: number;
}

/** A reply from a model. */
export interface LlmReply {
  /** The reply's text (Gemini: its non-thought text parts, joined). */
  readonly text: string;
  /**
   * The whole JSON body received, as received; empty in the reply `ask`
   * returns, which logs it first (a body is as large as the reply).
   */
  readonly body: string;
  /**
   * The raw events, as received, when the reply was streamed (the body is
   * then assembled from them); absent in the reply `ask` returns, which logs them.
   */
  readonly events?: string;
  /** Tokens used. */
  readonly usage: TokenUsage;
  /** True when the model stopped at its output limit: the text is cut off. */
  readonly truncated: boolean;
  /** The API's own finish reason (e.g. `STOP`, `MAX_TOKENS`, `stop`, `length`). */
  readonly finishReason: string;
  /** How long the call took, retries included, in milliseconds. */
  readonly elapsedMs: number;
  /** How many HTTP requests the call took (1 when no retry was needed). */
  readonly attempts: number;
}

/** Options of one call. */
export interface CompleteOptions {
  /** Aborts the call (Ctrl-C). */
  readonly signal?: AbortSignal;
  /** Told about each retry before its wait begins. */
  readonly onRetry?: (notice: RetryNotice) => void;
  /** Told what a streamed reply has delivered so far, after each event (and at each attempt's start). */
  readonly onProgress?: (progress: StreamProgress) => void;
}

/** What the client tells its caller before it waits to retry. */
export interface RetryNotice {
  /** The attempt that failed (1-based). */
  readonly attempt: number;
  /** The most attempts the client makes. */
  readonly maxAttempts: number;
  /** Why the attempt failed. */
  readonly reason: string;
  /** How long the client waits before the next attempt, in milliseconds. */
  readonly delayMs: number;
  /** True when the wait is the server's own hint (retry-after, RetryInfo). */
  readonly serverHint: boolean;
}

/** A model behind one API. */
export interface LlmClient {
  /** The model this client calls, as the user named it (`gpt-5.2`, `local:llama3.1:8b`). */
  readonly model: ModelId;
  /**
   * Sends `prompt` and returns the reply.
   *
   * @throws {LlmError} when the API refuses, fails after the retries, times
   * out, or answers with something that is not a usable reply.
   * @throws {InterruptedError} when `options.signal` aborts.
   */
  complete(prompt: string, options?: CompleteOptions): Promise<LlmReply>;
}

/** An LLM call that failed; the message names the model and the API's own words. */
export class LlmError extends CodeCommitError {
  /** The HTTP status of the last answer, if there was one. */
  readonly status: number | undefined;
  /** The last body received, as received, if there was one. */
  readonly body: string | undefined;
  /** The raw events of the last answer, if it was streamed. */
  readonly events: string | undefined;

  /**
   * Makes an LLM error: exit {@link EXIT.model}, unless `options.exitCode`
   * says the fault is in the set-up (a key that cannot be sent).
   */
  constructor(
    message: string,
    options: {
      status?: number;
      body?: string;
      events?: string;
      cause?: unknown;
      exitCode?: ExitStatus;
    } = {},
  ) {
    super(message, options.exitCode ?? EXIT.model, { cause: options.cause });
    this.name = "LlmError";
    this.status = options.status;
    this.body = options.body;
    this.events = options.events;
  }
}
