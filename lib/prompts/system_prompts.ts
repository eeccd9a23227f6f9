/**
 * The system prompts, one text file each in `system/`. The initial-query,
 * repair-query and consistency-report prompts are the user's own words,
 * kept verbatim; the others are code-commit's. The
 * code-modification instructions list the protected paths from the path
 * guard's own table, so the model is told exactly what the guard enforces.
 *
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

/** Where the protected-path list goes in the code-modification instructions. */
const PROTECTED_PATHS_PLACEHOLDER = "{{PROTECTED_PATHS}}";

/** The code-modification instructions, with the guard's protected paths filled in. Never throws. */
export function codeModificationInstructions(): string {
  const list = describeProtectedPaths().map((line) => `- ${line}`).join("\n");
  return codeModificationTemplate.replace(PROTECTED_PATHS_PLACEHOLDER, list);
}

/** The system prompts by name. */
export const SYSTEM_PROMPTS = {
  /** How a code-commit project is laid out (code-commit's words). */
  projectStructure,
  /** The initial query system prompt (the user's words, verbatim). */
  initialQuery,
  /** The repair query system prompt (the user's words, verbatim). */
  repairQuery,
  /** The consistency report system prompt (the user's words, verbatim). */
  consistencyReport,
  /** The context builder's preprocessing prompt (code-commit's words). */
  contextQuery,
} as const;
