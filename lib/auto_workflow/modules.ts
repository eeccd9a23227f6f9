/**
 * Module discovery and the module graph of a project (seed 003's
 * preprocessing phase), done before any LLM call.
 *
 * A module is a folder holding a regular file `UserSpecification.md`: the
 * project root (required), and any folder under `src/` at any depth. The
 * walk never follows a symbolic link, never enters a folder git ignores or
 * one the tool may not read (`.git`), and reports a `src/UserSpecification.md`
 * as a problem: `src/` holds the root module's documents. The root module's
 * `ModuleDependencies.md` and `APISignatures.md` are read from `src/`, or
 * from the project root where `src/` has none (SPEC.md decision 13).
 *
 * Every problem is collected before one {@link StructureError} reports them all.
 *
 * @module
 */
import { join } from "node:path";
import { CodeCommitError, messageOf } from "../errors/errors.ts";
import { IgnoreRules } from "../guard/ignore_rules.ts";
import { protectedRuleFor } from "../guard/protected_paths.ts";
import {
  type DeclaredDependency,
  DEPENDENCIES_FILE,
  DEPENDENCIES_HEADER,
  parseDependencyList,
} from "./dependencies_file.ts";
import { buildGraph, type DeclaredModule, type Module } from "./graph.ts";
import {
  API_FILE,
  compareCodePoints,
  describeModule,
  type ModuleInfo,
  ROOT_MODULE,
  SOURCE_DIR,
  SPEC_FILE,
} from "./module_paths.ts";

/** The project's module structure is wrong; `problems` lists every problem, one line each. */
export class StructureError extends CodeCommitError {
  /** Every problem found, one line each, naming the module and what to fix. */
  readonly problems: readonly string[];

  /** Makes the error; its message is the one problem, or a count when there are several. */
  constructor(problems: readonly string[]) {
    super(
      problems.length === 1
        ? problems[0]
        : `the modules have ${problems.length} problems (listed above); fix them, then run again`,
    );
    this.name = "StructureError";
    this.problems = problems;
  }
}

/** What discovery found: the modules, sorted by path, and the problems. */
export interface Discovery {
  /** Every module found, the root module first, then by path in code-point order. */
  readonly modules: readonly ModuleInfo[];
  /** Problems found on the way (one line each). */
  readonly problems: readonly string[];
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** lstat, or undefined when nothing is there. */
async function lstat(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return undefined;
    }
    throw new CodeCommitError(`cannot inspect ${path}: ${messageOf(error)}`, undefined, {
      cause: error,
    });
  }
}

function describeKind(info: Deno.FileInfo): string {
  return info.isSymlink ? "a symbolic link" : info.isDirectory ? "a folder" : "not a regular file";
}

/**
 * Finds every module of the project at `root` (see the module doc for the
 * rules). Problems that concern one module (a specification that is a
 * symbolic link, both `src/` and the root holding a root-module document)
 * are returned, not thrown.
 *
 * @throws {CodeCommitError} when a folder cannot be listed or the ignore
 * rules cannot be read.
 */
