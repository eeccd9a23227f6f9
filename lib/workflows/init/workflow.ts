/**
 * `code-commit --init`: sets the project up without any LLM call or key, and prints the next steps.
 * It never replaces what exists (a second run changes nothing) and never writes through a link.
 * @module
 */
import { AGENT_CONFIG_DIR } from "../../guard/protected_paths.ts";
import { z } from "zod";
import { SETTINGS_FILE } from "../../cli/args.ts";
import type { Console } from "../../console/console.ts";
import { CodeCommitError, EXIT, type ExitStatus, messageOf } from "../../errors/errors.ts";
import { FileReadError, readBounded } from "../../file_system/bounded_read.ts";
import { lstatOrUndefined } from "../../file_system/lstat.ts";
import { READ_LIMITS, type ReadLimit } from "../../file_system/read_limits.ts";
import { MODEL_NAMES, type ModelName, MODELS, type Provider } from "../../llm/models.ts";
import { LOGS_DIR } from "../../logger/log_names.ts";
import {
  BUILD_PLACEHOLDER_LINE,
  checkAgentConfigIgnored,
  QUERY_FILE,
} from "../../preconditions/preconditions.ts";
import { checkRepositoryRoot } from "../../preconditions/repository.ts";
import { trackedPaths } from "../../preconditions/git_index.ts";
import {
  ensureRealFolder,
  writeFileAtomically,
  writeNewFile,
} from "../../project_files/safe_write.ts";
import { CODECOMMIT_IGNORE_FILE } from "../../guard/codecommit_ignore.ts";
import { IgnoreRules } from "../../guard/ignore_rules.ts";
import { negationLine, parseIgnorePatterns } from "../../guard/ignore_patterns.ts";
import { folderCoverage } from "../../preconditions/ignored_folder.ts";
import { under } from "../../file_system/file_system.ts";

// Not `build.sh` itself: Deno refuses write access to a file it may run (`--allow-run=./build.sh`).
const STARTER_BUILD_FILE = `${AGENT_CONFIG_DIR}/starter-build.sh`;

const INIT_RULES: readonly InitRule[] = [
  { line: `/${AGENT_CONFIG_DIR}`, folder: AGENT_CONFIG_DIR },
  { line: `/${LOGS_DIR}`, folder: LOGS_DIR },
];

const INIT_COMMENT = "# code-commit: API keys, query and rollup; run logs";
const FOLDERS_COMMENT = "# code-commit --init: dependencies and build output";
const NEGATIONS_COMMENT = "# code-commit --init: files git must see";

async function rootMarker(root: string, markers: readonly string[]): Promise<string | undefined> {
  for (const marker of markers) {
    if ((await lstatOrUndefined(under(root, marker)))?.isFile) return marker;
  }
  return undefined;
}

/**
 * Runs `--init` in `root`: one line per piece (made, or kept), then the next steps; returns 0.
 * `madeConfigFolder`: the run made `agent-config/` already, taking its lock.
 * @throws {CodeCommitError} when `root` is not a git repository's root, or something in the way is
 * a link or of the wrong kind (nothing is written through it).
 */
