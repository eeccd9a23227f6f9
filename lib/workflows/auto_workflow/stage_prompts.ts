/**
 * The auto workflow's prompts: the texts in `stage_prompts/` (code-commit's own words,
 * `{{PLACEHOLDER}}`s filled per module) laid out in `[label]` sections.
 * @module
 */
import { joinPrompt, section } from "../../prompts/layout.ts";
import { compareCodePoints } from "../../project_files/order.ts";
import { type Module, ROOT_MODULE } from "./graph.ts";
import type { Stage, StageName } from "./stages.ts";
import benchmarked from "./stage_prompts/benchmarked.txt" with { type: "text" };
import complete from "./stage_prompts/complete.txt" with { type: "text" };
import dependencyVerified from "./stage_prompts/dependency-verified.txt" with { type: "text" };
import documented from "./stage_prompts/documented.txt" with { type: "text" };
import edgeTested from "./stage_prompts/edge-tested.txt" with { type: "text" };
import fuzzed from "./stage_prompts/fuzzed.txt" with { type: "text" };
import happyPathTested from "./stage_prompts/happy-path-tested.txt" with { type: "text" };
import implementedNoCache from "./stage_prompts/implemented-no-cache.txt" with { type: "text" };
import implementedWithCache from "./stage_prompts/implemented-with-cache.txt" with { type: "text" };
import integrationTested from "./stage_prompts/integration-tested.txt" with { type: "text" };
import logged from "./stage_prompts/logged.txt" with { type: "text" };
import moduleIntro from "./stage_prompts/module-intro.txt" with { type: "text" };
import polished from "./stage_prompts/polished.txt" with { type: "text" };
import replyFormatChange from "./stage_prompts/reply-format-change.txt" with { type: "text" };
import replyFormatReview from "./stage_prompts/reply-format-review.txt" with { type: "text" };
import secure from "./stage_prompts/secure.txt" with { type: "text" };
import selfConsistent from "./stage_prompts/self-consistent.txt" with { type: "text" };
import simple from "./stage_prompts/simple.txt" with { type: "text" };

type StagePrompt = { readonly label: string; readonly text: string };

function named(stage: StageName, text: string) {
  return { uncached: { label: `${stage} prompt`, text } };
}

/** The prompts of every stage; `cached` once it passed with another specification. */
const STAGE_PROMPTS: Readonly<Record<StageName, { uncached: StagePrompt; cached?: StagePrompt }>> =
  {
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

/** Fills every `{{PLACEHOLDER}}`; @throws {RangeError} on one not in `values` (a prompt's bug). */
function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{([A-Z_]+)\}\}/g, (whole, name: string) => {
    if (!Object.hasOwn(values, name)) {
      throw new RangeError(`auto-workflow prompt: unknown placeholder ${whole}`);
    }
    return values[name];
  });
}

/** Everything a task's prompt is made of. */
export interface PromptInputs {
  readonly module: Module;
  readonly modules: readonly Module[];
  readonly stage: Stage;
  /** The module's current specification. */
  readonly spec: string;
  /** The top-level `UserSpecification.md`. */
  readonly topSpec: string;
  /** The specification the stage last passed with, when it passed before. */
  readonly cached: string | undefined;
}

function placeholderValues(module: Module, modules: readonly Module[]): Record<string, string> {
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

function showsCached(inputs: PromptInputs): boolean {
  return inputs.stage.showsCachedSpec && inputs.cached !== undefined;
}

/** The format and stage prompt sections; @throws {RangeError} for a stage not of `kind` (a bug). */
function openingSections(inputs: PromptInputs, kind: "review" | "change"): string[] {
  const prompts = STAGE_PROMPTS[inputs.stage.name];
  if (inputs.stage.kind !== kind) {
    throw new RangeError(
      `${inputs.stage.name} is not a ${kind === "review" ? "review" : "code-changing"} stage`,
    );
  }
  const chosen = showsCached(inputs) && prompts.cached !== undefined
    ? prompts.cached
    : prompts.uncached;
  const values = placeholderValues(inputs.module, inputs.modules);
  return [
    section(
      "response format instructions",
      kind === "review" ? replyFormatReview : replyFormatChange,
    ),
    section(
      chosen.label,
      `${fillTemplate(moduleIntro, values)}\n${fillTemplate(chosen.text, values)}`,
    ),
  ];
}

/** The prompt of a review stage. @throws {RangeError} when the stage changes code (a bug). */
export function reviewPrompt(inputs: PromptInputs): string {
  return joinPrompt([
    ...openingSections(inputs, "review"),
    section("top level UserSpecification.md", inputs.topSpec),
    ...(inputs.module.path === ROOT_MODULE
      ? []
      : [section("target user specification", inputs.spec)]),
  ]);
}

/**
 * The query committing code gets for a code-changing stage (it adds the codebase).
 * @throws {RangeError} when the stage only reviews (a bug).
 */
export function changeQuery(inputs: PromptInputs): string {
  return joinPrompt([
    ...openingSections(inputs, "change"),
    ...(showsCached(inputs) ? [section("cached target user specification", inputs.cached!)] : []),
    section("target user specification", inputs.spec),
  ]);
}
