/**
 * The module graph of a project (the auto workflow's preprocessing), done
 * before any LLM call: the modules discovery finds (`discovery.ts`), each
 * one's `ModuleDependencies.md`, and the graph they make.
 *
 * Every problem is collected before one {@link StructureError} reports them
 * all; what the search left out is returned as warnings, for the caller to
 * show.
 *
 * @module
 */
import { CodeCommitError, EXIT } from "../../errors/errors.ts";
import { readBounded } from "../../file_system/bounded_read.ts";
import { describeEntry, lstatOrUndefined } from "../../file_system/lstat.ts";
import { READ_LIMITS } from "../../file_system/read_limits.ts";
import { DEPENDENCIES_FILE } from "../../project_files/module_files.ts";
import {
  type DeclaredDependency,
  DEPENDENCIES_HEADER,
  parseDependencyList,
} from "./dependencies_file.ts";
import { discoverModules } from "./discovery.ts";
import { buildGraph, type DeclaredModule, type Module } from "./graph.ts";
import { describeModule, type ModuleInfo } from "./module_paths.ts";
import { under } from "../../file_system/file_system.ts";

/** The project's module structure is wrong; `problems` lists every problem, one line each. */
export class StructureError extends CodeCommitError {
  /** Every problem found, one line each, naming the module and what to fix. */
  readonly problems: readonly string[];
  /** What the search for modules left out, one line each (see `Discovery` in discovery.ts); shown before the problems. */
  readonly warnings: readonly string[];

  /**
   * Makes the error; its message is the one problem, or, when there are
   * several, a count followed by every problem on a line of its own (so the
   * message alone, as `--json` reports it, holds them all).
   */
  constructor(problems: readonly string[], warnings: readonly string[] = []) {
    super(
      problems.length === 1
        ? problems[0]
        : `the modules have ${problems.length} problems; fix them, then run again:\n` +
          problems.map((problem) => `  - ${problem}`).join("\n"),
      EXIT.setup,
    );
    this.name = "StructureError";
    this.problems = problems;
    this.warnings = warnings;
  }
}

/** The modules of a project whose structure is sound, and what the search for them left out. */
export interface LoadedModules {
  /** The modules by depth, then path. */
  readonly modules: readonly Module[];
  /** What the search left out, one line each (see `Discovery` in discovery.ts), for the caller to show. */
  readonly warnings: readonly string[];
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads the `ModuleDependencies.md` of each module. A missing file, one that
 * is a symbolic link or not valid UTF-8, and every format problem is returned
 * as a problem naming the module and the file.
 *
 * @throws {CodeCommitError} when a file exists but cannot be read (a
 * `FileReadError` when it is larger than `READ_LIMITS.moduleDocument`, has
 * more than one hard link, or is swapped for something else while it is
 * opened).
 */
async function readDependencies(
  root: string,
  modules: readonly ModuleInfo[],
): Promise<{ declared: DeclaredModule[]; problems: string[] }> {
  const declared: DeclaredModule[] = [];
  const problems: string[] = [];
  for (const module of modules) {
    const label = describeModule(module.path);
    const file = module.dependenciesFile;
    let dependencies: readonly DeclaredDependency[] = [];
    const info = await lstatOrUndefined(under(root, file));
    if (info === undefined) {
      problems.push(
        `${label} has no ${DEPENDENCIES_FILE}: create ${file} with the line ` +
          `"${DEPENDENCIES_HEADER}", a blank line, then the path of each module it depends on, ` +
          "one per line (none when it depends on no module)",
      );
    } else if (!info.isFile) {
      problems.push(`${label}: ${file} is ${describeEntry(info)}; it must be a regular file`);
    } else {
      let text: string | undefined;
      const bytes = await readBounded(under(root, file), {
        limit: READ_LIMITS.moduleDocument,
        followSymlink: false,
        name: file,
        refuseHardLinks: true,
      }) ?? new Uint8Array();
      try {
        text = decoder.decode(bytes);
      } catch {
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
 * and builds the graph: the modules by depth, then path, with the warnings
 * of the discovery.
 *
 * @throws {StructureError} listing every problem of the structure (missing
 * specification or `ModuleDependencies.md`, bad format, a dependency that
 * names no module or the module itself, cycles), with the warnings.
 * @throws {CodeCommitError} when a folder or file cannot be read.
 */
export async function loadModules(root: string): Promise<LoadedModules> {
  const discovery = await discoverModules(root);
  const { declared, problems } = await readDependencies(root, discovery.modules);
  const graph = buildGraph(declared);
  const allProblems = [...discovery.problems, ...problems, ...(graph.ok ? [] : graph.problems)];
  if (!graph.ok || allProblems.length > 0) {
    throw new StructureError(allProblems, discovery.warnings);
  }
  return { modules: graph.modules, warnings: discovery.warnings };
}