export async function runInit(
  root: string,
  console: Console,
  madeConfigFolder: boolean,
): Promise<ExitStatus> {
  await checkRepositoryRoot(root, true);
  const lines: string[] = [];

  const gitignore = await readSmallFile(root, ".gitignore", READ_LIMITS.ignoreRules);
  const folderRules: Record<string, string | undefined> = {};
  for (const { folder } of INIT_RULES) {
    const path = `${folder}/.gitignore`;
    if ((await lstatOrUndefined(under(root, path)))?.isFile) {
      folderRules[folder] = await readSmallFile(root, path, READ_LIMITS.ignoreRules);
    }
  }
  // Each rule whose folder is not wholly ignored yet is appended, last so that it wins over any
  // earlier negation; git skips a UTF-8 byte order mark at the start of an ignore file.
  const rootText = (gitignore ?? "").replace(/^\uFEFF/, "");
  const added = INIT_RULES
    .filter((rule) => !folderCoverage(rule.folder, rootText, folderRules[rule.folder]).ignored)
    .map((rule) => rule.line);
  const ecosystems: Ecosystem[] = [];
  for (const ecosystem of ECOSYSTEMS) {
    if (await rootMarker(root, ecosystem.markers) !== undefined) ecosystems.push(ecosystem);
  }
  const rules = await IgnoreRules.load(root);
  // The dependency and build folders of the project's kinds that no rule ignores yet.
  const folders: IgnoredFolder[] = [];
  for (const folder of ecosystems.flatMap((ecosystem) => ecosystem.folders)) {
    if (await rules.explain(folder.folder, true) === undefined) folders.push(folder);
  }
  let text = appendLines(gitignore, INIT_COMMENT, added);
  text = appendLines(text, FOLDERS_COMMENT, folders.map((f) => f.line));
  // The root files --init puts there (or the user moves there) that git must see.
  const negations: { line: string; why: string }[] = [];
  for (const name of ["build.sh", CODECOMMIT_IGNORE_FILE]) {
    const verdict = rootFileVerdict(text, name);
    const match = await rules.explain(name, false);
    if (verdict === "ignored" || (verdict === undefined && match !== undefined)) {
      const rule = match === undefined
        ? "a rule in .gitignore"
        : `the rule \`${match.pattern}\` in ${match.source}`;
      negations.push({ line: negationLine(name), why: `${rule} would hide ${name} from git` });
    }
  }
  text = appendLines(text, NEGATIONS_COMMENT, negations.map((n) => n.line));
  const initLines = INIT_RULES.map((r) => r.line).join(" and ");
  if (text === gitignore) {
    lines.push(`.gitignore: kept (it already ignores ${initLines})`);
  } else {
    if (gitignore !== undefined) await writeFileAtomically(root, ".gitignore", text);
    else if (!await writeNewFile(root, ".gitignore", text)) {
      throw new CodeCommitError(
        ".gitignore appeared while code-commit --init ran: run it again",
        EXIT.setup,
      );
    }
    if (added.length === 0) {
      lines.push(`.gitignore: it already ignores ${initLines}`);
    } else if (gitignore === undefined) {
      lines.push(`.gitignore: made, with ${added.join(" and ")}`);
    } else {
      lines.push(`.gitignore: added ${added.join(" and ")}; your lines are kept`);
    }
    const tracked = folders.length === 0 ? [] : (await trackedPaths(root)).paths;
    for (const folder of folders) {
      const inGit = tracked.some((path) => path.startsWith(`${folder.folder}/`));
      lines.push(
        `.gitignore: added ${folder.line} (${folder.what}), which git would otherwise track` +
          (inGit
            ? `; git tracks files in ${folder.folder}/ already: untrack them with ` +
              `git rm -r --cached ${folder.folder}, then commit`
            : ""),
      );
    }
    for (const { line, why } of negations) lines.push(`.gitignore: added ${line} (${why})`);
  }

  const ignoreFile = await lstatOrUndefined(under(root, CODECOMMIT_IGNORE_FILE));
  if (ignoreFile !== undefined) {
    lines.push(`${CODECOMMIT_IGNORE_FILE}: kept`);
  } else {
    await writeNewFile(root, CODECOMMIT_IGNORE_FILE, codecommitIgnoreText(ecosystems));
    const locks = ecosystems.flatMap((ecosystem) => ecosystem.lockFiles);
    lines.push(
      `${CODECOMMIT_IGNORE_FILE}: made; ` +
        (locks.length === 0
          ? "add what the model need not see (gitignore syntax): it stays out of every prompt"
          : `it leaves ${locks.join(", ")} out of every prompt (git still tracks them)`),
    );
  }

  const madeFolder = await ensureRealFolder(root, AGENT_CONFIG_DIR) || madeConfigFolder;
  lines.push(`${AGENT_CONFIG_DIR}/: ${madeFolder ? "made" : "kept"}`);
  const madeQuery = await writeNewFile(root, QUERY_FILE, "");
  lines.push(`${QUERY_FILE}: ${madeQuery ? "made (empty)" : "kept"}`);

  const buildScript = await lstatOrUndefined(under(root, "build.sh"));
  const moveStarter = buildScript === undefined;
  if (buildScript === undefined) {
    const kinds = await projectKinds(root);
    const found = commandsOf(kinds, kinds.includes("python") && await hasSrcPackage(root));
    const starter = starterBuildScript(found);
    const made = await writeNewFile(root, STARTER_BUILD_FILE, starter, { mode: 0o755 });
    const starterNow = made
      ? `a starter is in ${STARTER_BUILD_FILE} (${describeStarter(found)})`
      : `${STARTER_BUILD_FILE} is kept`;
    lines.push(
      `build.sh: missing; ${starterNow}: read it, then make it your build.sh with: ` +
        `mv ${STARTER_BUILD_FILE} build.sh`,
    );
  } else if (buildScript.isFile && buildScript.mode !== null && (buildScript.mode & 0o111) === 0) {
    lines.push("build.sh: kept, but it is not executable: run chmod +x build.sh");
  } else {
    lines.push("build.sh: kept");
  }

  for (const line of lines) console.result(line);
  try {
    await checkAgentConfigIgnored(root);
  } catch (error) {
    if (!(error instanceof CodeCommitError)) throw error;
    console.warn(error.message);
  }
  for (const line of await nextSteps(root, moveStarter)) console.result(line);
  return EXIT.ok;
}

