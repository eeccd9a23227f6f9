/**
 * Reads each module's specification and cached specifications, for the planner.
 *
 * @module
 */
import { CodeCommitError, EXIT } from "../../errors/errors.ts";
import { readBounded } from "../../file_system/bounded_read.ts";
import { READ_LIMITS } from "../../file_system/read_limits.ts";
import { readCache } from "./cache.ts";
import type { Module } from "./graph.ts";
import type { ModuleState } from "./next_task.ts";
import { PHASES, type StageName } from "./stages.ts";
import { under } from "../../file_system/file_system.ts";

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
    const spec = await readBounded(under(root, module.specPath), {
      limit: READ_LIMITS.specification,
      followSymlink: false,
      name: module.specPath,
      refuseHardLinks: true,
    });
    if (spec === undefined) {
      throw new CodeCommitError(
        `cannot read ${module.specPath}: it was removed while code-commit ran; restore it, then run again`,
        EXIT.setup,
      );
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
