/**
 * Reads each module's specification and cached specifications, for the planner.
 *
 * @module
 */
import { CodeCommitError, EXIT } from "../../errors/errors.ts";
import { readCache, readSpecification } from "./cache.ts";
import type { Module } from "./graph.ts";
import type { ModuleState } from "./next_task.ts";
import { type StageName, STAGES } from "./stages.ts";

/**
 * Reads every module's specification and its cache for phases 1 to `maxPhase`.
 *
 * @throws {CodeCommitError} when a specification is no longer a regular file,
 * too large or hard-linked (its other name may be outside the project), or
 * the cache is refused or unreadable.
 */
export async function loadStates(
  root: string,
  modules: readonly Module[],
  maxPhase: number,
): Promise<ModuleState[]> {
  const states: ModuleState[] = [];
  for (const module of modules) {
    // Discovery found it a regular file: a link or a fifo put there since is refused.
    const spec = await readSpecification(root, module.specPath);
    if (spec === undefined) {
      throw new CodeCommitError(
        `cannot read ${module.specPath}: it was removed while code-commit ran; restore it, then run again`,
        EXIT.setup,
      );
    }
    const cache = new Map<StageName, Uint8Array>();
    for (const stage of STAGES.filter((stage) => stage.phase <= maxPhase)) {
      const cached = await readCache(root, module.path, stage.name);
      if (cached !== undefined) cache.set(stage.name, cached);
    }
    states.push({ module, spec, cache });
  }
  return states;
}
