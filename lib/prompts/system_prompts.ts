/**
 * The system prompts, one text file each in `system/`.
 * @module
 */
import { describeProtectedPaths } from "../guard/protected_paths.ts";
import codeModificationTemplate from "./system/code-modification-instructions.txt" with {
  type: "text",
};
import consistencyReport from "./system/consistency-report.txt" with { type: "text" };
import contextQuery from "./system/context-query.txt" with { type: "text" };
import initialQuery from "./system/initial-query.txt" with { type: "text" };
import projectStructure from "./system/project-structure.txt" with { type: "text" };
import repairQuery from "./system/repair-query.txt" with { type: "text" };

/** The code-modification instructions, with the guard's protected paths filled in. Never throws. */
export function codeModificationInstructions(): string {
  const list = describeProtectedPaths().map((line) => `- ${line}`).join("\n");
  return codeModificationTemplate.replace("{{PROTECTED_PATHS}}", list);
}

/**
 * The system prompts by name: the initial query, repair query and consistency report prompts are
 * the user's words, verbatim; the project layout and context builder's prompts code-commit's.
 */
export const SYSTEM_PROMPTS = {
  projectStructure,
  initialQuery,
  repairQuery,
  consistencyReport,
  contextQuery,
} as const;
