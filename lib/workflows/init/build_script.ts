/**
 * The starter `build.sh` that `code-commit --init` writes when a project has
 * none, fitted to what the project root holds. Committing code keeps a change
 * when `./build.sh` exits 0, so the starter runs the project's own tests;
 * where it cannot tell how, it says what to put in it and fails.
 *
 * @module
 */

import { z } from "zod";
import { BUILD_PLACEHOLDER_LINE } from "../../preconditions/preconditions.ts";

/** A kind of project `--init` recognises, and what its build runs. */
export interface ProjectKind {
  /** For people: `Node.js (package.json with a test script)`. */
  readonly name: string;
  /** The commands, one per line. */
  readonly commands: readonly string[];
}

/** The kinds, in the order their commands run: each is found by a file in the project root. */
export const PROJECT_KINDS = {
  npm: { name: "Node.js (package.json with a test script)", commands: ["npm test"] },
  deno: { name: "Deno (deno.json)", commands: ["deno test"] },
  cargo: { name: "Rust (Cargo.toml)", commands: ["cargo build", "cargo test"] },
  go: { name: "Go (go.mod)", commands: ["go build ./...", "go test ./..."] },
  python: { name: "Python (pyproject.toml)", commands: ["python3 -m pytest"] },
} as const satisfies Record<string, ProjectKind>;

/** A kind's key in {@link PROJECT_KINDS}. */
export type ProjectKindName = keyof typeof PROJECT_KINDS;

/** The file in the project root that marks each kind (npm also needs a test script). */
export const KIND_MARKERS: Readonly<Record<ProjectKindName, readonly string[]>> = {
  npm: ["package.json"],
  deno: ["deno.json", "deno.jsonc"],
  cargo: ["Cargo.toml"],
  go: ["go.mod"],
  python: ["pyproject.toml"],
};

/** The test script `npm init` writes, which only fails: not a test script. */
const NPM_PLACEHOLDER = /no test specified/;

const PackageJson = z.object({ scripts: z.record(z.unknown()).optional() }).passthrough();

/**
 * Whether the text of a `package.json` has a real test script: a non-empty
 * `scripts.test` that is not the placeholder `npm init` writes. A file that
 * is not JSON, or not an object, has none. Never throws.
 */
export function hasNpmTestScript(packageJson: string): boolean {
  let data: unknown;
  try {
    data = JSON.parse(packageJson);
  } catch {
    return false;
  }
  const parsed = PackageJson.safeParse(data);
  if (!parsed.success) return false;
  const test = parsed.data.scripts?.test;
  return typeof test === "string" && test.trim() !== "" && !NPM_PLACEHOLDER.test(test);
}

/** What the project's layout changes in the starter. */
export interface StarterLayout {
  /**
   * A Python project in the src layout (`src/<package>/__init__.py`): its
   * package is importable only once installed, so the tests run with `src`
   * on `PYTHONPATH`.
   */
  readonly pythonSrcLayout?: boolean;
}

/** The PYTHONPATH assignment of a src-layout project: `src`, before whatever the user set. */
const PYTHONPATH_SRC = 'PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}"';

/** The commands of `kind`, fitted to `layout`. */
function commandsOf(kind: ProjectKindName, layout: StarterLayout): readonly string[] {
  const commands = PROJECT_KINDS[kind].commands;
  if (kind !== "python" || layout.pythonSrcLayout !== true) return commands;
  return commands.map((command) => `${PYTHONPATH_SRC} ${command}`);
}

const HEADER = `#!/bin/sh
# The build code-commit runs after every change it applies: the change stands
# when this script exits 0; otherwise its output goes back to the model for a
# repair. Made by code-commit --init; edit it to fit your project.
set -e
cd "$(dirname "$0")"
`;

/**
 * The starter script for the kinds found (in {@link PROJECT_KINDS} order).
 * With none, the script explains what to put in it and exits 1, so that no
 * change passes an empty build. Never throws.
 */
export function starterBuildScript(
  kinds: readonly ProjectKindName[],
  layout: StarterLayout = {},
): string {
  const found = (Object.keys(PROJECT_KINDS) as ProjectKindName[]).filter((kind) =>
    kinds.includes(kind)
  );
  if (found.length === 0) {
    return `${HEADER}
# code-commit --init found no package.json with a test script, deno.json,
# Cargo.toml, go.mod or pyproject.toml, so it cannot tell how your project
# builds. Put your build and test commands here, for example:
#   make
#   make test
# and remove the two lines below.
${BUILD_PLACEHOLDER_LINE}
exit 1
`;
  }
  const blocks = found.map((kind) =>
    `\n# ${PROJECT_KINDS[kind].name}\n${commandsOf(kind, layout).join("\n")}\n`
  );
  return `${HEADER}${blocks.join("")}`;
}

/** What the starter script runs, for the user: `it runs cargo build, then cargo test`. Never throws. */
export function describeStarter(
  kinds: readonly ProjectKindName[],
  layout: StarterLayout = {},
): string {
  const commands = (Object.keys(PROJECT_KINDS) as ProjectKindName[])
    .filter((kind) => kinds.includes(kind))
    .flatMap((kind) => commandsOf(kind, layout));
  if (commands.length === 0) {
    return "a placeholder that fails until you put your build and test commands in it";
  }
  return `it runs ${commands.join(", then ")}`;
}
