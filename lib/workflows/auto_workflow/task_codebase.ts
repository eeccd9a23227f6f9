/**
 * The codebase of an auto-workflow task, assembled mechanically:
 * no LLM chooses the files. Each file is a `--- path ---` block
 * (`lib/project_files/file_block.ts`), the block format of the code rollup
 * and of the context builder's codebase.
 *
 * The files of a module are the files under its folder as the shared walk
 * lists them (`lib/project_files/walk.ts`), which is what the path guard
 * lets a prompt read. So it leaves out:
 * - nested modules (folders holding their own `UserSpecification.md`) — they
 *   are modules of their own, and the walk does not enter them; for the root
 *   module, this leaves the top-level files and every folder that is not
 *   (inside) a module;
 * - anything git ignores, exactly or once names are compared without regard
 *   to case, and the protected entries no prompt may read (`.git` at any
 *   depth, `agent-config/`, `agent-state/`, `app-data/`, `logs/`);
 * - what the project's `.codecommitignore` matches (the module's own files
 *   and a dependency's documents alike);
 * - symbolic links, which are never followed, and special files;
 * - names the guard's syntax check refuses (a newline, a control
 *   character, ...), each reported as a warning.
 *
 * Every file is read with the guarded read (`readProjectFile`). A file larger
 * than `MAX_FILE_BYTES`, or binary (it holds a NUL byte), is shown as a block
 * holding a one-line note instead of its content (`blockOf`). A path the
 * guard refuses (a dependency's specification git ignores, say) is left out
 * with a warning; a missing one (a dependency without `APISignatures.md`) is
 * left out silently.
 *
 * @module
 */
import { CodeCommitError, EXIT, messageOf } from "../../errors/errors.ts";
import { lstatOrUndefined } from "../../file_system/lstat.ts";
import { IgnoreRules } from "../../guard/ignore_rules.ts";
import { CodeCommitIgnore } from "../../guard/codecommit_ignore.ts";
import { blockOf } from "../../project_files/file_block.ts";
import { compareCodePoints } from "../../project_files/order.ts";
import { readProjectFile } from "../../project_files/read_file.ts";
import { displayPath } from "../../text/characters.ts";
import {
  describeSkipped,
  type SkippedEntry,
  type WalkResult,
  walkTree,
} from "../../project_files/walk.ts";
import type { Module } from "./graph.ts";
import { SPEC_FILE } from "../../project_files/module_files.ts";
import { type ModuleInfo, ROOT_MODULE } from "./module_paths.ts";
import type { CodebaseKind } from "./stages.ts";
import { under } from "../../file_system/file_system.ts";

/** The files of a module, and the entries the walk left out that the user should hear about. */
interface ModuleFiles {
  /** The files, relative to the project root, in code-point order. */
  readonly files: readonly string[];
  /** Entries left out: names the guard refuses, folders that could not be read. */
  readonly skipped: readonly SkippedEntry[];
}

/**
 * The files of `module` (see the module doc), relative to `root`, in
 * code-point order. `modulePaths` holds the path of every other module (the
 * walk does not enter them), with `rules` loaded for `root`.
 *
 * @throws {CodeCommitError} when the module's folder cannot be listed, or
 * the ignore rules cannot be read.
 */
async function moduleFiles(
  root: string,
  module: ModuleInfo,
  modulePaths: ReadonlySet<string>,
  rules: IgnoreRules,
  exclude: CodeCommitIgnore,
): Promise<ModuleFiles> {
  let walk: WalkResult;
  try {
    walk = await walkTree(root, module.path, rules, {
      enter: (folder) => !modulePaths.has(folder),
      exclude,
    });
  } catch (error) {
    if (error instanceof CodeCommitError) throw error;
    throw new CodeCommitError(
      `cannot list the folder ${module.path === "" ? "." : module.path} for the codebase: ${
        messageOf(error)
      }`,
      EXIT.setup,
      { cause: error },
    );
  }
  const files = walk.folders.flatMap((folder) => folder.files).sort(compareCodePoints);
  return { files, skipped: walk.skipped };
}

/** The paths of a task's codebase, and what the walk of the module left out. */
interface CodebasePaths {
  /** The paths, in order, each once. */
  readonly paths: readonly string[];
  /** Entries the walk of the module's files left out (see {@link ModuleFiles}). */
  readonly skipped: readonly SkippedEntry[];
}

/**
 * The paths a task's codebase shows, in order, each once:
 * - `full`: the top-level `UserSpecification.md`, every file of the module,
 *   then for each dependency (in path order) its `UserSpecification.md` and
 *   its `APISignatures.md` when it has one;
 * - `module`: every file of the module only.
 *
 * A dependency's file may be missing; the paths are listed all the same.
 * `rules` are loaded for `root`.
 *
 * @throws {CodeCommitError} as {@link moduleFiles} does.
 */
async function codebasePaths(
  root: string,
  module: Module,
  modules: readonly Module[],
  kind: CodebaseKind,
  rules: IgnoreRules,
  exclude: CodeCommitIgnore,
): Promise<CodebasePaths> {
  const modulePaths = new Set(modules.map((m) => m.path).filter((path) => path !== ROOT_MODULE));
  modulePaths.delete(module.path);
  const own = await moduleFiles(root, module, modulePaths, rules, exclude);
  if (kind === "module") return { paths: own.files, skipped: own.skipped };
  const paths = [SPEC_FILE, ...own.files];
  for (const dependencyPath of module.dependencies) {
    const dependency = modules.find((m) => m.path === dependencyPath);
    if (dependency === undefined) continue;
    paths.push(dependency.specPath, dependency.apiFile);
  }
  return {
    paths: [...new Set(paths)].filter((path) => !exclude.excludes(path)),
    skipped: own.skipped,
  };
}

/** A task's codebase, and what the user should hear about it. */
export interface TaskCodebase {
  /** The `--- path ---` blocks, joined. */
  readonly text: string;
  /** What was left out of it, one line each (the path shown with `displayPath`). */
  readonly warnings: readonly string[];
}

/**
 * Assembles the codebase of a task on `module` (see {@link codebasePaths}):
 * one block per path (`blockOf` of the guarded read), joined as the code
 * rollup joins them. A missing file (a dependency's `APISignatures.md`) is
 * left out; a path the guard refuses is left out with a warning, as is each
 * entry the walk of the module left out.
 *
 * @throws {CodeCommitError} when the module's folder cannot be listed, a
 * refused path cannot be inspected, or the ignore rules cannot be read.
 */
export async function assembleTaskCodebase(
  root: string,
  module: Module,
  modules: readonly Module[],
  kind: CodebaseKind,
): Promise<TaskCodebase> {
  const rules = await IgnoreRules.load(root);
  const exclude = await CodeCommitIgnore.load(root);
  const { paths, skipped } = await codebasePaths(root, module, modules, kind, rules, exclude);
  const warnings = skipped.map((entry) => describeSkipped(entry, "the codebase"));
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
