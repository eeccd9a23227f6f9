/**
 * The auto workflow's prompts, text and assembly in one place.
 *
 * The texts are one file each in `stage_prompts/`, all in code-commit's own words:
 * two response-format instructions (a review stage that changes no file, and
 * a code-changing stage), a module introduction that opens every stage
 * prompt, and one prompt per stage (two for `implemented`: without and with a
 * cached specification). Templates hold `{{PLACEHOLDER}}`s filled per module.
 *
 * They are laid out in labelled sections. A review stage (self-consistent) is one
 * prompt: `[response format instructions][self consistent prompt]
 * [top level UserSpecification.md][target user specification]`, the last
 * section left out for the root module (it is the top-level one).
 *
 * A code-changing stage gives committing code its query:
 * `[response format instructions][<stage> prompt]
 * [cached target user specification][target user specification]`, the cached
 * section only for the stages that show it and only when the stage passed
 * before; committing code adds its system prompts and the `[codebase]`.
 *
 * Pure: no I/O.
 *
 * @module
 */
import { joinPrompt, section } from "../../prompts/layout.ts";
import { compareCodePoints } from "../../project_files/order.ts";
import type { Module } from "./graph.ts";
import { ROOT_MODULE } from "./module_paths.ts";
import { PHASES, type Stage, type StageName } from "./stages.ts";
import benchmarked from "./stage_prompts/benchmarked.txt" with { type: "text" };
import complete from "./stage_prompts/complete.txt" with { type: "text" };
import dependencyVerified from "./stage_prompts/dependency-verified.txt" with { type: "text" };
import documented from "./stage_prompts/documented.txt" with { type: "text" };
import edgeTested from "./stage_prompts/edge-tested.txt" with { type: "text" };
import fuzzed from "./stage_prompts/fuzzed.txt" with { type: "text" };
import happyPathTested from "./stage_prompts/happy-path-tested.txt" with { type: "text" };
import implementedNoCache from "./stage_prompts/implemented-no-cache.txt" with { type: "text" };
import implementedWithCache from "./stage_prompts/implemented-with-cache.txt" with {
  type: "text",
};
import integrationTested from "./stage_prompts/integration-tested.txt" with { type: "text" };
import logged from "./stage_prompts/logged.txt" with { type: "text" };
import moduleIntro from "./stage_prompts/module-intro.txt" with { type: "text" };
import polished from "./stage_prompts/polished.txt" with { type: "text" };
import replyFormatChange from "./stage_prompts/reply-format-change.txt" with {
  type: "text",
};
import replyFormatReview from "./stage_prompts/reply-format-review.txt" with {
  type: "text",
};
import secure from "./stage_prompts/secure.txt" with { type: "text" };
import selfConsistent from "./stage_prompts/self-consistent.txt" with { type: "text" };
import simple from "./stage_prompts/simple.txt" with { type: "text" };

/** The placeholders a template may hold, each filled per module. */
const PLACEHOLDERS = [
  "MODULE",
  "SPEC_PATH",
  "MODULE_FILES",
  "DEPENDENCIES_FILE",
  "API_FILE",
  "MODULE_PATHS",
] as const;

/** One placeholder name. */
type Placeholder = typeof PLACEHOLDERS[number];

/** A stage's prompt: its `[label]` and its template. */
interface StagePromptText {
  /** The section label (`self consistent prompt`, `documented prompt`). */
  readonly label: string;
  /** The template. */
  readonly text: string;
}

/** A stage's prompts: the one used without a cached specification, and the one with (when it differs). */
interface StagePrompts {
  /** Used when the stage has never passed, or always when there is no `cached`. */
  readonly uncached: StagePromptText;
  /** Used when the stage passed before with another specification. */
  readonly cached?: StagePromptText;
}

function named(stage: StageName, text: string): StagePrompts {
  return { uncached: { label: `${stage} prompt`, text } };
}

