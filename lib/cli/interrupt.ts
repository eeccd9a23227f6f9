/**
 * Ctrl-C: the first press aborts the run's signal, so the LLM call or the
 * build in progress stops and the workflow ends at a safe point (never in
 * the middle of applying a reply); later presses only say it is stopping.
 *
 * @module
 */
import type { Console } from "../console/console.ts";

/** An installed trap. */
export interface InterruptTrap {
  /** Aborts when the user interrupts. */
  readonly signal: AbortSignal;
  /** Removes the trap. */
  dispose(): void;
}

/** Installs the trap for SIGINT (and SIGTERM where the platform has it). */
export function trapInterrupts(console: Console): InterruptTrap {
  const controller = new AbortController();
  const handler = () => {
    if (controller.signal.aborted) {
      console.warn("still stopping: waiting for the build to end and the files to be consistent");
      return;
    }
    console.warn("stopping (Ctrl-C)…");
    controller.abort();
  };
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, handler);
  return {
    signal: controller.signal,
    dispose() {
      for (const signal of signals) Deno.removeSignalListener(signal, handler);
    },
  };
}
