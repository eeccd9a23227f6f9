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
