/**
 * Reads what the planner needs from disk: each module's current
 * specification and its cached specification for each stage.
 *
 * @module
 */
import { join } from "node:path";
import { CodeCommitError, messageOf } from "../../errors/errors.ts";
import { readCache } from "./cache.ts";
import type { Module } from "./graph.ts";
import type { ModuleState } from "./plan.ts";
import { PHASES, type StageName } from "./stages.ts";

/**
 * Reads the specification of every module and the cache of every stage of
 * phases 1 to `maxPhase`.
 *
 * @throws {CodeCommitError} when a specification cannot be read, or the
 * cache is refused (a symbolic link or non-folder on its path) or unreadable.
 */
export async function loadStates(
  root: string,
  modules: readonly Module[],
  maxPhase: number,
): Promise<ModuleState[]> {
  const states: ModuleState[] = [];
  for (const module of modules) {
    let spec: Uint8Array;
    try {
      spec = await Deno.readFile(join(root, module.specPath));
    } catch (error) {
      throw new CodeCommitError(`cannot read ${module.specPath}: ${messageOf(error)}`, undefined, {
        cause: error,
      });
    }
    const cache = new Map<StageName, Uint8Array>();
    for (const phase of PHASES) {
      if (phase.number > maxPhase) break;
      for (const stage of phase.stages) {
        const cached = await readCache(root, module.path, stage.name);
        if (cached !== undefined) cache.set(stage.name, cached);
      }
    }
    states.push({ module, spec, cache });
  }
  return states;
}
