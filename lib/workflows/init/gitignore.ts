/**
 * What `--init` writes to ignore files: `/agent-config`, `/logs` (unless the rules already ignore
 * them, by meaning, not text) and the project kinds' build folders to `.gitignore`; their lock
 * files to `.codecommitignore`. Pure: no I/O.
 * @module
 */
import { parseIgnorePatterns } from "../../guard/ignore_patterns.ts";
import { folderCoverage } from "../../preconditions/ignored_folder.ts";

/** One rule `--init` makes sure of: the `line` added unless `folder` is wholly ignored. */
export interface InitRule {
  readonly line: string;
  readonly folder: string;
}

const INIT_COMMENT = "# code-commit: API keys, query and rollup; run logs";

/**
 * Plans the root `.gitignore` (`existing`, undefined for none; `folderRules`, each folder's own
 * `.gitignore`, which can re-include): the lines of `rules` whose folder is not wholly ignored yet
 * are appended, last so that they win over any earlier negation. Returns the new text (undefined
 * when nothing is missing) and the lines added. Never throws.
 */
export function planGitignore(
  existing: string | undefined,
  rules: readonly InitRule[],
  folderRules: Readonly<Record<string, string | undefined>> = {},
): { text: string | undefined; added: string[] } {
  // git skips a UTF-8 byte order mark at the start of an ignore file.
  const rootText = (existing ?? "").replace(/^\uFEFF/, "");
  const added = rules
    .filter((rule) => !folderCoverage(rule.folder, rootText, folderRules[rule.folder]).ignored)
    .map((rule) => rule.line);
  if (added.length === 0) return { text: undefined, added };
  return { text: appendLines(existing, INIT_COMMENT, added), added };
}

/**
 * `existing` (undefined for none) with `lines` appended after a blank line and `comment`; every
 * line there kept, CRLF files get CRLF lines. Never throws.
 */
export function appendLines(
  existing: string | undefined,
  comment: string,
  lines: readonly string[],
): string {
  const before = existing ?? "";
  if (lines.length === 0) return before;
  const newline = before.includes("\r\n") ? "\r\n" : "\n";
  const separator = before === "" || before.endsWith("\n") ? "" : newline;
  const gap = before === "" || /\n\r?\n$/.test(before) ? "" : newline;
  const text = [comment, ...lines].map((line) => `${line}${newline}`).join("");
  return `${before}${separator}${gap}${text}`;
}

/** What the root ignore file `text`'s last rule matching the root file `name` says, if any. */
export function rootFileVerdict(text: string, name: string): "ignored" | "shown" | undefined {
  const match = parseIgnorePatterns(text.replace(/^\uFEFF/, "")).lastMatch(name, false);
  return match === undefined ? undefined : match.negated ? "shown" : "ignored";
}

/** A folder `--init` adds to `.gitignore`: its line, a path it ignores, and what it holds. */
export interface IgnoredFolder extends InitRule {
  readonly what: string;
}

/** A kind of project, as far as ignore files go: any one of `markers` in the root marks it. */
export interface Ecosystem {
  readonly name: string;
  readonly markers: readonly string[];
  readonly folders: readonly IgnoredFolder[];
  readonly lockFiles: readonly string[];
}

/**
 * The kinds `--init` recognises. Only folders that are build output in every project of the kind
 * are listed (`node_modules/`, not `dist/`); lock files are left out of prompts, as a model needs
 * them no more than git needs `node_modules/`.
 */
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
