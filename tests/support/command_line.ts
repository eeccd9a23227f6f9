/**
 * The command line read as `main.ts` reads it, in one step, for tests:
 * `readCommandLine`, then `resolveOptions` with the settings given.
 *
 * @module
 */
import {
  type CommandLine,
  type GivenOptions,
  readCommandLine,
  resolveOptions,
  type RunOptions,
  type Workflow,
} from "../../lib/cli/args.ts";

/** What the command line asked for, with the options of a run resolved. */
export type Command =
  | Exclude<CommandLine, { kind: "run" }>
  | { readonly kind: "run"; readonly workflow: Workflow; readonly options: RunOptions };

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