async function nextSteps(root: string, moveStarter: boolean): Promise<string[]> {
  const gemini = firstModel("gemini");
  const openai = firstModel("openai");
  const hasKey = await hasContent(root, MODELS[gemini].keyFile, READ_LIMITS.apiKey) ||
    await hasContent(root, MODELS[openai].keyFile, READ_LIMITS.apiKey);
  const hasQuery = await hasContent(root, QUERY_FILE, READ_LIMITS.query);
  const done = (yes: boolean) => (yes ? " (done)" : "");
  const steps = [
    `Put your Gemini API key in ${MODELS[gemini].keyFile}, or your OpenAI key in ` +
    `${MODELS[openai].keyFile} and run with --model ${openai}${done(hasKey)}.`,
    `Write what you want done in ${QUERY_FILE}${done(hasQuery)}.`,
    "Run code-commit --rollup to give the model your codebase (or skip it and run " +
    "with --build-context, which lets the model choose the files).",
    "Run code-commit, then review the change with git status (new files) and git diff; " +
    "code-commit --undo takes the run back.",
  ];
  if (moveStarter) steps.unshift(`Make your build script: mv ${STARTER_BUILD_FILE} build.sh`);
  return [
    "Next steps:",
    ...steps.map((step, index) => `  ${index + 1}. ${step}`),
    // The settings file is optional and personal: --init names it and makes none.
    `Optional: ${SETTINGS_FILE} can hold the model, the timeouts, the sandbox and more for ` +
    "every run (a flag beats it); see docs/cli.md in code-commit's own folder. --init does not create it.",
  ];
}

function firstModel(provider: Provider): ModelName {
  return MODEL_NAMES.find((name) => MODELS[name].provider === provider)!;
}

/** Whether `path` holds non-space text; a link is followed, as a run reads keys and the query. */
async function hasContent(root: string, path: string, limit: ReadLimit): Promise<boolean> {
  try {
    return ((await readSmallFile(root, path, limit, true)) ?? "").trim() !== "";
  } catch {
    return false;
  }
}

