/**
 * The latest line of a program's output that holds something, escapes removed, for a live line;
 * a carriage return ends a line too (a progress bar). Pure.
 *
 * @module
 */
import { stripAnsi } from "../text/ansi.ts";

/** Characters of one line kept: far more than any terminal shows. */
const KEPT = 4096;

/** Follows a program's output and knows its latest line. */
export class LatestLine {
  #last = "";
  #current = "";

  /** Reads the next piece of output. Never throws. */
  add(text: string): void {
    const [first, ...rest] = text.split(/[\n\r]/);
    this.#append(first);
    for (const piece of rest) {
      if (visible(this.#current)) this.#last = this.#current;
      this.#current = "";
      this.#append(piece);
    }
  }

  /** The latest line that holds something, escape sequences removed; "" before any. Never throws. */
  line(): string {
    const line = visible(this.#current) ? this.#current : this.#last;
    return stripAnsi(line).trim();
  }

  #append(piece: string): void {
    if (this.#current.length < KEPT) this.#current += piece.slice(0, KEPT - this.#current.length);
  }
}

function visible(line: string): boolean {
  return stripAnsi(line).trim() !== "";
}
