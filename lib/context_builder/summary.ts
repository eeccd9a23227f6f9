/**
 * The codebase summary the preprocessing LLM chooses files from, laid out
 * as follows:
 *
 * ```
 * === Project Root ===
 * --- .gitignore ---
 * (the file in full)
 * --- FILENAMES ---
 * .gitignore
 * src/main.ts
 * --- END FILENAMES ---
 *
 * === src/parser ===
 * --- src/parser/ModuleDependencies.md ---
 * (the file in full)
 * --- FILENAMES ---
 * src/parser/ModuleDependencies.md
 * src/parser/parse.ts
 * --- END FILENAMES ---
 * ```
 *
 * "Project Root" holds the top-level files of {@link SUMMARY_FILES} in full,
 * the root module's dependency and API documents (found directly in `src/`
 * or at the top level) in full, and the names of every top-level file and of
 * every file directly in `src/`. Then every folder under `src/` — or, in a
 * project without `src/`, every folder of the project — at any depth, even an
 * empty one or one without documents, has its section: its
 * {@link MODULE_DOCS} in full where present, and the names of all its files.
 * Nothing git ignores, nothing `.codecommitignore` matches (given as the
 * walk's `exclude`), nothing in a protected folder the context builder may
 * not read, and no symbolic link appears (see `lib/project_files/walk.ts`).
 * The summary goes to the model as any prompt does, within its budget.
 *
 * @module
 */

import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { displayPath } from "../text/characters.ts";
import type { IgnoreRules } from "../guard/ignore_rules.ts";
import { negationLine } from "../guard/ignore_patterns.ts";
import { fileBlock } from "../project_files/file_block.ts";
import {
  API_FILE,
  DEPENDENCIES_FILE,
  SOURCE_DIR,
  SPEC_FILE,
} from "../project_files/module_files.ts";
import { readProjectFile } from "../project_files/read_file.ts";
import {
  describeSkipped,
  type FolderListing,
  listFolder,
  type SkippedEntry,
  type WalkOptions,
  walkTree,
} from "../project_files/walk.ts";
import { under } from "../file_system/file_system.ts";
import { lstatOrUndefined } from "../file_system/lstat.ts";

/** The top-level files shown in full, where present. */
const SUMMARY_FILES: readonly string[] = Object.freeze([
  ".gitignore",
  "build.sh",
  "Cargo.toml",
  "deno.json",
  "package.json",
  "LLMInstructions.md",
  SPEC_FILE,
]);

/**
 * A module's dependency and API documents, shown in full where present:
 * the auto workflow's names, and `InternalDependencies.md` / `PublicAPI.md`
 * where a project names them so.
 */
export const MODULE_DOCS: readonly string[] = Object.freeze([
  DEPENDENCIES_FILE,
  API_FILE,
  "InternalDependencies.md",
  "PublicAPI.md",
]);

/** The module path of the top-level section. */
export const ROOT_MODULE = "Project Root";

/** The summary, and what the user should be told about it. */
export interface CodebaseSummary {
  /** The summary text, as it goes into the prompt. */
  readonly text: string;
  /** Files and folders left out that the user should hear about, one line each. */
  readonly warnings: readonly string[];
  /** How many module sections follow the Project Root section. */
  readonly modules: number;
  /** How many file names the summary lists. */
  readonly files: number;
  /** Where its folders are: `under src/`, or `in the project` when there is no `src/`. */
  readonly where: string;
}

/**
 * Builds the codebase summary of the project at `root`, with the ignore
 * rules `rules` (loaded for `root`).
 *
 * @throws {CodeCommitError} when a file of {@link SUMMARY_FILES} is ignored
 * by git (the summary must show it and may not), naming the file and the
 * rule; when an ignore file cannot be read; when the project root cannot be
 * listed.
 */