/** Whether `src/` holds a Python package (`src/<name>/__init__.py`): the src layout. */
async function hasSrcPackage(root: string): Promise<boolean> {
  const src = await lstatOrUndefined(under(root, "src"));
  if (!src?.isDirectory) return false;
  try {
    for (const entry of Deno.readDirSync(under(root, "src"))) {
      const init = `src/${entry.name}/__init__.py`;
      if (entry.isDirectory && (await lstatOrUndefined(under(root, init)))?.isFile) return true;
    }
  } catch {
    // An unreadable src/ is no src layout.
  }
  return false;
}

async function projectKinds(root: string): Promise<ProjectKindName[]> {
  const kinds: ProjectKindName[] = [];
  for (const [kind, { markers }] of Object.entries(PROJECT_KINDS)) {
    const marker = await rootMarker(root, markers);
    if (marker === undefined) continue;
    if (kind === "npm") {
      const text = await readSmallFile(root, marker, READ_LIMITS.manifest).catch(() => undefined);
      if (text === undefined || !hasNpmTestScript(text)) continue;
    }
    kinds.push(kind as ProjectKindName);
  }
  return kinds;
}

/** The text of `path` (bounded read), or undefined when there is none; a link refused unless followed. */
async function readSmallFile(
  root: string,
  path: string,
  limit: ReadLimit,
  followSymlink = false,
): Promise<string | undefined> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readBounded(under(root, path), { limit, followSymlink, name: path });
  } catch (error) {
    if (error instanceof FileReadError && error.problem === "symlink") {
      throw new CodeCommitError(
        `${path} is a symbolic link; code-commit neither reads nor writes through links ` +
          `(and git does not read a linked .gitignore): make it a regular file`,
        EXIT.setup,
      );
    }
    throw error;
  }
  if (bytes === undefined) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    throw new CodeCommitError(
      `${path} cannot be read as UTF-8 text: ${messageOf(error)}`,
      EXIT.setup,
    );
  }
}

/** The kinds of project, in the order their commands run; npm also needs a test script. */
const PROJECT_KINDS = {
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

type ProjectKindName = keyof typeof PROJECT_KINDS;

const PackageJson = z.object({ scripts: z.record(z.unknown()).optional() }).passthrough();

/** Whether a `package.json` has a real test script (not `npm init`'s placeholder). */
function hasNpmTestScript(packageJson: string): boolean {
  let test: unknown;
  try {
    test = PackageJson.parse(JSON.parse(packageJson)).scripts?.test;
  } catch {
    return false;
  }
  return typeof test === "string" && test.trim() !== "" && !/no test specified/.test(test);
}

/**
 * Each of `kinds` in the table's order, with its commands. A Python project in the src layout
 * (`src/<package>/__init__.py`, `pythonSrcLayout`) is importable only once installed, so its tests
 * run with `src` on `PYTHONPATH`.
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
 * The starter script; with no kind found, one that says what to put in it and exits 1, so no
 * change passes an empty build.
 */
function starterBuildScript(found: ReturnType<typeof commandsOf>): string {
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

/** What the starter script runs, for the user: `it runs cargo build, then cargo test`. */
function describeStarter(found: ReturnType<typeof commandsOf>): string {
  const commands = found.flatMap((kind) => kind.commands);
  return commands.length === 0
    ? "a placeholder that fails until you put your build and test commands in it"
    : `it runs ${commands.join(", then ")}`;
}

/** One rule `--init` makes sure of: the `line` added unless `folder` is wholly ignored. */
interface InitRule {
  readonly line: string;
  readonly folder: string;
}

/** `existing` with `lines` appended after a blank line and `comment`; CRLF files get CRLF lines. */
function appendLines(
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
function rootFileVerdict(text: string, name: string): "ignored" | "shown" | undefined {
  const match = parseIgnorePatterns(text.replace(/^\uFEFF/, "")).lastMatch(name, false);
  return match === undefined ? undefined : match.negated ? "shown" : "ignored";
}

interface IgnoredFolder extends InitRule {
  readonly what: string;
}

interface Ecosystem {
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
const ECOSYSTEMS: readonly Ecosystem[] = Object.freeze([
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
function codecommitIgnoreText(found: readonly Ecosystem[]): string {
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