export async function discoverModules(root: string): Promise<Discovery> {
  const problems: string[] = [];
  const modules: ModuleInfo[] = [];

  const rootSpec = await lstat(join(root, SPEC_FILE));
  if (rootSpec === undefined) {
    problems.push(
      `${SPEC_FILE} not found in the project root: the auto workflow needs the project's ` +
        "top-level specification (the root module); write it, then run again",
    );
  } else if (!rootSpec.isFile) {
    problems.push(
      `${SPEC_FILE} in the project root is ${describeKind(rootSpec)}: the root module's ` +
        "specification must be a regular file",
    );
  }

  const source = await lstat(join(root, SOURCE_DIR));
  const hasSource = source?.isDirectory === true;
  if (source?.isSymlink) {
    problems.push(
      `${SOURCE_DIR} is a symbolic link: the auto workflow does not follow links, so it cannot ` +
        `look for modules in it; make ${SOURCE_DIR}/ a real folder`,
    );
  }

  if (hasSource) {
    const rules = await IgnoreRules.load(root);
    await walk(root, SOURCE_DIR, rules, modules, problems);
  }

  const rootDocuments = [];
  for (const name of [DEPENDENCIES_FILE, API_FILE]) {
    const inSource = hasSource && (await lstat(join(root, SOURCE_DIR, name))) !== undefined;
    const inRoot = (await lstat(join(root, name))) !== undefined;
    if (inSource && inRoot) {
      problems.push(
        `${describeModule(ROOT_MODULE)}: both ${SOURCE_DIR}/${name} and ${name} exist; the ` +
          `root module's ${name} is read from ${SOURCE_DIR}/: delete the other one`,
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
  return { modules, problems };
}

/** Walks `folder` (a real, not ignored folder under src/) for modules. */
async function walk(
  root: string,
  folder: string,
  rules: IgnoreRules,
  modules: ModuleInfo[],
  problems: string[],
): Promise<void> {
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const entry of Deno.readDir(join(root, folder))) entries.push(entry);
  } catch (error) {
    throw new CodeCommitError(
      `cannot list the folder ${folder} while looking for modules: ${messageOf(error)}`,
      undefined,
      { cause: error },
    );
  }
  entries.sort((a, b) => compareCodePoints(a.name, b.name));

  const spec = entries.find((entry) => entry.name === SPEC_FILE);
  if (spec !== undefined) {
    const specPath = `${folder}/${SPEC_FILE}`;
    if (folder === SOURCE_DIR) {
      problems.push(
        `${specPath}: ${SOURCE_DIR}/ itself cannot be a module, because it holds the root ` +
          `module's ${DEPENDENCIES_FILE} and ${API_FILE}; move this specification into a ` +
          `folder under ${SOURCE_DIR}/`,
      );
    } else if (!spec.isFile) {
      problems.push(
        `${specPath} is ${
          spec.isSymlink ? "a symbolic link" : "not a regular file"
        }: a module's specification must be a regular file in the module's folder`,
      );
    } else {
      modules.push({
        path: folder,
        specPath,
        dependenciesFile: `${folder}/${DEPENDENCIES_FILE}`,
        apiFile: `${folder}/${API_FILE}`,
      });
    }
  }

  for (const entry of entries) {
    if (!entry.isDirectory || entry.isSymlink) continue;
    const path = `${folder}/${entry.name}`;
    if (protectedRuleFor(path)?.readable === false) continue;
    if (await rules.isIgnored(path, true)) continue;
    await walk(root, path, rules, modules, problems);
  }
}

/**
 * Reads the `ModuleDependencies.md` of each module. A missing file, one that
 * is a symbolic link or not valid UTF-8, and every format problem is returned
 * as a problem naming the module and the file.
 *
 * @throws {CodeCommitError} when a file exists but cannot be read.
 */
export async function readDependencies(
  root: string,
  modules: readonly ModuleInfo[],
): Promise<{ declared: DeclaredModule[]; problems: string[] }> {
  const declared: DeclaredModule[] = [];
  const problems: string[] = [];
  for (const module of modules) {
    const label = describeModule(module.path);
    const file = module.dependenciesFile;
    let dependencies: readonly DeclaredDependency[] = [];
    const info = await lstat(join(root, file));
    if (info === undefined) {
      problems.push(
        `${label} has no ${DEPENDENCIES_FILE}: create ${file} with the line ` +
          `"${DEPENDENCIES_HEADER}", a blank line, then the path of each module it depends on, ` +
          "one per line (none when it depends on no module)",
      );
    } else if (!info.isFile) {
      problems.push(`${label}: ${file} is ${describeKind(info)}; it must be a regular file`);
    } else {
      let text: string | undefined;
      try {
        text = decoder.decode(await Deno.readFile(join(root, file)));
      } catch (error) {
        if (!(error instanceof TypeError)) {
          throw new CodeCommitError(`cannot read ${file}: ${messageOf(error)}`, undefined, {
            cause: error,
          });
        }
        problems.push(`${label}: ${file} is not valid UTF-8 text`);
      }
      if (text !== undefined) {
        const parsed = parseDependencyList(text);
        for (const problem of parsed.problems) problems.push(`${label}: ${file} ${problem}`);
        dependencies = parsed.dependencies;
      }
    }
    declared.push({ ...module, dependencies });
  }
  return { declared, problems };
}

/**
 * Discovers the modules of the project at `root`, reads their dependencies
 * and builds the graph: the modules by depth, then path.
 *
 * @throws {StructureError} listing every problem of the structure (missing
 * specification or `ModuleDependencies.md`, bad format, a dependency that
 * names no module or the module itself, cycles).
 * @throws {CodeCommitError} when a folder or file cannot be read.
 */
export async function loadModules(root: string): Promise<readonly Module[]> {
  const discovery = await discoverModules(root);
  const { declared, problems } = await readDependencies(root, discovery.modules);
  const graph = buildGraph(declared);
  const allProblems = [...discovery.problems, ...problems, ...(graph.ok ? [] : graph.problems)];
  if (!graph.ok || allProblems.length > 0) throw new StructureError(allProblems);
  return graph.modules;
}
