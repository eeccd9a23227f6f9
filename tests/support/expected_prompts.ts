/**
 * The prompts the tool must send, stated independently of the code that
 * builds them: the system prompt texts as the files in `lib/prompts/system/`
 * hold them, the protected-path list written out, and each prompt layout
 * (committing code, consistency report, context builder) spelled with its
 * own labels and marker lines. Tests compare what the tool sends with these.
 *
 * @module
 */

/** The system prompt files, by name. */
export type SystemPromptFile =
  | "project-structure"
  | "code-modification-instructions"
  | "initial-query"
  | "repair-query"
  | "consistency-report"
  | "context-query";

/** The text of `lib/prompts/system/<name>.txt`, as the user reads it. */
export function systemPromptFile(name: SystemPromptFile): string {
  return Deno.readTextFileSync(new URL(`../../lib/prompts/system/${name}.txt`, import.meta.url));
}

/** The protected paths, as the code-modification instructions list them. */
export const PROTECTED_PATH_LINES: readonly string[] = [
  "- `Cargo.lock` in the project root — Cargo's lock file, which cargo itself maintains",
  "- `build.sh` in the project root — the project's build script",
  "- `codeRollup.sh` in the project root — the script that rolls the codebase up into " +
  "agent-config/codeRollup.txt",
  "- `LLMInstructions.md` in the project root — the user's standing instructions to the LLM",
  "- `.codecommitignore` in the project root — the user's list of files code-commit leaves out " +
  "of every prompt",
  "- `.gitignore` in any folder — git's ignore rules; a .gitignore written by the LLM, nested " +
  "ones included, could hide its own changes from `git status` or re-include an ignored file",
  "- `.gitattributes` in any folder — git's attributes; a .gitattributes written by the LLM, " +
  "nested ones included, could name a filter or diff program for git to run, or change how git " +
  "reads files",
  "- `UserSpecification.md` in any folder — the user's specification of a module, which only " +
  "the user edits",
  "- `.git` in any folder — git's repository data (a file or a folder), with everything inside it",
  "- `agent-config/` in the project root, and everything inside it — code-commit's " +
  "configuration and API keys",
  "- `agent-state/` in the project root, and everything inside it — code-commit's saved state, " +
  "such as the cached specifications",
  "- `app-data/` in the project root, and everything inside it — the application's own data, " +
  "kept out of the LLM's reach",
  "- `logs/` in the project root, and everything inside it — code-commit's run logs",
  "- `target/` in the project root, and everything inside it — Cargo's build output",
];

/** The code-modification instructions: their file, with the protected paths listed in place. */
export function codeModificationInstructions(): string {
  return systemPromptFile("code-modification-instructions")
    .replace("{{PROTECTED_PATHS}}", PROTECTED_PATH_LINES.join("\n"));
}

/** `[label]`, then the text. */
function section(label: string, text: string): string {
  return `[${label}]\n${text}`;
}

/** The parts, each ending with a newline, one blank line between two. */
function parts(...texts: string[]): string {
  return texts.map((text) => text.endsWith("\n") ? text : `${text}\n`).join("\n");
}

/** Committing code's initial prompt; without `codebase`, the context builder's input. */
export function initialPrompt(query: string, codebase?: string): string {
  return parts(
    systemPromptFile("project-structure"),
    codeModificationInstructions(),
    systemPromptFile("initial-query"),
    section("query", query),
    ...(codebase === undefined ? [] : [section("codebase", codebase)]),
  );
}

/** Committing code's repair prompt. */
export function repairPrompt(
  buildOutput: string,
  query: string,
  codebase: string,
  replacements: string,
): string {
  return parts(
    systemPromptFile("project-structure"),
    codeModificationInstructions(),
    systemPromptFile("repair-query"),
    section("build.sh output", buildOutput),
    section("query", query),
    section("codebase", codebase),
    section("file replacements", replacements),
  );
}

/** The consistency report's prompt; without `codebase`, the context builder's input. */
export function consistencyPrompt(query: string, codebase?: string): string {
  return parts(
    systemPromptFile("consistency-report"),
    section("query", query),
    ...(codebase === undefined ? [] : [section("codebase", codebase)]),
  );
}

/** The context builder's preprocessing prompt. */
export function contextQueryPrompt(nextAgentPrompt: string, summary: string): string {
  const line = (text: string) => text.endsWith("\n") ? text : `${text}\n`;
  return `${line(systemPromptFile("context-query"))}\n=== Next Agent Full Prompt ===\n` +
    `${line(nextAgentPrompt)}\n=== Codebase Summary ===\n${line(summary)}`;
}
