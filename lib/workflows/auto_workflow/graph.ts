/**
 * Modules and their dependency graph: each dependency names another module, no cycle, and each
 * module's depth (L0: no dependencies, else one deeper than its deepest dependency). Pure: no I/O.
 * @module
 */
import { compareCodePoints } from "../../project_files/order.ts";
import type { DeclaredDependency } from "./dependencies_file.ts";
import { SPEC_FILE } from "../../project_files/module_files.ts";

/** The module path of the root module (the project root); any other is a folder under `src/`. */
export const ROOT_MODULE = "";

/** A module as discovery finds it: its path, and where its three documents are (or belong). */
export interface ModuleInfo {
  readonly path: string;
  readonly specPath: string;
  readonly dependenciesFile: string;
  readonly apiFile: string;
}

/** `src/llm (src/llm/UserSpecification.md)` or `the root module (UserSpecification.md)`. */
export function describeModule(modulePath: string): string {
  return modulePath === ROOT_MODULE
    ? `the root module (${SPEC_FILE})`
    : `${modulePath} (${modulePath}/${SPEC_FILE})`;
}

/** A module with the (well-formed) dependencies its `ModuleDependencies.md` lists. */
export interface DeclaredModule extends ModuleInfo {
  readonly dependencies: readonly DeclaredDependency[];
}

/** A module of a valid graph: the paths it depends on, sorted, and its depth. */
export interface Module extends ModuleInfo {
  readonly dependencies: readonly string[];
  readonly depth: number;
}

const LISTED_MODULES = 12;

/**
 * The modules of `declared` (paths unique) with their depths, by depth then path; or every problem:
 * a dependency on no module or on itself, and each cycle. Never throws.
 */
export function buildGraph(
  declared: readonly DeclaredModule[],
): { ok: true; modules: Module[] } | { ok: false; problems: string[] } {
  const byPath = new Map(declared.map((module) => [module.path, module]));
  const problems: string[] = [];
  const edges = new Map<string, string[]>();

  for (const module of [...declared].sort((a, b) => compareCodePoints(a.path, b.path))) {
    const targets: string[] = [];
    for (const dependency of module.dependencies) {
      const where = describeModule(module.path) +
        `: ${module.dependenciesFile} line ${dependency.line}`;
      if (dependency.path === module.path) {
        problems.push(
          `${where}: ${dependency.path} is the module itself, and a module cannot depend on ` +
            "itself: remove the line",
        );
      } else if (!byPath.has(dependency.path) || dependency.path === ROOT_MODULE) {
        problems.push(`${where}: ${dependency.path} names no module ${knownModules(declared)}`);
      } else {
        targets.push(dependency.path);
      }
    }
    edges.set(module.path, targets.sort(compareCodePoints));
  }

  for (const cycle of findCycles(edges)) {
    problems.push(
      `dependency cycle ${cycle.join(" → ")}: a module cannot depend on itself through ` +
        "other modules; remove one of these dependencies from its ModuleDependencies.md",
    );
  }
  if (problems.length > 0) return { ok: false, problems };

  const depths = new Map<string, number>();
  const depthOf = (path: string): number => {
    let depth = depths.get(path);
    if (depth === undefined) {
      depth = Math.max(-1, ...edges.get(path)!.map(depthOf)) + 1;
      depths.set(path, depth);
    }
    return depth;
  };
  const modules = declared.map((module) => ({
    ...module,
    dependencies: edges.get(module.path)!,
    depth: depthOf(module.path),
  }));
  modules.sort((a, b) => a.depth - b.depth || compareCodePoints(a.path, b.path));
  return { ok: true, modules };
}

function knownModules(declared: readonly DeclaredModule[]): string {
  const paths = declared.map((module) => module.path).filter((path) => path !== ROOT_MODULE)
    .sort(compareCodePoints);
  const listed = paths.length === 0
    ? "there are none besides the root module, which no module can depend on"
    : paths.length <= LISTED_MODULES
    ? paths.join(", ")
    : `${paths.slice(0, LISTED_MODULES).join(", ")} and ${paths.length - LISTED_MODULES} more`;
  return `(a module is a folder under src/ holding UserSpecification.md; the modules are: ${listed}): ` +
    "fix or remove the line";
}

/** Each module reachable from `start` → the one it was first reached from, breadth-first. */
function reachable(
  edges: ReadonlyMap<string, readonly string[]>,
  start: string,
): Map<string, string> {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of edges.get(node)!) {
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return previous;
}

/**
 * One shortest cycle (closed by repeating its first module) per strongly connected component of
 * several, by first module; self-loops are not in `edges` (reported on their own).
 */
function findCycles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const done = new Set<string>();
  const cycles: string[][] = [];
  for (const start of [...edges.keys()].sort(compareCodePoints)) {
    if (done.has(start)) continue;
    const from = reachable(edges, start);
    if (!from.has(start)) continue;
    for (const other of from.keys()) if (reachable(edges, other).has(start)) done.add(other);
    const cycle = [start];
    for (let at = from.get(start)!; at !== start; at = from.get(at)!) cycle.splice(1, 0, at);
    cycles.push([...cycle, start]);
  }
  return cycles;
}
