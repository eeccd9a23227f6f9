/**
 * What each API adapter provides to the shared transport: how to build the
 * request, how to read a successful body, and how to read an error body.
 *
 * @module
 */
import type { RequestShape } from "./models.ts";
import type { StreamProgress } from "./progress.ts";
import type { TokenUsage } from "./types.ts";

/** One HTTP request to send. */
export interface HttpRequest {
  /** The full URL; it never carries the key. */
  readonly url: string;
  /** The request headers, key included. */
  readonly headers: Record<string, string>;
  /** The JSON body. */
  readonly body: string;
}

/** A successful body, read. */
export interface ParsedReply {
  /** The reply text. */
  readonly text: string;
  /** Tokens used. */
  readonly usage: TokenUsage;
  /** True when the model stopped at its output limit. */
  readonly truncated: boolean;
  /** The API's finish reason. */
  readonly finishReason: string;
}

/** An error no wait can cure, named for the user. */
export interface Diagnosis {
  /** What went wrong, in a few words (e.g. `daily quota used up (…PerDay…)`). */
  readonly cause: string;
  /** What the user can do about it. */
  readonly action: string;
}

/** An error body, read. */
export interface ParsedError {
  /** The API's own message, with its status word when it has one. */
  readonly message: string;
  /** The wait the body asks for before a retry, in milliseconds. */
  readonly retryDelayMs?: number;
  /** True when the API says the key itself was rejected (whatever the status). */
  readonly keyRejected?: boolean;
  /** False when no wait can cure the error, even with a retryable status (no credit left). */
  readonly retryable?: boolean;
  /**
   * Set when the body shows an error that no wait can cure (a daily quota, a
   * free tier with no quota, a request over the limit, an API not enabled):
   * the call ends after this request with the cause and what to do.
   */
  readonly diagnosis?: Diagnosis;
}

/** What one event of a stream was. */
export type StreamEventKind =
  | { readonly kind: "data" }
  /** An API error sent inside the stream: read like an HTTP error answer of `status`. */
  | { readonly kind: "error"; readonly status: number; readonly body: string };

/**
 * Builds, from the events of one streamed reply, the body the same request
 * would have had unstreamed, so that it is read (and logged) the same way.
 */
export interface StreamAssembler {
  /**
   * Reads the data of one event.
   *
   * @throws {Error} when the data is not an event of this API (not JSON, or
   * of the wrong shape); the message says what is wrong.
   */
  add(data: string): StreamEventKind;
  /** What has arrived so far. */
  progress(): StreamProgress;
  /**
   * What the stream lacks to be whole (`no finish reason`, `no [DONE]`), or
   * undefined once it has said that it ended.
   */
  missing(): string | undefined;
  /** The body, in the shape of an unstreamed reply. */
  body(): unknown;
}

/** One API. */
export interface ApiAdapter {
  /**
   * Where to ask again, unstreamed, when a server answers the streaming
   * request with 404 (a server that knows only the plain method); undefined
   * when the API has no other URL.
   */
  unstreamedUrl?(url: string): string | undefined;
  /**
   * Builds the request that sends `prompt` to `model` at `baseUrl`, with
   * what `shape` adds, authorised by `key` (no key: no authorisation header,
   * for a local server).
   */
  request(
    baseUrl: string,
    model: string,
    key: string | undefined,
    prompt: string,
    shape?: RequestShape,
  ): HttpRequest;
  /**
   * Reads a 2xx JSON body.
   *
   * @throws {Error} with a message naming what is wrong: a blocked prompt, a
   * refusal, no candidate, no text, or a body of the wrong shape.
   */
  parseReply(body: unknown): ParsedReply;
  /** Reads an error body (any shape; falls back to the raw text). */
  parseError(body: unknown, rawText: string): ParsedError;
  /** Starts reading the events of one streamed reply. */
  assembler(): StreamAssembler;
}

/**
 * The HTTP status an error sent inside a stream stands for: its numeric
 * `code` when it has one in the range of statuses, else the one its status
 * word or type names (`statuses`), else 500. Never throws.
 */
export function streamErrorStatus(
  code: unknown,
  words: readonly unknown[],
  statuses: Readonly<Record<string, number>>,
): number {
  if (typeof code === "number" && Number.isInteger(code) && code >= 400 && code <= 599) return code;
  for (const word of words) {
    if (typeof word === "string" && Object.hasOwn(statuses, word)) return statuses[word];
  }
  return 500;
}

/** Parses the data of one event as JSON. @throws {Error} saying the event is not JSON. */
export function eventJson(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new Error(`the reply stream holds an event that is not JSON: ${excerpt(data)}`);
  }
}

/** Puts an API's message on one line: every run of white space becomes one space. Never throws. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * The reason an error answer gives, for a one-line message: `HTTP <status>`
 * then the API's message with the status named once — a message that
 * starts by repeating the number (`500: …`, `500 Internal Server Error`,
 * an error body's numeric `code`) loses that repetition. Never throws.
 */
export function httpReason(status: number, message: string): string {
  const flat = oneLine(message);
  const echo = new RegExp(`^${status}(?![\\w.])[:\\s]*`);
  const rest = flat.replace(echo, "");
  return rest === "" ? `HTTP ${status}` : `HTTP ${status} ${rest}`;
}

/** Shortens a raw body for a one-line message. Never throws. */
export function excerpt(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
