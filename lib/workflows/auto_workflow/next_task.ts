/**
 * Which task comes next: phases in order; within one, modules by depth then path; within a module,
 * its stages in order. The next task is the first stage whose cached specification is not the
 * current one. Pure: no I/O.
 * @module
 */
import { sameBytes } from "../../apply/content_hash.ts";
import { compareCodePoints } from "../../project_files/order.ts";
import type { Module } from "./graph.ts";
import { PHASES, type Stage, type StageName } from "./stages.ts";

/** What the planner knows of one module: its specification, and the cached one of each stage passed. */
export interface ModuleState {
  readonly module: Module;
  readonly spec: Uint8Array;
  readonly cache: ReadonlyMap<StageName, Uint8Array>;
}

/** One task: a stage to run on a module, with the specification it last passed with. */
export interface Task {
  readonly state: ModuleState;
  readonly stage: Stage;
  readonly cached: Uint8Array | undefined;
}

function stageDone(state: ModuleState, stage: Stage): boolean {
  const cached = state.cache.get(stage.name);
  return cached !== undefined && sameBytes(cached, state.spec);
}

/**
 * The next task among phases 1 to `maxPhase`, or `undefined` when every module has passed every
 * stage of those phases. Never throws.
 */
export function nextTask(states: readonly ModuleState[], maxPhase: number): Task | undefined {
  const ordered = [...states].sort((a, b) =>
    a.module.depth - b.module.depth || compareCodePoints(a.module.path, b.module.path)
  );
  for (const phase of PHASES) {
    if (phase.number > maxPhase) break;
    for (const state of ordered) {
      for (const stage of phase.stages) {
        if (!stageDone(state, stage)) return { state, stage, cached: state.cache.get(stage.name) };
      }
    }
  }
  return undefined;
}

/** The highest phase every module has passed completely (0 when none). Never throws. */
export function phasesComplete(states: readonly ModuleState[]): number {
  let complete = 0;
  for (const phase of PHASES) {
    if (!states.every((state) => phase.stages.every((stage) => stageDone(state, stage)))) break;
    complete = phase.number;
  }
  return complete;
}
