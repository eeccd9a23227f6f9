/**
 * A parser of server-sent events (`text/event-stream`): text in, in pieces cut anywhere; whole
 * events out. Pure.
 * @module
 */

/** One event of a stream: its type (`message` when unnamed) and its `data:` lines joined with LF. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

/** Reads an event stream a piece at a time. */
export class SseParser {
  #partial = "";
  /** True when the last piece ended with CR: an LF starting the next piece belongs to it. */
  #afterCr = false;
  #event = "";
  #data: string[] = [];

  /** Reads the next piece of the stream and returns the events it completes. Never throws. */
  push(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    if (this.#afterCr && text.startsWith("\n")) start = 1;
    this.#afterCr = false;
    for (let at = start; at < text.length; at++) {
      const c = text.charCodeAt(at);
      if (c !== 10 && c !== 13) continue;
      const line = this.#partial + text.slice(start, at);
      this.#partial = "";
      if (c === 13) {
        if (at + 1 < text.length) {
          if (text.charCodeAt(at + 1) === 10) at++;
        } else {
          this.#afterCr = true;
        }
      }
      start = at + 1;
      const event = this.#line(line);
      if (event !== undefined) events.push(event);
    }
    this.#partial += text.slice(start);
    return events;
  }

  /** Ends the stream, dropping an unfinished event; true when there was one. Never throws. */
  end(): boolean {
    const unfinished = this.#partial !== "" || this.#data.length > 0 || this.#event !== "";
    this.#partial = "";
    this.#data = [];
    this.#event = "";
    return unfinished;
  }

  /** Reads one whole line; returns the event a blank line ends. */
  #line(line: string): SseEvent | undefined {
    if (line === "") {
      const data = this.#data;
      const event = this.#event || "message";
      this.#data = [];
      this.#event = "";
      // An event without data is not dispatched.
      return data.length === 0 ? undefined : { event, data: data.join("\n") };
    }
    if (line.startsWith(":")) return undefined; // a comment (a keep-alive, say)
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
    // `id` and `retry` mean nothing to a single request; unknown fields are ignored.
    return undefined;
  }
}
