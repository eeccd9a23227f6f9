/**
 * Console streams for tests: they keep everything written.
 *
 * @module
 */
import type { ConsoleStreams } from "../../lib/console/console.ts";

/** Streams that keep everything written; not a terminal (unless asked) and never coloured. */
export function memoryStreams(
  options: { terminal?: boolean } = {},
): ConsoleStreams & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    stderrIsTerminal: options.terminal ?? false,
    color: false,
  };
}
