/**
 * What code-commit tells its user: progress and warnings on stderr, results on stdout, every line
 * redacted; on a terminal, a live line at the bottom shows what runs and its latest output line.
 *
 * @module
 */
import { Redactor } from "../secrets/redact.ts";
import { printable } from "../text/characters.ts";
import { stripAnsi } from "../text/ansi.ts";
import { streamWriter } from "./stream_writer.ts";

/** Where the console writes: stdout, stderr (a live line only on a terminal), colour, width. */
export interface ConsoleStreams {
  stdout(text: string): void;
  stderr(text: string): void;
  readonly stderrIsTerminal: boolean;
  /** Whether colour may be used (a terminal, and NO_COLOR not set). */
  readonly color: boolean;
  columns?(): number;
}

const DEFAULT_COLUMNS = 80;
const REDRAW_MS = 200;
const CLEAR_LINE = "\r\x1b[2K";

function processStreams(): ConsoleStreams {
  const stderrIsTerminal = Deno.stderr.isTerminal();
  return {
    stdout: streamWriter(Deno.stdout),
    stderr: streamWriter(Deno.stderr),
    stderrIsTerminal,
    color: stderrIsTerminal && !Deno.noColor,
    columns: () => {
      try {
        return Deno.consoleSize().columns;
      } catch {
        return DEFAULT_COLUMNS; // no terminal to ask
      }
    },
  };
}

/** The user-facing output of one run. */
export class Console {
  #redactor: Redactor;
  readonly #streams: ConsoleStreams;
  #live: (() => void) | undefined;
  #resultsOnStderr = false;

  /** Makes a console writing to `streams`, redacting with `redactor`. */
  constructor(streams: ConsoleStreams = processStreams(), redactor: Redactor = new Redactor()) {
    this.#streams = streams;
    this.#redactor = redactor;
  }

  /** Redacts from now on with `redactor` (once the keys are known). */
  useRedactor(redactor: Redactor): void {
    this.#redactor = redactor;
  }

  /** A line of progress, on stderr. */
  info(line: string): void {
    this.#err(`${this.#clean(line)}\n`);
  }

  /** A warning, on stderr, prefixed `warning:`. */
  warn(line: string): void {
    this.#err(`${this.#paint("33", "warning:")} ${this.#clean(line)}\n`);
  }

  /** An error, on stderr, prefixed `code-commit:`. */
  error(line: string): void {
    this.#err(`${this.#paint("31", "code-commit:")} ${this.#clean(line)}\n`);
  }

  /** Sends results to stderr from now on: with `--json`, stdout carries only the object. */
  resultsToStderr(): void {
    this.#resultsOnStderr = true;
  }

  /** A result, on stdout (on stderr after {@link resultsToStderr}). */
  result(text: string): void {
    const line = this.#clean(text.endsWith("\n") ? text : `${text}\n`);
    if (this.#resultsOnStderr) this.#err(line);
    else this.#streams.stdout(line);
  }

  /** Writes the `--json` object `text` (one line, no control characters) to stdout, keys masked. */
  json(text: string): void {
    this.#streams.stdout(`${this.redact(text)}\n`);
  }

  /** `text` with every key masked, as {@link json} writes it (and `agent-config/last-run.json` keeps it). Never throws. */
  redact(text: string): string {
    return this.#redactor.redact(text);
  }

  /**
   * Shows `label`, the seconds since it started and the latest detail on one live line cut to the
   * terminal's width, when stderr is a terminal (`shown`; else the methods do nothing); lines
   * printed meanwhile appear above it. `update` redraws at most every 200 ms; `stop` removes it.
   */
  liveLine(
    label: string,
    now: () => number = Date.now,
  ): { readonly shown: boolean; update(detail: string): void; stop(): void } {
    if (!this.#streams.stderrIsTerminal) return { shown: false, update() {}, stop() {} };
    const started = now();
    let detail = "";
    let drawn = "";
    let drawnAt = -Infinity;
    const text = () => {
      const seconds = Math.floor((now() - started) / 1000);
      return this.#fit(this.#clean(`${label} ${seconds}s${detail === "" ? "" : ` · ${detail}`}`));
    };
    const draw = () => {
      drawn = text();
      drawnAt = now();
      this.#streams.stderr(`${CLEAR_LINE}${this.#paint("2", drawn)}`);
    };
    this.#live = draw;
    draw();
    // Something else (a request, a child process) keeps the process alive; this timer need not.
    const timer = setInterval(() => {
      if (this.#live === draw && text() !== drawn) draw();
    }, REDRAW_MS);
    Deno.unrefTimer(timer);
    return {
      shown: true,
      update: (next) => {
        detail = next;
        if (this.#live === draw && now() - drawnAt >= REDRAW_MS && text() !== drawn) draw();
      },
      stop: () => {
        clearInterval(timer);
        if (this.#live !== draw) return;
        this.#live = undefined;
        this.#streams.stderr(CLEAR_LINE);
      },
    };
  }

  /** A live line's text on one line, cut to one column less than the terminal's (some wrap at the last). */
  #fit(text: string): string {
    const reported = this.#streams.columns?.() ?? DEFAULT_COLUMNS;
    const columns = Number.isInteger(reported) && reported > 1 ? reported : DEFAULT_COLUMNS;
    const flat = text.replace(/[\t\n]/g, " ");
    if (flat.length < columns) return flat;
    const characters = Array.from(flat);
    return characters.length < columns ? flat : `${characters.slice(0, columns - 2).join("")}…`;
  }

  /** Redacted, then every control character made visible: text from outside is never obeyed. */
  #clean(text: string): string {
    return printable(this.#redactor.redact(text));
  }

  #err(text: string): void {
    if (this.#live) this.#streams.stderr(CLEAR_LINE);
    this.#streams.stderr(text);
    this.#live?.();
  }

  #paint(code: string, text: string): string {
    return this.#streams.color ? `\x1b[${code}m${text}\x1b[0m` : text;
  }
}

/** Characters of one line kept: far more than any terminal shows. */
const KEPT = 4096;

/**
 * Follows a program's output and knows its latest line that holds something, escapes removed;
 * a carriage return ends a line too (a progress bar).
 */
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
