/**
 * The codebase of an auto-workflow task, assembled mechanically (no LLM chooses the files) as `---
 * path ---` blocks, the code rollup's format.
 * @module
 */
import { lstatOrUndefined } from "../../file_system/lstat.ts";
import { IgnoreRules } from "../../guard/ignore_rules.ts";
import { CodeCommitIgnore } from "../../guard/codecommit_ignore.ts";
import { blockOf } from "../../project_files/file_block.ts";
import { compareCodePoints } from "../../project_files/order.ts";
import { readProjectFile } from "../../project_files/read_file.ts";
import { displayPath } from "../../text/characters.ts";
import { describeSkipped } from "../../project_files/walk.ts";
import { walkFolder } from "./discovery.ts";
import { type Module, ROOT_MODULE } from "./graph.ts";
import { SPEC_FILE } from "../../project_files/module_files.ts";
import type { CodebaseKind } from "./stages.ts";
import { under } from "../../file_system/file_system.ts";

/**
 * The codebase of a task on `module`: its files as the shared walk lists them (no nested module,
 * nothing ignored, no link); for `full`, the top-level specification first and each dependency's
 * documents after. A missing file is left out silently, a refused one warned of.
 * @throws {CodeCommitError} when the folder, a refused path or the ignore rules cannot be read.
 */
export async function assembleTaskCodebase(
  root: string,
  module: Module,
  modules: readonly Module[],
  kind: CodebaseKind,
): Promise<{ text: string; warnings: string[] }> {
  const rules = await IgnoreRules.load(root);
  const exclude = await CodeCommitIgnore.load(root);
  const others = new Set(modules.map((m) => m.path).filter((path) => path !== ROOT_MODULE));
  others.delete(module.path);
  const walk = await walkFolder(root, module.path, rules, "for the codebase", {
    enter: (folder) => !others.has(folder),
    exclude,
  });
  const own = walk.folders.flatMap((folder) => folder.files).sort(compareCodePoints);
  let paths = own;
  if (kind === "full") {
    const all = [SPEC_FILE, ...own];
    for (const dependencyPath of module.dependencies) {
      const dependency = modules.find((m) => m.path === dependencyPath);
      if (dependency !== undefined) all.push(dependency.specPath, dependency.apiFile);
    }
    paths = [...new Set(all)].filter((path) => !exclude.excludes(path));
  }
  const warnings = walk.skipped.map((entry) => describeSkipped(entry, "the codebase"));
  const blocks: string[] = [];
  for (const path of paths) {
    const outcome = await readProjectFile(root, path, rules);
    const block = blockOf(outcome);
    if (block !== undefined) blocks.push(block);
    else if (!outcome.ok && (await lstatOrUndefined(under(root, path))) !== undefined) {
      warnings.push(`${displayPath(path)}: ${outcome.reason}; left out of the codebase`);
    }
  }
  return { text: blocks.join(""), warnings };
}
