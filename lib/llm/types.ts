/**
 * The one interface every LLM client offers, and the error of a failed call.
 * @module
 */
import { CodeCommitError, EXIT, type ExitStatus } from "../errors/errors.ts";
import type { ParsedReply, StreamProgress } from "./adapter.ts";
import type { ModelId } from "./models.ts";

/** Tokens one call used: `cached` is the part of `input` read from the provider's cache. */
export interface TokenUsage {
  readonly input: number;
  readonly cached: number;
  readonly output: number;
  readonly thinking: number;
}

/** A reply: its non-thought text, the body and raw events as received, time, and requests made. */
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

/** What the client tells before it waits to retry; `attempt`: the one that failed (1-based). */
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
  /** Sends `prompt`. @throws {LlmError} on failure. @throws {InterruptedError} on abort. */
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

/** An LLM call that failed, with the last answer's status, body and raw events. */
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
