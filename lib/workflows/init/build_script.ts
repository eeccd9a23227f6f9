/**
 * The starter `build.sh` `--init` writes when a project has none: it runs the
 * project's own tests, or, when it cannot tell how, says what to put in it and fails.
 * @module
 */

import { z } from "zod";
import { BUILD_PLACEHOLDER_LINE } from "../../preconditions/preconditions.ts";

/**
 * The kinds of project, in the order their commands run: the root files that
 * mark each (npm also needs a test script), its name and its commands.
 */
export const PROJECT_KINDS = {
  npm: {
    markers: ["package.json"],
    name: "Node.js (package.json with a test script)",
    commands: ["npm test"],
  },
  deno: { markers: ["deno.json", "deno.jsonc"], name: "Deno (deno.json)", commands: ["deno test"] },
  cargo: {
    markers: ["Cargo.toml"],
    name: "Rust (Cargo.toml)",
    commands: ["cargo build", "cargo test"],
  },
  go: { markers: ["go.mod"], name: "Go (go.mod)", commands: ["go build ./...", "go test ./..."] },
  python: {
    markers: ["pyproject.toml"],
    name: "Python (pyproject.toml)",
    commands: ["python3 -m pytest"],
  },
} as const;

/** A kind's key in {@link PROJECT_KINDS}. */
export type ProjectKindName = keyof typeof PROJECT_KINDS;

const PackageJson = z.object({ scripts: z.record(z.unknown()).optional() }).passthrough();

/** Whether a `package.json` has a real test script (not `npm init`'s placeholder). Never throws. */
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
  return typeof test === "string" && test.trim() !== "" && !/no test specified/.test(test);
}

/**
 * Each of `kinds` in the table's order, with its commands. A Python project in
 * the src layout (`src/<package>/__init__.py`, `pythonSrcLayout`) is importable
 * only once installed, so its tests run with `src` on `PYTHONPATH`.
 */
function commandsOf(kinds: readonly ProjectKindName[], pythonSrcLayout: boolean) {
  return (Object.keys(PROJECT_KINDS) as ProjectKindName[]).filter((kind) => kinds.includes(kind))
    .map((kind) => {
      const commands: readonly string[] = PROJECT_KINDS[kind].commands;
      if (kind !== "python" || !pythonSrcLayout) return { kind, commands };
      const prefix = `PYTHONPATH="src\${PYTHONPATH:+:$PYTHONPATH}" `;
      return { kind, commands: commands.map((command) => prefix + command) };
    });
}

const HEADER = `#!/bin/sh
# The build code-commit runs after every change it applies: the change stands
# when this script exits 0; otherwise its output goes back to the model for a
# repair. Made by code-commit --init; edit it to fit your project.
set -e
cd "$(dirname "$0")"
`;

/**
 * The starter script for the kinds found; with none, one that explains what
 * to put in it and exits 1, so no change passes an empty build. Never throws.
 */
export function starterBuildScript(
  kinds: readonly ProjectKindName[],
  pythonSrcLayout = false,
): string {
  const found = commandsOf(kinds, pythonSrcLayout);
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
  const blocks = found.map(({ kind, commands }) =>
    `\n# ${PROJECT_KINDS[kind].name}\n${commands.join("\n")}\n`
  );
  return `${HEADER}${blocks.join("")}`;
}

/** What the starter script runs, for the user: `it runs cargo build, then cargo test`. Never throws. */
export function describeStarter(
  kinds: readonly ProjectKindName[],
  pythonSrcLayout = false,
): string {
  const commands = commandsOf(kinds, pythonSrcLayout).flatMap((found) => found.commands);
  if (commands.length === 0) {
    return "a placeholder that fails until you put your build and test commands in it";
  }
  return `it runs ${commands.join(", then ")}`;
}
