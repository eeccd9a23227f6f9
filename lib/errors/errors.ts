/**
 * The errors code-commit reports to its user, each with its exit status.
 * @module
 */

/** Exit statuses by class, the same for every workflow; `--help` and the README list them. */
export const EXIT = {
  ok: 0,
  /** The build still fails after the last repair. */
  failed: 1,
  usage: 2,
  /** Set-up missing or wrong, found before any call: keys, query, rollup, `.gitignore`, budget. */
  setup: 3,
  /** The model or its API failed: HTTP errors after retries, refusals, unusable replies. */
  model: 4,
  /** Stopped for safety: the tamper check, a key in a reply. */
  safety: 5,
  /** Another code-commit holds this project. */
  locked: 6,
  /** The auto workflow stopped on a task that needs the user. */
  needsUser: 7,
  /** Ctrl-C or a stop signal; shells report 128 + SIGINT. */
  interrupted: 130,
} as const;

/** One of the exit statuses of {@link EXIT}. */
export type ExitStatus = typeof EXIT[keyof typeof EXIT];

/** The name of each exit status, as `--json` reports it. */
export const EXIT_CLASS: Readonly<Record<number, string>> = Object.freeze(
  Object.fromEntries(Object.entries(EXIT).map(([name, status]) => [status, name])),
);

/** An error meant for the user: one line, with the exit status it ends the run with. */
export class CodeCommitError extends Error {
  /** Makes an error with a one-line message; no default status: each throw site names its class. */
  constructor(message: string, readonly exitCode: ExitStatus, options?: ErrorOptions) {
    super(message, options);
    this.name = "CodeCommitError";
  }
}

/** The command line is wrong (exit 2): an unknown flag or model, a missing value, two workflows. */
export class UsageError extends CodeCommitError {
  /** Makes a usage error; the message names the flag at fault. */
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = "UsageError";
  }
}

/** The run was interrupted: Ctrl-C, or a stop signal (SIGTERM, SIGHUP, SIGQUIT). */
export class InterruptedError extends CodeCommitError {
  /** Makes the error that ends an interrupted run; `how` names what interrupted it. */
  constructor(how = "Ctrl-C") {
    super(`interrupted (${how}); no file was left half-written`, EXIT.interrupted);
    this.name = "InterruptedError";
  }
}

/** The error to throw once `signal` has aborted: the trap's {@link InterruptedError}, or a plain one. */
export function interruption(signal: AbortSignal | undefined): InterruptedError {
  return signal?.reason instanceof InterruptedError ? signal.reason : new InterruptedError();
}

/** Returns the message of any thrown value, for one-line reports. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
