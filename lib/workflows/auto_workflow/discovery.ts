/**
 * Module discovery: a module is the project root or a folder under `src/` (as the shared walk sees
 * it) holding a regular `UserSpecification.md`; the root module's other documents are read from
 * `src/`, else from the root.
 * @module
 */
import { CodeCommitError, EXIT, messageOf } from "../../errors/errors.ts";
import { describeEntry, lstatOrUndefined } from "../../file_system/lstat.ts";
import { guardRead } from "../../guard/guard.ts";
import { IgnoreRules } from "../../guard/ignore_rules.ts";
import { compareCodePoints } from "../../project_files/order.ts";
import {
  describeSkipped,
  type WalkOptions,
  type WalkResult,
  walkTree,
} from "../../project_files/walk.ts";
import { cacheCollisions } from "./cache.ts";
import {
  API_FILE,
  DEPENDENCIES_FILE,
  SOURCE_DIR,
  SPEC_FILE,
} from "../../project_files/module_files.ts";
import { describeModule, type ModuleInfo, ROOT_MODULE } from "./graph.ts";
import { under } from "../../file_system/file_system.ts";

/**
 * Every module of the project at `root`, by path (the root module first); problems and warnings
 * (what the search left out) are returned, not thrown.
 * @throws {CodeCommitError} when `src/`, an entry or the ignore rules cannot be read.
 */
export async function discoverModules(
  root: string,
): Promise<{ modules: ModuleInfo[]; problems: string[]; warnings: string[] }> {
  const problems: string[] = [];
  const warnings: string[] = [];
  const modules: ModuleInfo[] = [];

  const rootSpec = await lstatOrUndefined(under(root, SPEC_FILE));
  if (rootSpec === undefined) {
    problems.push(
      `${SPEC_FILE} not found in the project root: the auto workflow needs the project's ` +
        "top-level specification (the root module); write it, then run again",
    );
  } else if (!rootSpec.isFile) {
    problems.push(
      `${SPEC_FILE} in the project root is ${describeEntry(rootSpec)}: the root module's ` +
        "specification must be a regular file",
    );
  }

  const source = await lstatOrUndefined(under(root, SOURCE_DIR));
  const hasSource = source?.isDirectory === true;
  if (source?.isSymlink) {
    problems.push(
      `${SOURCE_DIR} is a symbolic link: the auto workflow does not follow links, so it cannot ` +
        `look for modules in it; make ${SOURCE_DIR}/ a real folder`,
    );
  }

  if (hasSource) {
    await searchSource(root, await IgnoreRules.load(root), modules, problems, warnings);
  }

  const rootDocuments = [];
  for (const name of [DEPENDENCIES_FILE, API_FILE]) {
    const inSource = hasSource &&
      (await lstatOrUndefined(under(root, `${SOURCE_DIR}/${name}`))) !== undefined;
    const inRoot = (await lstatOrUndefined(under(root, name))) !== undefined;
    if (inSource && inRoot) {
      warnings.push(
        `${name} in the project root is ignored: the root module's ${name} is read from ` +
          `${SOURCE_DIR}/${name}, which exists too; delete the root copy`,
      );
    }
    rootDocuments.push(inSource || (hasSource && !inRoot) ? `${SOURCE_DIR}/${name}` : name);
  }
  modules.push({
    path: ROOT_MODULE,
    specPath: SPEC_FILE,
    dependenciesFile: rootDocuments[0],
    apiFile: rootDocuments[1],
  });

  modules.sort((a, b) => compareCodePoints(a.path, b.path));
  for (const { outer, inner, stage, file, folder } of cacheCollisions(modules.map((m) => m.path))) {
    problems.push(
      `${describeModule(outer)} and ${describeModule(inner)} cannot both be modules: ` +
        `${outer}'s cached specification for the stage ${stage}, ${file}, stands where ${inner}'s ` +
        `cache folder must go; rename the folder ${folder} (a folder directly in a module cannot ` +
        "be named like a stage when it is or holds a module)",
    );
  }
  return { modules, problems, warnings };
}

/**
 * Walks `src/` for modules: each folder but `src/` whose listing holds the specification; one the
 * walk left out is a problem when not a regular file, a warning when git ignores it.
 */
async function searchSource(
  root: string,
  rules: IgnoreRules,
  modules: ModuleInfo[],
  problems: string[],
  warnings: string[],
): Promise<void> {
  const walk = await walkFolder(root, SOURCE_DIR, rules, "while looking for modules");
  // A file left out cannot hide a module (the codebase that would show it says so); a folder can.
  for (const entry of walk.skipped) {
    if (entry.isDirectory) warnings.push(describeSkipped(entry, "the search for modules"));
  }

  for (const folder of walk.folders) {
    const specPath = `${folder.path}/${SPEC_FILE}`;
    const listed = folder.files.includes(specPath);
    if (folder.path === SOURCE_DIR) {
      if (listed || (await lstatOrUndefined(under(root, specPath))) !== undefined) {
        problems.push(
          `${specPath}: ${SOURCE_DIR}/ itself cannot be a module, because it holds the root ` +
            `module's ${DEPENDENCIES_FILE} and ${API_FILE}; move this specification into a ` +
            `folder under ${SOURCE_DIR}/`,
        );
      }
      continue;
    }
    if (listed) {
      modules.push({
        path: folder.path,
        specPath,
        dependenciesFile: `${folder.path}/${DEPENDENCIES_FILE}`,
        apiFile: `${folder.path}/${API_FILE}`,
      });
      continue;
    }
    const spec = await lstatOrUndefined(under(root, specPath));
    if (spec === undefined) continue;
    if (!spec.isFile) {
      problems.push(
        `${specPath} is ${describeEntry(spec)}: a module's specification must be a regular ` +
          "file in the module's folder",
      );
      continue;
    }
    // A regular file the walk left out: git ignores it (on a case-insensitive file system, it
    // may also be another spelling of the name, which the guard accepts and is no module).
    const refused = await guardRead(root, specPath, rules);
    if (refused !== undefined) {
      warnings.push(
        `${specPath} ${refused}, so ${folder.path} is not taken as a module: the auto workflow ` +
          "sees only what git sees",
      );
    }
  }
}

/**
 * The shared walk of `folder` (`""`: the root).
 * @throws {CodeCommitError} saying what for (`purpose`) when `folder` or the ignore rules cannot be
 * read.
 */
export async function walkFolder(
  root: string,
  folder: string,
  rules: IgnoreRules,
  purpose: string,
  options?: WalkOptions,
): Promise<WalkResult> {
  try {
    return await walkTree(root, folder, rules, options);
  } catch (error) {
    if (error instanceof CodeCommitError) throw error;
    throw new CodeCommitError(
      `cannot list the folder ${folder === "" ? "." : folder} ${purpose}: ${messageOf(error)}`,
      EXIT.setup,
      { cause: error },
    );
  }
}
