/**
 * Reads one streamed answer (`text/event-stream`) as it arrives: its bytes
 * decoded, cut into events, each event handed to the API's assembler, the
 * progress reported; the raw events kept for their log. A stream that ends
 * before it says it is whole, or whose connection breaks, is a
 * {@link StreamCutError}: never a reply.
 *
 * @module
 */
import type { StreamAssembler } from "./adapter.ts";
import type { StreamProgress } from "./progress.ts";
import { SseParser } from "./sse.ts";
import { invalidUtf8Message } from "./invalid_utf8.ts";
import { firstInvalidUtf8 } from "../text/utf8.ts";

/** A body larger than the limit: refused. */
export class BodyTooLargeError extends Error {}

/** A stream that ended, or broke, before it said it was whole. */
export class StreamCutError extends Error {
  /** The raw events received before the cut. */
  events = "";
}

/** An event that is not one of the API's (not JSON, or of the wrong shape). */
export class StreamFormatError extends Error {
  /** The raw events received up to it. */
  events = "";
}

/** A stream read to its end. */
export type StreamOutcome =
  | {
    /** The stream was whole. */
    readonly kind: "reply";
    /** The assembled body, as JSON text in the shape of an unstreamed reply. */
    readonly body: string;
    /** The raw events, as received. */
    readonly events: string;
  }
  | {
    /** The stream carried an API error. */
    readonly kind: "error";
    /** The HTTP status the error stands for. */
    readonly status: number;
    /** The error event's data. */
    readonly body: string;
    /** The raw events, as received. */
    readonly events: string;
  };

/**
 * Reads `body` to its end (or to its first error event) through
 * `assembler`, calling `onProgress` after each event with data.
 *
 * @throws {BodyTooLargeError} once more than `maxBytes` bytes arrived.
 * @throws {StreamCutError} when the stream ends before it is whole, or its
 * connection breaks (the message says which).
 * @throws {StreamFormatError} when an event is not one of the API's.
 */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  assembler: StreamAssembler,
  maxBytes: number,
  onProgress?: (progress: StreamProgress) => void,
): Promise<StreamOutcome> {
  const reader = body.getReader();
  // Fatal: a reply that is not valid UTF-8 is refused, never written with U+FFFD in its place.
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const parser = new SseParser();
  const raw: string[] = [];
  // The bytes as received, to say where a byte that is not UTF-8 stands (bounded by maxBytes).
  const received: Uint8Array[] = [];
  let bytes = 0;
  const events = () => raw.join("");
  try {
    while (true) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        const cut = new StreamCutError(
          `the connection broke during the reply: ${(error as Error).message}`,
          { cause: error },
        );
        cut.events = events();
        throw cut;
      }
      let text: string;
      try {
        text = chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      } catch {
        if (!chunk.done) received.push(chunk.value);
        const body = joinBytes(received);
        const format = new StreamFormatError(
          invalidUtf8Message(body, firstInvalidUtf8(body) ?? bytes),
        );
        format.events = events();
        throw format;
      }
      if (!chunk.done) {
        bytes += chunk.value.byteLength;
        if (bytes > maxBytes) throw new BodyTooLargeError();
        received.push(chunk.value);
      }
      raw.push(text);
      for (const event of parser.push(text)) {
        let kind;
        try {
          kind = assembler.add(event.data);
        } catch (error) {
          const format = new StreamFormatError((error as Error).message);
          format.events = events();
          throw format;
        }
        if (kind.kind === "error") {
          return { kind: "error", status: kind.status, body: kind.body, events: events() };
        }
        onProgress?.(assembler.progress());
      }
      if (chunk.done) break;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const unfinished = parser.end();
  const missing = assembler.missing();
  if (missing !== undefined) {
    const cut = new StreamCutError(
      `the reply stream ended before its end (${missing}${
        unfinished ? ", an unfinished event" : ""
      })`,
    );
    cut.events = events();
    throw cut;
  }
  return { kind: "reply", body: JSON.stringify(assembler.body(), null, 2), events: events() };
}

/** The pieces of `chunks` as one array. */
function joinBytes(chunks: readonly Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}
