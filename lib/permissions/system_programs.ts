/**
 * Starts code-commit's helper programs from their absolute system paths, never from `PATH`, which
 * a build can change (a virtualenv's `.venv/bin` first) to run its own `kill` or `bwrap` unconfined.
 *
 * @module
 */
import { relativeUnder } from "../file_system/paths.ts";
import { type SystemProgram, systemProgramPaths } from "./permissions.ts";

/** A helper program that ran: the absolute path started, and what it gave. */
export interface SystemProgramRun {
  readonly path: string;
  readonly output: Deno.CommandOutput;
}

/**
 * Where `name` may start from, without any inside `projectRoot` (real path): a project at `/usr`
 * could otherwise rewrite the program it is contained by. Never throws.
 */
export function systemProgramCandidates(name: SystemProgram, projectRoot?: string): string[] {
  // Compared as written: the project root, links resolved, against the system paths.
  return systemProgramPaths(name).filter((path) =>
    projectRoot === undefined ||
    (path !== projectRoot && relativeUnder(projectRoot, path) === undefined)
  );
}

/**
 * Runs `name` from the first of its candidate paths that exists, and waits for it.
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
