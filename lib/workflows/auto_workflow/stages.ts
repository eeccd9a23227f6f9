/**
 * The phases and stages of the auto workflow: four phases, fourteen
 * stages, each with what it asks of the model and which codebase it gets.
 * The order here is the order tasks run in. The stage names are written
 * once, in the table; the type of a stage name is derived from it.
 *
 * @module
 */

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

/** A stage as the table below writes it: its name and how it works. */
function stage<const Name extends string>(
  name: Name,
  kind: StageKind = "change",
  codebase: CodebaseKind = "full",
  showsCachedSpec = false,
) {
  return { name, kind, codebase, showsCachedSpec } as const;
}

/**
 * THE stage table: the four phases in order (phase n is the n-th
 * row), each with its stages in the order they run. Every stage name, and
 * the {@link StageName} type, comes from here.
 */
const TABLE = [
  [
    stage("self-consistent", "review"),
    stage("implemented", "change", "full", true),
    stage("documented", "change", "module"),
    stage("happy-path-tested", "change", "full", true),
  ],
  [stage("dependency-verified"), stage("secure"), stage("complete"), stage("edge-tested")],
  [stage("simple"), stage("logged"), stage("integration-tested")],
  [stage("benchmarked"), stage("fuzzed"), stage("polished")],
] as const;

/** One stage name: exactly the names of the table. */
export type StageName = typeof TABLE[number][number]["name"];

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
   * (the `[cached target user specification]` section), when there is one.
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

/** The four phases, in order, each stage knowing its phase. */
export const PHASES: readonly Phase[] = Object.freeze(
  TABLE.map((stages, index) =>
    Object.freeze({
      number: index + 1,
      stages: Object.freeze(
        stages.map((entry): Stage => Object.freeze({ ...entry, phase: index + 1 })),
      ),
    })
  ),
);

/** Every stage of every phase, in the order tasks run. */
export const STAGES: readonly Stage[] = Object.freeze(PHASES.flatMap((phase) => phase.stages));
