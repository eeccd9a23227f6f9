/**
 * What the command line's text and its parser share, loaded without the
 * parser (`node:util`'s `parseArgs`, whose module costs ≈ 11 ms, half a
 * Deno process's start): the flags' defaults, and the two commands answered
 * before the parser is loaded. Pure.
 *
 * @module
 */

/** Default time one `./build.sh` may run: 30 minutes. */
export const DEFAULT_BUILD_TIMEOUT_SECONDS = 1800;
/** Default time one LLM request may take: 15 minutes, for a thinking model on a large prompt. */
export const DEFAULT_LLM_TIMEOUT_SECONDS = 900;

/**
 * `version` for the arguments `--version` alone, `help` for `--help` or
 * `-h` alone: what `parseCommandLine` answers for them, known without
 * loading it. `undefined` for anything else, which the parser reads.
 * Never throws.
 */
export function answeredAlone(args: readonly string[]): "version" | "help" | undefined {
  if (args.length !== 1) return undefined;
  if (args[0] === "--version") return "version";
  if (args[0] === "--help" || args[0] === "-h") return "help";
  return undefined;
}
