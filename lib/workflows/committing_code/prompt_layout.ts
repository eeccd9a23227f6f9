/**
 * The prompt layouts of committing code:
 * initial = [project structure][code modification instructions]
 * [initial query][query][codebase]; repair = the same three system prompts
 * with the repair prompt, then [build.sh output][query][codebase]
 * [file replacements]. Data sections carry a `[label]` line.
 *
 * @module
 */
import { joinPrompt, section } from "../../prompts/layout.ts";
import { codeModificationInstructions, SYSTEM_PROMPTS } from "../../prompts/system_prompts.ts";

/**
 * The initial prompt. Without `codebase` (the context builder's input) the
 * codebase section is left out. Never throws.
 */
export function initialPrompt(query: string, codebase?: string): string {
  return joinPrompt([
    SYSTEM_PROMPTS.projectStructure,
    codeModificationInstructions(),
    SYSTEM_PROMPTS.initialQuery,
    section("query", query),
    ...(codebase === undefined ? [] : [section("codebase", codebase)]),
  ]);
}

/**
 * A repair prompt. `buildOutput` is the build as the prompt shows it, or why the last reply was not applied.
 *
 * Never throws.
 */
export function repairPrompt(
  buildOutput: string,
  query: string,
  codebase: string,
  replacements: string,
): string {
  return joinPrompt([
    SYSTEM_PROMPTS.projectStructure,
    codeModificationInstructions(),
    SYSTEM_PROMPTS.repairQuery,
    section("build.sh output", buildOutput),
    section("query", query),
    section("codebase", codebase),
    section("file replacements", replacements),
  ]);
}
