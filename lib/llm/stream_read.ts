/**
 * Reads one streamed answer as it arrives, through the API's assembler; never a partial reply.
 * @module
 */
import type { StreamAssembler } from "./adapter.ts";
import type { StreamProgress } from "./progress.ts";
import { SseParser } from "./sse.ts";
import { invalidUtf8Message } from "./invalid_utf8.ts";
import { firstInvalidUtf8 } from "../text/utf8.ts";

/** A body larger than the limit: refused. */
export class BodyTooLargeError extends Error {}

/** A stream that ended, or broke, before it said it was whole; `events`: what arrived. */
export class StreamCutError extends Error {
  /** Makes the error. */
  constructor(message: string, readonly events: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** An event that is not one of the API's (not JSON, or of the wrong shape), or bytes not UTF-8. */
export class StreamFormatError extends Error {
  /** Makes the error. */
  constructor(message: string, readonly events: string) {
    super(message);
  }
}

/**
 * Reads `body` to its end through `assembler`, calling `onProgress` after each event with data:
 * the assembled body, or the first error event's data and the HTTP `status` it stands for; and
 * the raw events.
 * @throws {BodyTooLargeError} once more than `maxBytes` bytes arrived.
 * @throws {StreamCutError} when the stream ends before it is whole, or its connection breaks.
 * @throws {StreamFormatError} when an event is not one of the API's, or a byte is not UTF-8.
 */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  assembler: StreamAssembler,
  maxBytes: number,
  onProgress?: (progress: StreamProgress) => void,
): Promise<{ status?: number; body: string; events: string }> {
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
        const message = `the connection broke during the reply: ${(error as Error).message}`;
        throw new StreamCutError(message, events(), { cause: error });
      }
      let text: string;
      try {
        text = chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      } catch {
        if (!chunk.done) received.push(chunk.value);
        const body = new Uint8Array(await new Blob(received as BlobPart[]).arrayBuffer());
        const message = invalidUtf8Message(body, firstInvalidUtf8(body) ?? bytes);
        throw new StreamFormatError(message, events());
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
          throw new StreamFormatError((error as Error).message, events());
        }
        if (kind.kind === "error") {
          return { status: kind.status, body: kind.body, events: events() };
        }
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
    throw new StreamCutError(message, events());
  }
  return { body: JSON.stringify(assembler.body(), null, 2), events: events() };
}
