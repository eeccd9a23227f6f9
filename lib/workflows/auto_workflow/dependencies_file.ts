/**
 * The `ModuleDependencies.md` format, parsed strictly so that the
 * file stays machine-readable:
 *
 * ```text
 * # Module Dependencies
 *
 * src/llm
 * src/logger
 * ```
 *
 * - line 1 is exactly `# Module Dependencies`;
 * - line 2 is blank (a file of the header line alone lists no dependency);
 * - every later line is one module path, relative to the project root, written
 *   as in `src/llm`: `/`-separated, no `./`, no `..`, no trailing `/`;
 * - white space at the end of a line is ignored (so CRLF line ends are fine);
 *   blank lines may end the file but not separate two paths;
 * - a path appears once.
 *
 * This module only parses: whether a path names a module, and cycles, are
 * checked by `graph.ts`. Pure: no I/O.
 *
 * @module
 */

import { checkPathSyntax } from "../../guard/path_syntax.ts";
import { findControlCharacter } from "../../text/characters.ts";

/** The first line of every `ModuleDependencies.md`. */
export const DEPENDENCIES_HEADER = "# Module Dependencies";

/** One dependency as the file lists it. */
export interface DeclaredDependency {
  /** The module path, e.g. `src/llm`. */
  readonly path: string;
  /** The 1-based line it is on. */
  readonly line: number;
}

/** What parsing one file found: the dependencies, and every problem (empty when the file is valid). */
export interface DependencyList {
  /** The dependencies of the lines that are valid, in file order. */
  readonly dependencies: readonly DeclaredDependency[];
  /** One sentence per problem, each starting with the line it is about (`line 3: ...`). */
  readonly problems: readonly string[];
}

/** Shows a line in a message: quoted, with control characters escaped. */
function show(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}

/**
 * Why `path` (one line of the file, trailing white space already removed) is
 * not a well-formed module path, or `undefined` when it is. The path guard's
 * syntax check decides (`checkPathSyntax`; a module path also has no leading
 * `./`); the message then says, for the common mistakes, how to write the
 * path instead. Never throws.
 */
function checkDependencyPath(path: string): string | undefined {
  const problem = path.startsWith("./") ? "has a leading `./`" : checkPathSyntax(path);
  if (problem === undefined) return undefined;
  if (findControlCharacter(path) !== undefined) return `${show(path)} contains a control character`;
  if (/^\s/u.test(path)) return `${show(path)} starts with white space: write the path alone`;
  if (path.includes("\\")) {
    return `${show(path)} contains a backslash: separate folders with /, as in src/llm`;
  }
  if (path.startsWith("/") || path.startsWith("~") || /^[A-Za-z]:/.test(path)) {
    return `${show(path)} is an absolute path: write the module's path from the project root, ` +
      "as in src/llm";
  }
  const segments = path.split("/");
  if (segments.includes("..")) {
    return `${show(path)} contains \`..\`, and paths that climb out of a folder are not allowed: ` +
      "write the module's path from the project root, as in src/llm";
  }
  if (path === "." || path === "./") {
    return `${show(path)} names the root module, which no module can depend on (every other ` +
      "module is part of it): remove the line";
  }
  if (segments.some((segment) => segment === "." || segment === "")) {
    return `${
      show(path)
    } is not written as a module path: no \`./\`, no \`//\` and no trailing /, ` +
      "as in src/llm";
  }
  return `${show(path)} ${problem}`;
}

/**
 * Parses the text of a `ModuleDependencies.md` (see the module doc for the
 * format). Reports every problem it finds rather than stopping at the first,
 * except that a wrong header or second line ends the parse (the rest of such
 * a file cannot be trusted to be a list). Never throws.
 */
export function parseDependencyList(text: string): DependencyList {
  const lines = text.split("\n").map((line) => line.trimEnd());
  if (lines[0] !== DEPENDENCIES_HEADER) {
    return {
      dependencies: [],
      problems: [
        `line 1 must be exactly ${show(DEPENDENCIES_HEADER)}, not ${show(lines[0])}` +
        (lines[0] === "" && lines.length === 1 ? " (the file is empty)" : ""),
      ],
    };
  }
  if (lines.length > 1 && lines[1] !== "") {
    return {
      dependencies: [],
      problems: [
        `line 2 must be blank, not ${show(lines[1])}: the module paths start on line 3`,
      ],
    };
  }

  let last = lines.length - 1;
  while (last >= 2 && lines[last] === "") last--;

  const dependencies: DeclaredDependency[] = [];
  const problems: string[] = [];
  const firstLine = new Map<string, number>();
  for (let index = 2; index <= last; index++) {
    const line = index + 1;
    const path = lines[index];
    if (path === "") {
      problems.push(
        `line ${line} is blank: list one module path per line with no blank line between ` +
          "them (blank lines may only end the file)",
      );
      continue;
    }
    const problem = checkDependencyPath(path);
    if (problem !== undefined) {
      problems.push(`line ${line}: ${problem}`);
      continue;
    }
    const first = firstLine.get(path);
    if (first !== undefined) {
      problems.push(`line ${line}: ${path} is already listed on line ${first}: list it once`);
      continue;
    }
    firstLine.set(path, line);
    dependencies.push({ path, line });
  }
  return { dependencies, problems };
}
