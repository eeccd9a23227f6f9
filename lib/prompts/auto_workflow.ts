/**
 * The auto workflow's prompts (seed 003), one text file each in
 * `auto_workflow/`, all in code-commit's own words: two response-format
 * instructions (a review stage that changes no file, and a code-changing
 * stage), a module introduction that opens every stage prompt, and one
 * prompt per stage (two for `implemented`: without and with a cached
 * specification). Templates hold `{{PLACEHOLDER}}`s filled per module.
 *
 * @module
 */
import type { StageName } from "../auto_workflow/stages.ts";
import benchmarked from "./auto_workflow/benchmarked.txt" with { type: "text" };
import complete from "./auto_workflow/complete.txt" with { type: "text" };
import dependencyVerified from "./auto_workflow/dependency-verified.txt" with { type: "text" };
import documented from "./auto_workflow/documented.txt" with { type: "text" };
import edgeTested from "./auto_workflow/edge-tested.txt" with { type: "text" };
import fuzzed from "./auto_workflow/fuzzed.txt" with { type: "text" };
import happyPathTested from "./auto_workflow/happy-path-tested.txt" with { type: "text" };
import implementedNoCache from "./auto_workflow/implemented-no-cache.txt" with { type: "text" };
import implementedWithCache from "./auto_workflow/implemented-with-cache.txt" with {
  type: "text",
};
import integrationTested from "./auto_workflow/integration-tested.txt" with { type: "text" };
import logged from "./auto_workflow/logged.txt" with { type: "text" };
import moduleIntro from "./auto_workflow/module-intro.txt" with { type: "text" };
import polished from "./auto_workflow/polished.txt" with { type: "text" };
import responseFormatChange from "./auto_workflow/response-format-change.txt" with {
  type: "text",
};
import responseFormatReview from "./auto_workflow/response-format-review.txt" with {
  type: "text",
};
import secure from "./auto_workflow/secure.txt" with { type: "text" };
import selfConsistent from "./auto_workflow/self-consistent.txt" with { type: "text" };
import simple from "./auto_workflow/simple.txt" with { type: "text" };

/** The placeholders a template may hold, each filled per module. */
export const PLACEHOLDERS = [
  "MODULE",
  "SPEC_PATH",
  "MODULE_FILES",
  "DEPENDENCIES_FILE",
  "API_FILE",
  "MODULE_PATHS",
] as const;

/** One placeholder name. */
export type Placeholder = typeof PLACEHOLDERS[number];

/** A stage's prompt: its `[label]` and its template. */
export interface StagePromptText {
  /** The section label, as in seed 003 (`self consistent prompt`, `documented prompt`). */
  readonly label: string;
  /** The template. */
  readonly text: string;
}

/** A stage's prompts: the one used without a cached specification, and the one with (when it differs). */
export interface StagePrompts {
  /** Used when the stage has never passed, or always when there is no `cached`. */
  readonly uncached: StagePromptText;
  /** Used when the stage passed before with another specification. */
  readonly cached?: StagePromptText;
}

function named(stage: StageName, text: string): StagePrompts {
  return { uncached: { label: `${stage} prompt`, text } };
}

/** The prompts of every stage that has them. */
export const STAGE_PROMPTS: Readonly<Partial<Record<StageName, StagePrompts>>> = {
  "self-consistent": { uncached: { label: "self consistent prompt", text: selfConsistent } },
  "implemented": {
    uncached: { label: "implementation-no-cache prompt", text: implementedNoCache },
    cached: { label: "implementation-with-cache prompt", text: implementedWithCache },
  },
  "documented": named("documented", documented),
  "happy-path-tested": named("happy-path-tested", happyPathTested),
  "dependency-verified": named("dependency-verified", dependencyVerified),
  "secure": named("secure", secure),
  "complete": named("complete", complete),
  "edge-tested": named("edge-tested", edgeTested),
  "simple": named("simple", simple),
  "logged": named("logged", logged),
  "integration-tested": named("integration-tested", integrationTested),
  "benchmarked": named("benchmarked", benchmarked),
  "fuzzed": named("fuzzed", fuzzed),
  "polished": named("polished", polished),
};

/** The other templates. */
export const AUTO_WORKFLOW_TEXTS = {
  /** Response-format instructions of a stage that only reviews (changes no file). */
  responseFormatReview,
  /** Response-format instructions of a stage that changes code through committing code. */
  responseFormatChange,
  /** Opens every stage prompt: which module the task is about. */
  moduleIntro,
} as const;

const PLACEHOLDER = /\{\{([A-Z_]+)\}\}/g;

/**
 * Fills every `{{PLACEHOLDER}}` of `template` with its value.
 *
 * @throws {RangeError} when the template holds a placeholder that is not in
 * {@link PLACEHOLDERS} (a programming error in a prompt file).
 */
export function fillTemplate(
  template: string,
  values: Readonly<Record<Placeholder, string>>,
): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    if (!(PLACEHOLDERS as readonly string[]).includes(name)) {
      throw new RangeError(`auto-workflow prompt: unknown placeholder ${whole}`);
    }
    return values[name as Placeholder];
  });
}
