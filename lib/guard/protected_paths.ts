/**
 * THE protected-path table: the paths an LLM reply may never
 * write, and the ones the context builder may not even read. The path guard
 * and the prompt text that tells the LLM about them are both generated from
 * this one table, so they cannot drift apart.
 *
 * Names are compared case-insensitively, the way case-insensitive file systems
 * fold them (see `case_fold.ts`): on macOS or Windows `BUILD.SH`,
 * `codeRollup.ſh` and `Cargo.loc\u212A` are the files `build.sh`,
 * `codeRollup.sh` and `Cargo.lock`.
 *
 * @module
 */

import { foldCase } from "./case_fold.ts";
import { normalizeProjectPath } from "./path_syntax.ts";

/**
 * Where a protected name applies:
 * - `root-file`: a file of that name in the project root;
 * - `any-depth-name`: a file or folder of that name in any folder;
 * - `root-folder`: a folder of that name in the project root, with everything inside it.
 *
 * Whatever the scope, a path that passes *through* a protected name as a
 * folder (`build.sh/x`, `src/.git/config`) is protected as well.
 */
export type ProtectedScope = "root-file" | "any-depth-name" | "root-folder";

/**
 * What a contained build (`lib/sandbox/`) sees of a protected path:
 * - `hidden`: an empty, read-only folder in its place: nothing of it can be read
 *   (`agent-config/` with the keys, `logs/` with every run's prompts and replies);
 * - `read-only`: there, but not writable;
 * - `writable`: like the rest of the project (cargo updates `Cargo.lock`,
 *   builds write `target/`).
 */
export type BuildAccess = "hidden" | "read-only" | "writable";

/** One entry of the protected-path table. */
export interface ProtectedPath {
  /** The name as the project spells it, e.g. `build.sh`. */
  readonly name: string;
  /** Where the name is protected. */
  readonly scope: ProtectedScope;
  /** A short description for people and for the LLM prompt. */
  readonly description: string;
  /** Whether the context builder may read it (on an LLM's request); writing is never allowed. */
  readonly readable: boolean;
  /** What a contained `./build.sh` may do with it. */
  readonly build: BuildAccess;
}

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
    name: "agent-config",
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
    // Hidden: the logs hold the replies and prompts of every run; code-commit
    // writes the build's own log from outside the sandbox.
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
 * Returns every protected-path entry that covers `path`, outermost first
 * (`target/.git/config` is covered by `target` and by `.git`). `path` is
 * relative to the project root, `/`-separated and already syntax-checked
 * (`checkPathSyntax`); one leading `./` is allowed. A path is covered when its
 * first segment folds onto a root entry's name, or any segment folds onto an
 * any-depth entry's name: the named file or folder itself and anything
 * beneath it. Never throws.
 */
export function protectedRulesFor(path: string): ProtectedPath[] {
  const segments = normalizeProjectPath(path).split("/");
  const rules: ProtectedPath[] = [];
  for (let index = 0; index < segments.length; index++) {
    const rule = protectedRuleOfSegment(segments[index], index === 0);
    if (rule !== undefined) rules.push(rule);
  }
  return rules;
}

/**
 * The entry that covers a path through its segment `segment` (one name),
 * the first segment of the path when `first` (where the root entries
 * apply), or undefined: what {@link protectedRulesFor} finds segment by
 * segment, for a caller that knows the rules of a path's folder already
 * (the guard, which checks thousands of files in a few folders). Never throws.
 */
export function protectedRuleOfSegment(segment: string, first: boolean): ProtectedPath | undefined {
  const folded = foldCase(segment);
  return (first ? ROOT_RULES.get(folded) : undefined) ?? ANY_DEPTH_RULES.get(folded);
}

/**
 * Describes one entry in one line, e.g. "`build.sh` in the project root — the
 * project's build script". Never throws.
 */
export function describeProtectedPath(entry: ProtectedPath): string {
  switch (entry.scope) {
    case "root-file":
      return `\`${entry.name}\` in the project root — ${entry.description}`;
    case "any-depth-name":
      return `\`${entry.name}\` in any folder — ${entry.description}`;
    case "root-folder":
      return `\`${entry.name}/\` in the project root, and everything inside it — ${entry.description}`;
  }
}

/**
 * One line per table entry, in table order, for the prompt generator (see
 * `describeProtectedPath`). The lines do not mention case: callers say once that
 * names are compared without regard to case. Never throws.
 */
export function describeProtectedPaths(): string[] {
  return PROTECTED_PATHS.map(describeProtectedPath);
}
