/**
 * A write past the file size limit (`ulimit -f`) said in words: by default SIGXFSZ ends the
 * process silently, half done; with a listener the write fails with EFBIG instead, reported and
 * rolled back like any other error.
 *
 * @module
 */

/** Installs a listener for SIGXFSZ that does nothing, where the platform has it. Never throws. */
export function reportOversizeWrites(): void {
  try {
    Deno.addSignalListener("SIGXFSZ", () => {});
  } catch {
    // No SIGXFSZ here (Windows): no limit ends the process this way.
  }
}
