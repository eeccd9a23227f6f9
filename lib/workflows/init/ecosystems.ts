/**
 * What `--init` knows of each kind of project besides its build: the file
 * in the root that marks it, the dependency and build folders it makes that
 * git must not track (only the unambiguous ones: `node_modules/`, not
 * `dist/`), and its lock files, which a model needs no more than git
 * needs `node_modules/` and which `--init` leaves out of every prompt with
 * `.codecommitignore`. Pure: no I/O.
 *
 * @module
 */

/** A folder `--init` adds to `.gitignore` for a kind of project. */
export interface IgnoredFolder {
  /** The `.gitignore` line: `node_modules/`, `/target/`. */
  readonly line: string;
  /** A path it ignores, to test whether the rules already do: `node_modules`. */
  readonly folder: string;
  /** What it holds, for the user: `npm's dependencies`. */
  readonly what: string;
}

/** A kind of project, as far as ignore files go. */
export interface Ecosystem {
  /** For people: `Node.js`. */
  readonly name: string;
  /** Files in the project root, any one of which marks the kind. */
  readonly markers: readonly string[];
  /** Folders git must not track. */
  readonly folders: readonly IgnoredFolder[];
  /** Lock files, left out of every prompt. */
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

/**
 * The text of the `.codecommitignore` `--init` writes for the kinds found:
 * a comment saying what the file does, then the lock files of each kind.
 * Never throws.
 */
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
