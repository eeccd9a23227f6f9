/**
 * A parser of server-sent events: text in, in pieces cut anywhere; whole events out. Pure.
 * @module
 */

/** One event: its type (`message` when unnamed) and its `data:` lines joined with LF. */
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
    // A CR that ended the last piece and an LF that starts this one are one line end.
    const piece = this.#afterCr && text.startsWith("\n") ? text.slice(1) : text;
    this.#afterCr = piece.endsWith("\r");
    const lines = piece.split(/\r\n|\r|\n/);
    lines[0] = this.#partial + lines[0];
    this.#partial = lines.pop()!;
    return lines.map((line) => this.#line(line)).filter((event) => event !== undefined);
  }

  /** Ends the stream, dropping an unfinished event; true when there was one. Never throws. */
  end(): boolean {
    const unfinished = this.#partial !== "" || this.#data.length > 0 || this.#event !== "";
    this.#partial = "";
    this.#data = [];
    this.#event = "";
    return unfinished;
  }

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
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
    // `id` and `retry` mean nothing to a single request; unknown fields are ignored.
    return undefined;
  }
}
