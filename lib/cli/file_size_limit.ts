/**
 * A write past the file size limit (`ulimit -f`) said in words. By
 * default the kernel ends a process that writes past the limit with
 * SIGXFSZ, silently: no message, whatever was half done. With a listener
 * for that signal installed, the signal no longer ends the process and the
 * write fails instead (EFBIG, "File too large"), an error like any other,
 * which code-commit reports naming the file (and the journal rolls back).
 *
 * @module
 */

/**
 * Installs a listener for SIGXFSZ that does nothing, so a write past the
 * file size limit fails with an error instead of ending the process. Does
 * nothing where the platform has no such signal. Never throws.
 */
export function reportOversizeWrites(): void {
  try {
    Deno.addSignalListener("SIGXFSZ", ignore);
  } catch {
    // No SIGXFSZ here (Windows): no limit ends the process this way.
  }
}

function ignore(): void {}
