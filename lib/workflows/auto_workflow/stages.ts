/**
 * The phases and stages of the auto workflow (seed 003): four phases, fourteen
 * stages, each with what it asks of the model and which codebase it gets.
 * The order here is the order tasks run in.
 *
 * @module
 */

/** The fourteen stage names, in order. */
export const STAGE_NAMES = [
  "self-consistent",
  "implemented",
  "documented",
  "happy-path-tested",
  "dependency-verified",
  "secure",
  "complete",
  "edge-tested",
  "simple",
  "logged",
  "integration-tested",
  "benchmarked",
  "fuzzed",
  "polished",
] as const;

/** One stage name. */
export type StageName = typeof STAGE_NAMES[number];

/**
 * How a stage works:
 * - `review`: one direct LLM call; the reply may not change any file;
 * - `change`: the committing-code loop (guarded, all-or-nothing, built, repaired).
 */
export type StageKind = "review" | "change";

/**
 * The codebase a code-changing stage is given:
 * - `full`: the top-level specification, every file of the module, and each
 *   dependency's specification and API signatures;
 * - `module`: every file of the module only.
 */
export type CodebaseKind = "full" | "module";

/** One stage of a phase. */
export interface Stage {
  /** The stage's name, also the name of its cache file. */
  readonly name: StageName;
  /** The phase it belongs to (1–4). */
  readonly phase: number;
  /** Whether it reviews only or changes code. */
  readonly kind: StageKind;
  /** The codebase it is given (code-changing stages). */
  readonly codebase: CodebaseKind;
  /**
   * Whether its prompt shows the specification this stage last passed with
   * (the `[cached target user specification]` section of seed 003), when there is one.
   */
  readonly showsCachedSpec: boolean;
}

/** One phase: its number and its stages in order. */
export interface Phase {
  /** 1 to 4. */
  readonly number: number;
  /** Its stages, in the order they run. */
  readonly stages: readonly Stage[];
}

function stage(
  name: StageName,
  phase: number,
  kind: StageKind = "change",
  codebase: CodebaseKind = "full",
  showsCachedSpec = false,
): Stage {
  return Object.freeze({ name, phase, kind, codebase, showsCachedSpec });
}

/** The four phases of seed 003, in order. */
export const PHASES: readonly Phase[] = Object.freeze([
  {
    number: 1,
    stages: [
      stage("self-consistent", 1, "review"),
      stage("implemented", 1, "change", "full", true),
      stage("documented", 1, "change", "module"),
      stage("happy-path-tested", 1, "change", "full", true),
    ],
  },
  {
    number: 2,
    stages: [
      stage("dependency-verified", 2),
      stage("secure", 2),
      stage("complete", 2),
      stage("edge-tested", 2),
    ],
  },
  {
    number: 3,
    stages: [stage("simple", 3), stage("logged", 3), stage("integration-tested", 3)],
  },
  {
    number: 4,
    stages: [stage("benchmarked", 4), stage("fuzzed", 4), stage("polished", 4)],
  },
].map((phase) => Object.freeze({ ...phase, stages: Object.freeze(phase.stages) })));

/** The highest phase number. */
export const MAX_PHASE: number = PHASES.length;

/** Every stage of every phase, in order. */
export const STAGES: readonly Stage[] = Object.freeze(PHASES.flatMap((phase) => phase.stages));

/** Returns the stage called `name`. Throws a RangeError for an unknown name (a programming error). */
export function stageNamed(name: string): Stage {
  const found = STAGES.find((stage) => stage.name === name);
  if (found === undefined) throw new RangeError(`unknown auto-workflow stage ${name}`);
  return found;
}
