/**
 * Ctrl-C and the stop signals: the first one aborts the run's signal, so the
 * LLM call or the build in progress stops and the workflow ends at a safe
 * point (never in the middle of applying a reply); later ones only say it
 * is stopping. SIGHUP (the terminal or SSH session went away) and SIGQUIT
 * (Ctrl-\) are trapped too: left to their default, they would kill the
 * process in the middle of applying a reply.
 *
 * @module
 */
import type { Console } from "../console/console.ts";
import { InterruptedError } from "../errors/errors.ts";

/** An installed trap. */
export interface InterruptTrap {
  /** Aborts when the user interrupts. */
  readonly signal: AbortSignal;
  /** Removes the trap; again, does nothing. */
  dispose(): void;
}

/** The signals trapped, and how the user is told about each. */
const SIGNALS: readonly [Deno.Signal, string][] = Deno.build.os === "windows"
  ? [["SIGINT", "Ctrl-C"], ["SIGBREAK", "Ctrl-Break"]]
  : [["SIGINT", "Ctrl-C"], ["SIGTERM", "SIGTERM"], ["SIGHUP", "SIGHUP"], ["SIGQUIT", "SIGQUIT"]];

/**
 * Installs the trap for SIGINT, SIGTERM, SIGHUP and SIGQUIT (SIGINT and SIGBREAK on Windows).
 *
 * Never throws (each signal listed is one the platform has).
 */
export function trapInterrupts(console: Console): InterruptTrap {
  const controller = new AbortController();
  const handlers = SIGNALS.map(([signal, how]) => {
    const handler = () => {
      if (controller.signal.aborted) {
        console.warn("still stopping: waiting for the build to end and the files to be consistent");
        return;
      }
      console.warn(`stopping (${how})…`);
      controller.abort(new InterruptedError(how));
    };
    Deno.addSignalListener(signal, handler);
    return [signal, handler] as const;
  });
  return {
    signal: controller.signal,
    dispose() {
      for (const [signal, handler] of handlers.splice(0)) {
        Deno.removeSignalListener(signal, handler);
      }
    },
  };
}
