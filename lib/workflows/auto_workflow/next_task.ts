/**
 * Which task comes next: phases in order across
 * all modules; within a phase, modules by depth, then by path in code-point
 * order; within a module, the stages of the phase in order. The next task is
 * the first stage whose cached specification is not, byte for byte, the
 * current one. Pure: no I/O.
 *
 * @module
 */
import { compareCodePoints } from "../../project_files/order.ts";
import type { Module } from "./graph.ts";
import { PHASES, type Stage, type StageName } from "./stages.ts";

/** What the planner knows of one module. */
export interface ModuleState {
  /** The module. */
  readonly module: Module;
  /** Its current `UserSpecification.md`, as bytes. */
  readonly spec: Uint8Array;
  /** The cached specification of each stage it has passed (absent: never passed). */
  readonly cache: ReadonlyMap<StageName, Uint8Array>;
}

/** One task: a stage to run on a module. */
export interface Task {
  /** The module's state when the task was planned. */
  readonly state: ModuleState;
  /** The stage to run. */
  readonly stage: Stage;
  /** The specification this stage last passed with, when it has passed before. */
  readonly cached: Uint8Array | undefined;
}

/** Whether two byte strings are equal. Never throws. */
function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether `state`'s module has passed `stage` with its current specification. Never throws. */
export function stageDone(state: ModuleState, stage: Stage): boolean {
  const cached = state.cache.get(stage.name);
  return cached !== undefined && bytesEqual(cached, state.spec);
}

/** The modules in processing order: depth, then path in code-point order. Never throws. */
function processingOrder(states: readonly ModuleState[]): ModuleState[] {
  return [...states].sort((a, b) =>
    a.module.depth - b.module.depth || compareCodePoints(a.module.path, b.module.path)
  );
}

/**
 * The next task among phases 1 to `maxPhase`, or `undefined` when every
 * module has passed every stage of those phases. Never throws.
 */
export function nextTask(states: readonly ModuleState[], maxPhase: number): Task | undefined {
  const ordered = processingOrder(states);
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
