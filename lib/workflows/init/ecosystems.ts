/**
 * What `--init` knows of each kind of project besides its build: its marker
 * files, the dependency and build folders git must not track (only the
 * unambiguous ones), and the lock files it leaves out of every prompt. Pure: no I/O.
 *
 * @module
 */

/** A folder `--init` adds to `.gitignore`: its line, a path it ignores, and what it holds. */
export interface IgnoredFolder {
  readonly line: string;
  readonly folder: string;
  readonly what: string;
}

/** A kind of project, as far as ignore files go: any one of `markers` in the root marks it. */
export interface Ecosystem {
  readonly name: string;
  readonly markers: readonly string[];
  readonly folders: readonly IgnoredFolder[];
  readonly lockFiles: readonly string[];
}

/** The kinds `--init` recognises. */
export const ECOSYSTEMS: readonly Ecosystem[] = Object.freeze([
  {
    name: "Node.js",
    markers: ["package.json"],
    folders: [{ line: "node_modules/", folder: "node_modules", what: "installed npm packages" }],
    lockFiles: [
      "package-lock.json",
      "npm-shrinkwrap.json",
      "yarn.lock",
      "pnpm-lock.yaml",
      "bun.lock",
    ],
  },
  { name: "Deno", markers: ["deno.json", "deno.jsonc"], folders: [], lockFiles: ["deno.lock"] },
  {
    name: "Rust",
    markers: ["Cargo.toml"],
    folders: [{ line: "/target/", folder: "target", what: "cargo's build output" }],
    lockFiles: ["Cargo.lock"],
  },
  { name: "Go", markers: ["go.mod"], folders: [], lockFiles: ["go.sum"] },
  {
    name: "Python",
    markers: ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile"],
    folders: [
      { line: "__pycache__/", folder: "__pycache__", what: "compiled Python files" },
      { line: ".venv/", folder: ".venv", what: "a virtual environment" },
    ],
    lockFiles: ["poetry.lock", "uv.lock", "Pipfile.lock", "pdm.lock"],
  },
  {
    name: "PHP",
    markers: ["composer.json"],
    folders: [{ line: "/vendor/", folder: "vendor", what: "installed Composer packages" }],
    lockFiles: ["composer.lock"],
  },
  { name: "Ruby", markers: ["Gemfile"], folders: [], lockFiles: ["Gemfile.lock"] },
]);

/** The `.codecommitignore` `--init` writes: what it does, then each kind's lock files. */
export function codecommitIgnoreText(found: readonly Ecosystem[]): string {
  const lines = [
    "# .codecommitignore: what matches here (gitignore syntax) stays out of every prompt",
    "# code-commit sends (the rollup, --build-context, --auto-workflow), though git tracks it.",
  ];
  for (const ecosystem of found) {
    if (ecosystem.lockFiles.length === 0) continue;
    lines.push("", `# ${ecosystem.name} lock files`, ...ecosystem.lockFiles);
  }
  return `${lines.join("\n")}\n`;
}
