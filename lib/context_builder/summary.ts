/**
 * The codebase summary the preprocessing LLM chooses files from: a `=== Project Root ===` section,
 * then a `=== folder ===` section for every folder under `src/` (or of the project): key
 * documents in full, the other files by name.
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
import { describeSkipped, listFolder, type WalkOptions, walkTree } from "../project_files/walk.ts";
import { under } from "../file_system/file_system.ts";
import { lstatOrUndefined } from "../file_system/lstat.ts";

const SUMMARY_FILES: readonly string[] = Object.freeze([
  ".gitignore",
  "build.sh",
  "Cargo.toml",
  "deno.json",
  "package.json",
  "LLMInstructions.md",
  SPEC_FILE,
]);

const MODULE_DOCS = [DEPENDENCIES_FILE, API_FILE, "InternalDependencies.md", "PublicAPI.md"];

/**
 * Builds the codebase summary of `root`, with warnings. @throws {CodeCommitError} when a file of
 * {@link SUMMARY_FILES} is ignored by git, or the project cannot be listed.
 */
export async function buildSummary(
  root: string,
  rules: IgnoreRules,
  options: WalkOptions = {},
): Promise<{ text: string; warnings: string[]; modules: number; files: number; where: string }> {
  const warnings: string[] = [];
  const top = await listFolder(root, "", rules, options);
  const hasSource = top.listing.folders.includes(SOURCE_DIR);
  // Without src/: every folder of the project, as git sees it, at any depth.
  const walk = await walkTree(root, hasSource ? SOURCE_DIR : "", rules, options);
  const sourceFiles = hasSource ? walk.folders[0].files : [];
  const modules = walk.folders.slice(1);
  const seen = new Set(top.skipped.map((entry) => entry.path));
  const skipped = [...top.skipped, ...walk.skipped.filter((entry) => !seen.has(entry.path))];
  for (const entry of skipped) warnings.push(describeSkipped(entry, "the summary"));

  const rootFiles: string[] = [];
  for (const name of SUMMARY_FILES) {
    const present = await checkSummaryFileNotIgnored(root, name, rules);
    if (top.listing.files.includes(name)) rootFiles.push(name);
    else if (present) {
      // There, not ignored, yet not listed: a link, a folder or a special file.
      const outcome = await readProjectFile(root, name, rules);
      if (!outcome.ok) {
        warnings.push(`${displayPath(name)}: ${outcome.reason}; left out of the summary`);
      }
    }
  }
  const docs = (folder: string, files: readonly string[]) =>
    MODULE_DOCS.map((name) => folder === "" ? name : `${folder}/${name}`)
      .filter((path) => files.includes(path));
  // The files of `full` in full, then the names of `names`.
  const section = async (name: string, full: readonly string[], names: readonly string[]) => {
    const parts = [`=== ${name} ===\n`];
    for (const path of full) {
      const outcome = await readProjectFile(root, path, rules);
      if (outcome.ok) parts.push(fileBlock(outcome.path, outcome.text));
      else warnings.push(`${displayPath(path)}: ${outcome.reason}; left out of the summary`);
    }
    parts.push(["--- FILENAMES ---", ...names, "--- END FILENAMES ---", ""].join("\n"));
    return parts.join("");
  };
  const rootDocs = [...docs("", top.listing.files), ...docs(SOURCE_DIR, sourceFiles)];
  const rootNames = [...top.listing.files, ...sourceFiles];
  const sections = [await section("Project Root", [...rootFiles, ...rootDocs], rootNames)];
  for (const { path, files } of modules) {
    sections.push(await section(path, docs(path, files), files));
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

// Whether `name` exists; throws when git ignores it (also case-folded, as the guard does).
async function checkSummaryFileNotIgnored(
  root: string,
  name: string,
  rules: IgnoreRules,
): Promise<boolean> {
  const info = await lstatOrUndefined(under(root, name));
  if (info === undefined) return false;
  const exact = await rules.withIgnoreCase(false).explain(name, info.isDirectory);
  const match = exact ?? await rules.withIgnoreCase(true).explain(name, info.isDirectory);
  if (match === undefined) return true;
  const how = exact === undefined ? ", once names are compared without regard to case" : "";
  throw new CodeCommitError(
    `${name} is ignored by git (the rule \`${match.pattern}\` in ${match.source}${how}), but the ` +
      `context builder must show it in full: add the line ${negationLine(name)} at the end ` +
      "of .gitignore (it re-includes the file), or run without --build-context",
    EXIT.setup,
  );
}
