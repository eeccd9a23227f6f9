/**
 * The prompt of each auto-workflow task, in the `[label]` layout of seed 003.
 *
 * A review stage (self-consistent) is one prompt:
 * `[response format instructions][self consistent prompt]
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
import { joinPrompt, section } from "../committing_code/prompt_layout.ts";
import {
  AUTO_WORKFLOW_TEXTS,
  fillTemplate,
  type Placeholder,
  STAGE_PROMPTS,
  type StagePromptText,
} from "../prompts/auto_workflow.ts";
import { compareCodePoints } from "../project_files/order.ts";
import type { Module } from "./graph.ts";
import { ROOT_MODULE } from "./module_paths.ts";
import type { Stage } from "./stages.ts";

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

/** Section labels of seed 003. */
export const LABELS = {
  responseFormat: "response format instructions",
  topSpec: "top level UserSpecification.md",
  targetSpec: "target user specification",
  cachedSpec: "cached target user specification",
} as const;

/** Whether `stage` has prompts, so that it can run. Never throws. */
export function hasPrompts(stage: Stage): boolean {
  return STAGE_PROMPTS[stage.name] !== undefined;
}

/** The placeholder values of a task on `module`. Never throws. */
export function placeholderValues(
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
export function stagePrompt(inputs: PromptInputs): StagePromptText {
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
    section(LABELS.responseFormat, AUTO_WORKFLOW_TEXTS.responseFormatReview),
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
    section(LABELS.responseFormat, AUTO_WORKFLOW_TEXTS.responseFormatChange),
    section(prompt.label, prompt.text),
    ...(showsCached(inputs) ? [section(LABELS.cachedSpec, inputs.cached!)] : []),
    section(LABELS.targetSpec, inputs.spec),
  ]);
}
