/**
 * The module graph of a project, before any LLM call: discovery, each module's
 * `ModuleDependencies.md`, and the graph, every problem reported at once.
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
import { buildGraph, type DeclaredModule, describeModule, type Module } from "./graph.ts";
import { under } from "../../file_system/file_system.ts";
import { decodeStrictly } from "../../text/utf8.ts";

/** The module structure is wrong: every problem is in the message (`--json` shows only it). */
export class StructureError extends CodeCommitError {
  /** Makes the error from every problem, and the search's warnings. */
  constructor(readonly problems: readonly string[], readonly warnings: readonly string[] = []) {
    super(
      problems.length === 1
        ? problems[0]
        : `the modules have ${problems.length} problems; fix them, then run again:\n` +
          problems.map((problem) => `  - ${problem}`).join("\n"),
      EXIT.setup,
    );
    this.name = "StructureError";
  }
}

/**
 * The modules of `root` with their dependencies, by depth then path, and what the search left out.
 * @throws {StructureError} listing every problem of the structure, with the warnings.
 * @throws {CodeCommitError} when a folder or file cannot be read.
 */
export async function loadModules(
  root: string,
): Promise<{ modules: readonly Module[]; warnings: readonly string[] }> {
  const discovery = await discoverModules(root);
  const declared: DeclaredModule[] = [];
  const problems: string[] = [];
  for (const module of discovery.modules) {
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
      const text = decodeStrictly(
        await readBounded(under(root, file), {
          limit: READ_LIMITS.moduleDocument,
          followSymlink: false,
          name: file,
          refuseHardLinks: true,
        }) ?? new Uint8Array(),
      );
      if (text === undefined) {
        problems.push(`${label}: ${file} is not valid UTF-8 text`);
      } else {
        const parsed = parseDependencyList(text);
        for (const problem of parsed.problems) problems.push(`${label}: ${file} ${problem}`);
        dependencies = parsed.dependencies;
      }
    }
    declared.push({ ...module, dependencies });
  }
  const graph = buildGraph(declared);
  const allProblems = [...discovery.problems, ...problems, ...(graph.ok ? [] : graph.problems)];
  if (!graph.ok || allProblems.length > 0) {
    throw new StructureError(allProblems, discovery.warnings);
  }
  return { modules: graph.modules, warnings: discovery.warnings };
}
