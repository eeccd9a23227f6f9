/**
 * THE protected-path table: what an LLM reply may never write, and what the context builder may
 * not read. The guard, the prompt text and the sandbox plan are all generated from it. Names are
 * compared as case-insensitive file systems fold them (`case_fold.ts`): `BUILD.SH` is `build.sh`.
 *
 * @module
 */

import { foldCase } from "./case_fold.ts";
import { normalizeProjectPath } from "./path_syntax.ts";

/**
 * Where a name is protected: a root file, a file or folder at any depth, or a root folder with
 * everything inside. A path passing *through* a protected name (`build.sh/x`) is protected too.
 */
export type ProtectedScope = "root-file" | "any-depth-name" | "root-folder";

/**
 * What a contained build sees of a protected path: `hidden` (an empty read-only folder in its
 * place: keys, logs), `read-only`, or `writable` (cargo updates `Cargo.lock`, writes `target/`).
 */
export type BuildAccess = "hidden" | "read-only" | "writable";

/** One entry of the table; `readable`: whether the context builder may read it (never write). */
export interface ProtectedPath {
  readonly name: string;
  readonly scope: ProtectedScope;
  /** A short description for people and for the LLM prompt. */
  readonly description: string;
  readonly readable: boolean;
  readonly build: BuildAccess;
}

/** The root folder of code-commit's own files: keys, query, journal, lock, settings. */
export const AGENT_CONFIG_DIR = "agent-config";

/** Every protected path, in the order the prompt lists them. */
export const PROTECTED_PATHS: readonly ProtectedPath[] = Object.freeze([
  {
    name: "Cargo.lock",
    scope: "root-file",
    description: "Cargo's lock file, which cargo itself maintains",
    readable: true,
    build: "writable",
  },
  {
    name: "build.sh",
    scope: "root-file",
    description: "the project's build script",
    readable: true,
    build: "read-only",
  },
  {
    name: "codeRollup.sh",
    scope: "root-file",
    description: "the script that rolls the codebase up into agent-config/codeRollup.txt",
    readable: true,
    build: "read-only",
  },
  {
    name: "LLMInstructions.md",
    scope: "root-file",
    description: "the user's standing instructions to the LLM",
    readable: true,
    build: "read-only",
  },
  {
    name: ".codecommitignore",
    scope: "root-file",
    description: "the user's list of files code-commit leaves out of every prompt",
    readable: true,
    build: "read-only",
  },
  {
    name: ".gitignore",
    scope: "any-depth-name",
    description: "git's ignore rules; a .gitignore written by the LLM, nested ones included, " +
      "could hide its own changes from `git status` or re-include an ignored file",
    readable: true,
    build: "read-only",
  },
  {
    name: ".gitattributes",
    scope: "any-depth-name",
    description: "git's attributes; a .gitattributes written by the LLM, nested ones " +
      "included, could name a filter or diff program for git to run, or change how git " +
      "reads files",
    readable: true,
    build: "read-only",
  },
  {
    name: "UserSpecification.md",
    scope: "any-depth-name",
    description: "the user's specification of a module, which only the user edits",
    readable: true,
    build: "read-only",
  },
  {
    name: ".git",
    scope: "any-depth-name",
    description: "git's repository data (a file or a folder), with everything inside it",
    readable: false,
    build: "read-only",
  },
  {
    name: AGENT_CONFIG_DIR,
    scope: "root-folder",
    description: "code-commit's configuration and API keys",
    readable: false,
    build: "hidden",
  },
  {
    name: "agent-state",
    scope: "root-folder",
    description: "code-commit's saved state, such as the cached specifications",
    readable: false,
    build: "read-only",
  },
  {
    name: "app-data",
    scope: "root-folder",
    description: "the application's own data, kept out of the LLM's reach",
    readable: false,
    build: "writable",
  },
  {
    name: "logs",
    scope: "root-folder",
    description: "code-commit's run logs",
    readable: false,
    // Hidden: the logs hold every run's prompts and replies; the build's log is written outside.
    build: "hidden",
  },
  {
    name: "target",
    scope: "root-folder",
    description: "Cargo's build output",
    readable: true,
    build: "writable",
  },
].map((entry) => Object.freeze(entry as ProtectedPath)));

const ROOT_RULES = new Map<string, ProtectedPath>();
const ANY_DEPTH_RULES = new Map<string, ProtectedPath>();
for (const entry of PROTECTED_PATHS) {
  (entry.scope === "any-depth-name" ? ANY_DEPTH_RULES : ROOT_RULES).set(
    foldCase(entry.name),
    entry,
  );
}

/**
 * Every entry that covers `path` (syntax-checked; one leading `./` allowed), outermost first:
 * its first segment folds onto a root entry, or any segment onto an any-depth entry. Never throws.
 */
export function protectedRulesFor(path: string): ProtectedPath[] {
  return normalizeProjectPath(path).split("/")
    .flatMap((segment, index) => protectedRuleOfSegment(segment, index === 0) ?? []);
}

/** The entry covering a path through `segment` (its first when `first`), or undefined. Never throws. */
export function protectedRuleOfSegment(segment: string, first: boolean): ProtectedPath | undefined {
  const folded = foldCase(segment);
  return (first ? ROOT_RULES.get(folded) : undefined) ?? ANY_DEPTH_RULES.get(folded);
}

/** Where each scope protects its name, as {@link describeProtectedPath} says it. */
const WHERE: Readonly<Record<ProtectedScope, string>> = {
  "root-file": "in the project root",
  "any-depth-name": "in any folder",
  "root-folder": "in the project root, and everything inside it",
};

/** One entry in one line: "`build.sh` in the project root — the project's build script". */
export function describeProtectedPath(entry: ProtectedPath): string {
  const name = entry.scope === "root-folder" ? `${entry.name}/` : entry.name;
  return `\`${name}\` ${WHERE[entry.scope]} — ${entry.description}`;
}

/** One line per table entry, for the prompt (callers say once that case is not compared). */
export function describeProtectedPaths(): string[] {
  return PROTECTED_PATHS.map(describeProtectedPath);
}
