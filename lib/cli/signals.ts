/**
 * The signals code-commit handles. Ctrl-C and the stop signals: the first aborts the run's signal
 * so the workflow ends at a safe point, never in the middle of applying a reply (as default SIGHUP
 * and SIGQUIT would). SIGXFSZ: a write past `ulimit -f` fails naming the file instead.
 *
 * @module
 */
import type { Console } from "../console/console.ts";
import { InterruptedError } from "../errors/errors.ts";

/** The signals trapped, and how the user is told of each. */
const SIGNALS: readonly [Deno.Signal, string][] = Deno.build.os === "windows"
  ? [["SIGINT", "Ctrl-C"], ["SIGBREAK", "Ctrl-Break"]]
  : [["SIGINT", "Ctrl-C"], ["SIGTERM", "SIGTERM"], ["SIGHUP", "SIGHUP"], ["SIGQUIT", "SIGQUIT"]];

/**
 * Installs the trap for the stop signals of the platform: its `signal` aborts when the user
 * interrupts; `dispose` removes it. Never throws.
 */
export function trapInterrupts(
  console: Console,
): { readonly signal: AbortSignal; dispose(): void } {
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

/**
 * Installs a listener for SIGXFSZ that does nothing, where the platform has it: a write past the
 * file size limit (`ulimit -f`) then fails with EFBIG, reported and rolled back like any other
 * error, instead of ending the process silently, half done. Never throws.
 */
export function reportOversizeWrites(): void {
  try {
    Deno.addSignalListener("SIGXFSZ", () => {});
  } catch {
    // No SIGXFSZ here (Windows): no limit ends the process this way.
  }
}
