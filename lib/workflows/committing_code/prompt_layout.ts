/**
 * The prompt layouts of committing code: initial and repair, data sections under a `[label]` line.
 * @module
 */
import { joinPrompt, section } from "../../prompts/layout.ts";
import { codeModificationInstructions, SYSTEM_PROMPTS } from "../../prompts/system_prompts.ts";
import { compareCodePoints } from "../../project_files/order.ts";
import type { FileOperation } from "../../reply/operations.ts";

/** The initial prompt; without `codebase` (the context builder's input), no codebase section. */
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
 * A repair prompt; `buildOutput` is the build's output, or why the last reply was not applied;
 * `applied`: the latest applied change of each path, listed in code-point order. Never throws.
 */
export function repairPrompt(
  buildOutput: string,
  query: string,
  codebase: string,
  applied: ReadonlyMap<string, FileOperation>,
): string {
  const replacements = applied.size === 0
    ? "(none: no reply has been applied yet)\n"
    : [...applied.keys()].sort(compareCodePoints).map((path) => {
      const operation = applied.get(path)!;
      return operation.kind === "delete"
        ? `--- FILE REMOVED ${path} ---\n`
        : `--- FILE REPLACEMENT ${path} ---\n${operation.content}`;
    }).join("");
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
