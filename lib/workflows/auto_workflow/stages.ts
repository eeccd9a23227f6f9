/**
 * The auto workflow's four phases and fourteen stages, in the order tasks run; the stage names are
 * written once, in the table.
 * @module
 */

/** A stage's codebase: `module`, the module's files; `full` adds the specifications and APIs. */
export type CodebaseKind = "full" | "module";

function stage<const Name extends string>(
  name: Name,
  kind: "review" | "change" = "change",
  codebase: CodebaseKind = "full",
  showsCachedSpec = false,
) {
  return { name, kind, codebase, showsCachedSpec } as const;
}

/** Phase n is row n; each row's stages in the order they run. */
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

/** One stage of a phase; its name is also its cache file's. */
export interface Stage {
  readonly name: StageName;
  readonly phase: number;
  /** `review`: one LLM call that may change no file; `change`: the committing-code loop. */
  readonly kind: "review" | "change";
  readonly codebase: CodebaseKind;
  /** Whether its prompt shows the specification it last passed with, when there is one. */
  readonly showsCachedSpec: boolean;
}

/** The four phases, in order (numbered 1 to 4), each stage knowing its phase. */
export const PHASES: readonly { readonly number: number; readonly stages: readonly Stage[] }[] =
  TABLE.map((stages, index) => ({
    number: index + 1,
    stages: stages.map((entry): Stage => ({ ...entry, phase: index + 1 })),
  }));

/** Every stage of every phase, in the order tasks run. */
export const STAGES: readonly Stage[] = PHASES.flatMap((phase) => phase.stages);