/** The prompts of every stage that has them. */
const STAGE_PROMPTS: Readonly<Partial<Record<StageName, StagePrompts>>> = {
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
const AUTO_WORKFLOW_TEXTS = {
  /** Response-format instructions of a stage that only reviews (changes no file). */
  replyFormatReview,
  /** Response-format instructions of a stage that changes code through committing code. */
  replyFormatChange,
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
function fillTemplate(
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

/** Everything a task's prompt is made of. */
export interface PromptInputs {
  /** The module the task is about. */
  readonly module: Module;
  /** Every module of the project. */
  readonly modules: readonly Module[];
  /** The stage. */
  readonly stage: Stage;
  /** The module's current specification. */
  readonly spec: string;
  /** The top-level `UserSpecification.md`. */
  readonly topSpec: string;
  /** The specification the stage last passed with, when it passed before. */
  readonly cached: string | undefined;
}

/** The section labels, each written `[label]` on a line of its own. */
const LABELS = {
  replyFormat: "response format instructions",
  topSpec: "top level UserSpecification.md",
  targetSpec: "target user specification",
  cachedSpec: "cached target user specification",
} as const;

/** Whether `stage` has prompts, so that it can run. Never throws. */
function hasPrompts(stage: Stage): boolean {
  return STAGE_PROMPTS[stage.name] !== undefined;
}

/**
 * The highest phase a run may reach: `maxPhase` (`--max-phase`), lowered to
 * the last phase whose stages all have prompts. Never throws.
 */
export function runnablePhase(maxPhase: number): number {
  let runnable = 0;
  for (const phase of PHASES) {
    if (phase.number > maxPhase || !phase.stages.every(hasPrompts)) break;
    runnable = phase.number;
  }
  return runnable;
}

/** The placeholder values of a task on `module`. Never throws. */
function placeholderValues(
  module: Module,
  modules: readonly Module[],
): Record<Placeholder, string> {
  const others = modules.map((m) => m.path).filter((path) => path !== ROOT_MODULE)
    .sort(compareCodePoints);
  const isRoot = module.path === ROOT_MODULE;
  return {
    MODULE: isRoot ? "the root module (the project as a whole)" : module.path,
    SPEC_PATH: module.specPath,
    MODULE_FILES: isRoot
      ? "the files of the project that are not inside another module's folder"
      : `the files under ${module.path}/, except those of any module nested inside it`,
    DEPENDENCIES_FILE: module.dependenciesFile,
    API_FILE: module.apiFile,
    MODULE_PATHS: others.length === 0
      ? "(none: the project has only the root module)"
      : others.map((path) => `- ${path}`).join("\n"),
  };
}

/** Whether the task's prompt shows the cached specification. */
function showsCached(inputs: PromptInputs): boolean {
  return inputs.stage.showsCachedSpec && inputs.cached !== undefined;
}

/**
 * The stage prompt of a task (its label and filled text, the module
 * introduction first).
 *
 * @throws {RangeError} when the stage has no prompt (check {@link hasPrompts}).
 */
function stagePrompt(inputs: PromptInputs): StagePromptText {
  const prompts = STAGE_PROMPTS[inputs.stage.name];
  if (prompts === undefined) throw new RangeError(`the stage ${inputs.stage.name} has no prompt`);
  const chosen = showsCached(inputs) && prompts.cached !== undefined
    ? prompts.cached
    : prompts.uncached;
  const values = placeholderValues(inputs.module, inputs.modules);
  const text = `${fillTemplate(AUTO_WORKFLOW_TEXTS.moduleIntro, values)}\n${
    fillTemplate(chosen.text, values)
  }`;
  return { label: chosen.label, text };
}

/**
 * The whole prompt of a review stage (self-consistent).
 *
 * @throws {RangeError} when the stage changes code or has no prompt (a programming error).
 */
export function reviewPrompt(inputs: PromptInputs): string {
  if (inputs.stage.kind !== "review") {
    throw new RangeError(`${inputs.stage.name} is not a review stage`);
  }
  const prompt = stagePrompt(inputs);
  return joinPrompt([
    section(LABELS.replyFormat, AUTO_WORKFLOW_TEXTS.replyFormatReview),
    section(prompt.label, prompt.text),
    section(LABELS.topSpec, inputs.topSpec),
    ...(inputs.module.path === ROOT_MODULE ? [] : [section(LABELS.targetSpec, inputs.spec)]),
  ]);
}

/**
 * The query committing code gets for a code-changing stage (without the
 * codebase, which committing code adds).
 *
 * @throws {RangeError} when the stage only reviews or has no prompt (a programming error).
 */
export function changeQuery(inputs: PromptInputs): string {
  if (inputs.stage.kind !== "change") {
    throw new RangeError(`${inputs.stage.name} is not a code-changing stage`);
  }
  const prompt = stagePrompt(inputs);
  return joinPrompt([
    section(LABELS.replyFormat, AUTO_WORKFLOW_TEXTS.replyFormatChange),
    section(prompt.label, prompt.text),
    ...(showsCached(inputs) ? [section(LABELS.cachedSpec, inputs.cached!)] : []),
    section(LABELS.targetSpec, inputs.spec),
  ]);
}
