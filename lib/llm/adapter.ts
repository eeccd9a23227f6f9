/**
 * What each API adapter gives the shared transport: request, reply, error body, stream.
 * @module
 */
import type { z } from "zod";
import type { RequestShape } from "./models.ts";
import type { TokenUsage } from "./types.ts";

/** One HTTP request to send: the URL never carries the key; the headers do. */
export interface HttpRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A successful body, read (`truncated`: the model stopped at its output limit). */
export interface ParsedReply {
  readonly text: string;
  readonly usage: TokenUsage;
  readonly truncated: boolean;
  readonly finishReason: string;
}

/** An error no wait can cure, named for the user: what went wrong, and what to do about it. */
export type Diagnosis = { readonly cause: string; readonly action: string };

/** An error body, read; `keyRejected` whatever the status; `retryable` false: no wait cures it. */
export interface ParsedError {
  readonly message: string;
  readonly retryDelayMs?: number;
  readonly keyRejected?: boolean;
  readonly retryable?: boolean;
  readonly diagnosis?: Diagnosis;
}

/** What has arrived of one streamed reply: characters, and tokens when the API has said. */
export interface StreamProgress {
  readonly thinkingChars: number;
  readonly answerChars: number;
  readonly thinkingTokens?: number;
  readonly answerTokens?: number;
}

/** Builds, from the events of a streamed reply, the body it would have had unstreamed. */
export interface StreamAssembler {
  /** Reads one event's data: an API error it holds, read like an HTTP answer. @throws {Error} */
  add(data: string): { readonly status: number; readonly body: string } | undefined;
  progress(): StreamProgress;
  /** What the stream lacks to be whole (`no finish reason`, `no [DONE]`), or undefined. */
  missing(): string | undefined;
  body(): unknown;
}

/** One API. */
export interface ApiAdapter {
  /** Where to ask again, unstreamed, when a server answers the streaming request with 404. */
  unstreamedUrl?(url: string): string | undefined;
  /** Builds the request of `prompt` to `model`; no `key`: no authorisation header (local). */
  request(
    baseUrl: string,
    model: string,
    key: string | undefined,
    prompt: string,
    shape?: RequestShape,
  ): HttpRequest;
  /** Reads a 2xx JSON body. @throws {Error} naming what makes it unusable. */
  parseReply(body: unknown): ParsedReply;
  /** Reads an error body (any shape; falls back to the raw text). */
  parseError(body: unknown, rawText: string): ParsedError;
  assembler(): StreamAssembler;
}

/** A stream error's HTTP status: its numeric `code`, else the one a word names, else 500. */
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

/** `json` read with `schema`. @throws {Error} `what` and the first issue when it does not fit. */
export function parseAs<T>(schema: z.ZodType<T>, json: unknown, what: string): T {
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new Error(`${what}: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** The reply of `vendor`'s API. @throws {Error} when it is empty but not cut off. */
export function replyOf(
  vendor: string,
  text: string,
  finishReason: string,
  truncated: boolean,
  usage: TokenUsage,
): ParsedReply {
  if (text === "" && !truncated) {
    throw new Error(`${vendor} returned an empty reply (finish reason ${finishReason})`);
  }
  return { text, truncated, finishReason, usage };
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

/** `HTTP <status>` and the API's message on one line, the number not repeated. Never throws. */
export function httpReason(status: number, message: string): string {
  const flat = oneLine(message);
  const echo = new RegExp(`^${status}(?![\\w.])[:\\s]*`);
  const rest = flat.replace(echo, "");
  return rest === "" ? `HTTP ${status}` : `HTTP ${status} ${rest}`;
}

/** Shortens a raw body for a one-line message. Never throws. */
export function excerpt(text: string, max = 300): string {
  const flat = oneLine(text);
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
