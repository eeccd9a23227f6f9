/**
 * What code-commit tells its user while it runs. Progress and warnings go
 * to stderr, results to stdout; every line passes through key redaction.
 * On a terminal, one live line at the bottom shows what is running: how
 * long it has run, and what it says meanwhile (the tokens an LLM call has
 * streamed, the latest line of a build), cut to the terminal's width.
 *
 * @module
 */
import { Redactor } from "../secrets/redact.ts";
import { printable } from "../text/characters.ts";
import { streamWriter } from "./stream_writer.ts";

/** Where the console writes; the default writes to the process's streams. */
export interface ConsoleStreams {
  /** Writes to standard output. */
  stdout(text: string): void;
  /** Writes to standard error. */
  stderr(text: string): void;
  /** Whether standard error is a terminal (the live waiting line is shown only then). */
  readonly stderrIsTerminal: boolean;
  /** Whether colour may be used (a terminal, and NO_COLOR not set). */
  readonly color: boolean;
  /** The terminal's width in columns (unknown: {@link DEFAULT_COLUMNS}). */
  columns?(): number;
}

/** The width assumed when the terminal's is unknown. */
export const DEFAULT_COLUMNS = 80;

/** How often a live line is redrawn at most, in milliseconds. */
const REDRAW_MS = 200;

/** Clears the terminal's current line. */
const CLEAR_LINE = "\r\x1b[2K";

/** A live line at the bottom of the terminal. */
export interface LiveLine {
  /** True when the line is shown (stderr is a terminal); otherwise the methods do nothing. */
  readonly shown: boolean;
  /**
   * Shows `detail` after the label and the time (redacted, control
   * characters shown as escapes, like everything printed); redrawn at once
   * unless the line was drawn less than 200 ms ago, else at the next redraw.
   */
  update(detail: string): void;
  /** Removes the line; a second call does nothing. */
  stop(): void;
}

/** The streams of this process. */
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
  #live: { draw(): void } | undefined;
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

  /**
   * From now on, results go to stderr with the progress: with `--json`,
   * stdout carries nothing but the object {@link json} writes.
   */
  resultsToStderr(): void {
    this.#resultsOnStderr = true;
  }

  /** A result, on stdout (on stderr after {@link resultsToStderr}): what a script reading the output relies on. */
  result(text: string): void {
    const line = this.#clean(text.endsWith("\n") ? text : `${text}\n`);
    if (this.#resultsOnStderr) this.#err(line);
    else this.#streams.stdout(line);
  }

  /**
   * Writes `text` (one line of JSON, already free of control characters) and
   * a newline to stdout, keys masked: the `--json` object.
   */
  json(text: string): void {
    this.#streams.stdout(`${this.redact(text)}\n`);
  }

  /** `text` with every key masked, as {@link json} writes it (and `agent-config/last-run.json` keeps it). Never throws. */
  redact(text: string): string {
    return this.#redactor.redact(text);
  }

  /**
   * Shows `label` and the seconds waited so far on one live line, when
   * stderr is a terminal; shows nothing otherwise. Lines printed meanwhile
   * appear above it. Returns the function that removes the line.
   */
  waiting(label: string, now: () => number = Date.now): () => void {
    const line = this.liveLine(label, now);
    return () => line.stop();
  }

  /**
   * Shows `label`, the seconds since it started and the latest detail (see
   * {@link LiveLine.update}) on one live line, when stderr is a terminal;
   * shows nothing otherwise. Lines printed meanwhile appear above it. The
   * line is cut to the terminal's width, so that it never wraps.
   */
  liveLine(label: string, now: () => number = Date.now): LiveLine {
    if (!this.#streams.stderrIsTerminal) return { shown: false, update() {}, stop() {} };
    const started = now();
    let detail = "";
    let drawn = "";
    let drawnAt = -Infinity;
    const text = () => {
      const seconds = Math.floor((now() - started) / 1000);
      return this.#fit(this.#clean(`${label} ${seconds}s${detail === "" ? "" : ` · ${detail}`}`));
    };
    const live = {
      draw: () => {
        drawn = text();
        drawnAt = now();
        this.#streams.stderr(`${CLEAR_LINE}${this.#paint("2", drawn)}`);
      },
    };
    this.#live = live;
    live.draw();
    // Something else (a request, a child process) keeps the process alive; this timer need not.
    const timer = setInterval(() => {
      if (this.#live === live && text() !== drawn) live.draw();
    }, REDRAW_MS);
    Deno.unrefTimer(timer);
    return {
      shown: true,
      update: (next) => {
        detail = next;
        if (this.#live === live && now() - drawnAt >= REDRAW_MS && text() !== drawn) live.draw();
      },
      stop: () => {
        clearInterval(timer);
        if (this.#live !== live) return;
        this.#live = undefined;
        this.#streams.stderr(CLEAR_LINE);
      },
    };
  }

  /**
   * A live line's text, cleaned, on one line: tabs and line feeds become
   * spaces, and it is cut to one column less than the terminal's width (a
   * line that fills the last column wraps on some terminals).
   */
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

  /** Writes text already cleaned (and painted) to stderr, above the live line. */
  #err(text: string): void {
    if (this.#live) this.#streams.stderr(CLEAR_LINE);
    this.#streams.stderr(text);
    this.#live?.draw();
  }

  #paint(code: string, text: string): string {
    return this.#streams.color ? `\x1b[${code}m${text}\x1b[0m` : text;
  }
}
