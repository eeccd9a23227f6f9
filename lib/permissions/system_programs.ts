/**
 * Starts code-commit's helper programs (`kill`, `bwrap`, `git`) from their
 * absolute system paths (`permissions.ts`), never from `PATH`: a build can
 * change what `PATH` finds (an activated virtualenv puts `.venv/bin` of the
 * project first) and would then run its own `kill` or `bwrap` outside any
 * sandbox. git is run through `git.ts`, which also keeps git itself from
 * starting anything the project could plant or name.
 *
 * @module
 */
import { relativeUnder } from "../file_system/paths.ts";
import { type SystemProgram, systemProgramPaths } from "./permissions.ts";

/** A helper program that ran, and where it was found. */
export interface SystemProgramRun {
  /** The absolute path that was started, e.g. `/usr/bin/bwrap`. */
  readonly path: string;
  /** What it gave. */
  readonly output: Deno.CommandOutput;
}

/** Whether the absolute path `path` is `folder` or inside it (compared as written). */
function within(path: string, folder: string): boolean {
  return path === folder || relativeUnder(folder, path) !== undefined;
}

/**
 * The places `name` may be started from, in order, without any that lies
 * inside `projectRoot` (absolute, links resolved): a project at `/usr`
 * could otherwise rewrite the program it is contained by. Never throws.
 */
export function systemProgramCandidates(name: SystemProgram, projectRoot?: string): string[] {
  return systemProgramPaths(name).filter((path) =>
    projectRoot === undefined || !within(path, projectRoot)
  );
}

/**
 * Runs `name` with `options` from the first of its system paths that
 * exists (see {@link systemProgramCandidates}) and waits for it.
 *
 * @throws {Deno.errors.NotFound} when none of the paths holds the program.
 * @throws the error of starting it otherwise (`Deno.errors.PermissionDenied`, say).
 */
export async function runSystemProgram(
  name: SystemProgram,
  options: Deno.CommandOptions,
  projectRoot?: string,
): Promise<SystemProgramRun> {
  const candidates = systemProgramCandidates(name, projectRoot);
  for (const path of candidates) {
    try {
      return { path, output: await new Deno.Command(path, options).output() };
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  throw new Deno.errors.NotFound(
    `${name} is not installed: none of ${candidates.join(", ") || "its system paths"} exists` +
      (projectRoot === undefined ? "" : " outside the project"),
  );
}
