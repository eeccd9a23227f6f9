/**
 * The command line read as `main.ts` reads it, in one step, for tests:
 * `readCommandLine`, then `resolveOptions` with the settings given.
 *
 * @module
 */
import {
  type Command,
  type GivenOptions,
  readCommandLine,
  resolveOptions,
} from "../../lib/cli/args.ts";

/**
 * Reads `args` and resolves the options of a run with `settings` (none by
 * default), as `main.ts` does once it has read the settings file.
 *
 * @throws {UsageError} and {CodeCommitError} as `readCommandLine` and `resolveOptions` do.
 */
export function parseCommandLine(args: readonly string[], settings: GivenOptions = {}): Command {
  const line = readCommandLine(args);
  if (line.kind !== "run") return line;
  return {
    kind: "run",
    workflow: line.workflow,
    options: resolveOptions(line.workflow, line.given, settings),
  };
}
