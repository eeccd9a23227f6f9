/**
 * What code-commit tells its user while it runs. Progress and warnings go
 * to stderr, results to stdout; every line passes through key redaction.
 * On a terminal, a waiting LLM call shows how long it has waited.
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
}

/** The streams of this process. */
function processStreams(): ConsoleStreams {
  const stderrIsTerminal = Deno.stderr.isTerminal();
  return {
    stdout: streamWriter(Deno.stdout),
    stderr: streamWriter(Deno.stderr),
    stderrIsTerminal,
    color: stderrIsTerminal && !Deno.noColor,
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
    this.#streams.stdout(`${this.#redactor.redact(text)}\n`);
  }

  /**
   * Shows `label` and the seconds waited so far on one live line, when
   * stderr is a terminal; shows nothing otherwise. Lines printed meanwhile
   * appear above it. Returns the function that removes the line.
   */
  waiting(label: string, now: () => number = Date.now): () => void {
    if (!this.#streams.stderrIsTerminal) return () => {};
    const started = now();
    const live = {
      draw: () => {
        const seconds = Math.floor((now() - started) / 1000);
        const text = this.#clean(`${label} ${seconds}s`);
        this.#streams.stderr(`\r\x1b[2K${this.#paint("2", text)}`);
      },
    };
    this.#live = live;
    live.draw();
    const timer = setInterval(live.draw, 1000);
    Deno.unrefTimer(timer); // the line never keeps the process alive: what it waits for does
    return () => {
      clearInterval(timer);
      if (this.#live !== live) return;
      this.#live = undefined;
      this.#streams.stderr("\r\x1b[2K");
    };
  }

  /** Redacted, then every control character made visible: text from outside is never obeyed. */
  #clean(text: string): string {
    return printable(this.#redactor.redact(text));
  }

  /** Writes text already cleaned (and painted) to stderr, above the live line. */
  #err(text: string): void {
    if (this.#live) this.#streams.stderr("\r\x1b[2K");
    this.#streams.stderr(text);
    this.#live?.draw();
  }

  #paint(code: string, text: string): string {
    return this.#streams.color ? `\x1b[${code}m${text}\x1b[0m` : text;
  }
}
