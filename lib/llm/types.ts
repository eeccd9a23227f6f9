/**
 * The one interface every LLM client offers, and the error of a failed call.
 * @module
 */
import { CodeCommitError, EXIT, type ExitStatus } from "../errors/errors.ts";
import type { ParsedReply } from "./adapter.ts";
import type { ModelId } from "./models.ts";
import type { StreamProgress } from "./progress.ts";

/**
 * Tokens one call used: `cached` is the part of `input` read from the provider's cache (0 when
 * not reported), `output` the visible reply, `thinking` what the model spent thinking.
 */
export interface TokenUsage {
  readonly input: number;
  readonly cached: number;
  readonly output: number;
  readonly thinking: number;
}

/**
 * A reply from a model: its non-thought text, the JSON body and raw events as received (left
 * out of what `ask` returns: logged), finish reason, time and HTTP requests, retries included.
 */
export interface LlmReply extends ParsedReply {
  readonly body: string;
  readonly events?: string;
  readonly elapsedMs: number;
  readonly attempts: number;
}

/** Options of one call: Ctrl-C's signal, and who is told of each retry and of the progress. */
export interface CompleteOptions {
  readonly signal?: AbortSignal;
  readonly onRetry?: (notice: RetryNotice) => void;
  readonly onProgress?: (progress: StreamProgress) => void;
}

/**
 * What the client tells its caller before it waits to retry: the attempt that failed
 * (1-based), why, the wait, and whether it is the server's own hint.
 */
export interface RetryNotice {
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly reason: string;
  readonly delayMs: number;
  readonly serverHint: boolean;
}

/** A model behind one API. */
export interface LlmClient {
  /** The model this client calls, as the user named it (`gpt-5.2`, `local:llama3.1:8b`). */
  readonly model: ModelId;
  /**
   * Sends `prompt` and returns the reply. @throws {LlmError} when the call fails or the answer
   * is not a usable reply. @throws {InterruptedError} when `options.signal` aborts.
   */
  complete(prompt: string, options?: CompleteOptions): Promise<LlmReply>;
}

/** What a failed call carries: the last answer's status, body and raw events; its exit status. */
export type LlmErrorDetails = {
  status?: number;
  body?: string;
  events?: string;
  cause?: unknown;
  exitCode?: ExitStatus;
};

/**
 * An LLM call that failed; the message names the model and the API's own words. Carries the
 * last answer's status, body and raw events, when there was one.
 */
export class LlmError extends CodeCommitError {
  readonly status: number | undefined;
  readonly body: string | undefined;
  readonly events: string | undefined;

  /** Makes an LLM error: exit {@link EXIT.model}, unless `options.exitCode` blames the set-up. */
  constructor(message: string, options: LlmErrorDetails = {}) {
    super(message, options.exitCode ?? EXIT.model, { cause: options.cause });
    this.name = "LlmError";
    ({ status: this.status, body: this.body, events: this.events } = options);
  }
}