export async function buildSummary(
  root: string,
  rules: IgnoreRules,
  options: WalkOptions = {},
): Promise<CodebaseSummary> {
  const warnings: string[] = [];
  const top = await listFolder(root, "", rules, options);
  const skipped: SkippedEntry[] = [...top.skipped];
  let modules: FolderListing[] = [];
  let sourceFiles: readonly string[] = [];
  const hasSource = top.listing.folders.includes(SOURCE_DIR);
  if (hasSource) {
    const walk = await walkTree(root, SOURCE_DIR, rules, options);
    sourceFiles = walk.folders[0].files;
    modules = walk.folders.slice(1);
    skipped.push(...walk.skipped);
  } else {
    // No src/: every folder of the project, as git sees it, at any depth.
    const walk = await walkTree(root, "", rules, options);
    modules = walk.folders.slice(1);
    const seen = new Set(top.skipped.map((entry) => entry.path));
    skipped.push(...walk.skipped.filter((entry) => !seen.has(entry.path)));
  }
  for (const entry of skipped) warnings.push(describeSkipped(entry, "the summary"));

  const rootFiles: string[] = [];
  for (const name of SUMMARY_FILES) {
    await checkSummaryFileNotIgnored(root, name, rules);
    if (top.listing.files.includes(name)) rootFiles.push(name);
    else if (await exists(root, name)) {
      // There, not ignored, yet not listed: a link, a folder or a special file.
      const outcome = await readProjectFile(root, name, rules);
      if (!outcome.ok) {
        warnings.push(`${displayPath(name)}: ${outcome.reason}; left out of the summary`);
      }
    }
  }
  const rootDocs = [
    ...MODULE_DOCS.filter((name) => top.listing.files.includes(name)),
    ...MODULE_DOCS.map((name) => `${SOURCE_DIR}/${name}`).filter((path) =>
      sourceFiles.includes(path)
    ),
  ];

  const sections = [
    await section(root, rules, ROOT_MODULE, [...rootFiles, ...rootDocs], [
      ...top.listing.files,
      ...sourceFiles,
    ], warnings),
  ];
  for (const module of modules) {
    const docs = MODULE_DOCS.map((name) => `${module.path}/${name}`).filter((path) =>
      module.files.includes(path)
    );
    sections.push(await section(root, rules, module.path, docs, module.files, warnings));
  }
  const files = top.listing.files.length + sourceFiles.length +
    modules.reduce((sum, module) => sum + module.files.length, 0);
  return {
    text: sections.join("\n"),
    warnings,
    modules: modules.length,
    files,
    where: hasSource ? `under ${SOURCE_DIR}/` : "in the project",
  };
}

/** One `=== name ===` section: the files of `full` in full, then the names of `names`. */
async function section(
  root: string,
  rules: IgnoreRules,
  name: string,
  full: readonly string[],
  names: readonly string[],
  warnings: string[],
): Promise<string> {
  const parts = [`=== ${name} ===\n`];
  for (const path of full) {
    const outcome = await readProjectFile(root, path, rules);
    if (outcome.ok) parts.push(fileBlock(outcome.path, outcome.text));
    else warnings.push(`${displayPath(path)}: ${outcome.reason}; left out of the summary`);
  }
  parts.push(filenameList(names));
  return parts.join("");
}

/** A list of file names between `--- FILENAMES ---` and `--- END FILENAMES ---`. Never throws. */
export function filenameList(paths: readonly string[]): string {
  return ["--- FILENAMES ---", ...paths, "--- END FILENAMES ---", ""].join("\n");
}

/**
 * Throws when the top-level file `name` exists and git ignores it (or
 * ignores it once names are compared without regard to case, as the guard
 * does): the summary must show it in full, so that is an error, not a gap.
 */
async function checkSummaryFileNotIgnored(
  root: string,
  name: string,
  rules: IgnoreRules,
): Promise<void> {
  const info = await lstatOrUndefined(under(root, name));
  if (info === undefined) return;
  const exact = await rules.withIgnoreCase(false).explain(name, info.isDirectory);
  const match = exact ?? await rules.withIgnoreCase(true).explain(name, info.isDirectory);
  if (match === undefined) return;
  const how = exact === undefined ? ", once names are compared without regard to case" : "";
  throw new CodeCommitError(
    `${name} is ignored by git (the rule \`${match.pattern}\` in ${match.source}${how}), but the ` +
      `context builder must show it in full: add the line ${
        negationLine(name)
      } at the end of .gitignore (it re-includes the file), or run without --build-context`,
    EXIT.setup,
  );
}

async function exists(root: string, name: string): Promise<boolean> {
  try {
    await Deno.lstat(under(root, name));
    return true;
  } catch {
    return false;
  }
}
