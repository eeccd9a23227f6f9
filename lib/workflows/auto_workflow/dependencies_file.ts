/**
 * Parses `ModuleDependencies.md` strictly: line 1 `# Module Dependencies`, line 2 blank, then one
 * module path per line (`src/llm`), each once; trailing white space is ignored, blank lines may
 * only end the file. Pure: no I/O.
 * @module
 */
import { checkPathSyntax } from "../../guard/path_syntax.ts";
import { findControlCharacter } from "../../text/characters.ts";

/** The first line of every `ModuleDependencies.md`. */
export const DEPENDENCIES_HEADER = "# Module Dependencies";

/** One dependency as the file lists it: the module path and its 1-based line. */
export interface DeclaredDependency {
  readonly path: string;
  readonly line: number;
}

/** A line for a message: quoted, control characters escaped. */
function show(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}

/** Why `path` is not a well-formed module path, saying how to write it for the common mistakes. */
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
    return `${show(path)} is not written as a module path: no \`./\`, no \`//\` and no ` +
      "trailing /, as in src/llm";
  }
  return `${show(path)} ${problem}`;
}

/**
 * Parses a `ModuleDependencies.md`, reporting every problem; a wrong header or second line ends the
 * parse (the rest cannot be trusted to be a list): the dependencies of the valid lines, one `line
 * N: ...` sentence per problem. Never throws.
 */
export function parseDependencyList(
  text: string,
): { dependencies: DeclaredDependency[]; problems: string[] } {
  const lines = text.split("\n").map((line) => line.trimEnd());
  if (lines[0] !== DEPENDENCIES_HEADER) {
    const empty = lines[0] === "" && lines.length === 1 ? " (the file is empty)" : "";
    const problem = `line 1 must be exactly ${show(DEPENDENCIES_HEADER)}, not ${show(lines[0])}`;
    return { dependencies: [], problems: [problem + empty] };
  }
  if (lines.length > 1 && lines[1] !== "") {
    const problem = `line 2 must be blank, not ${show(lines[1])}: the module paths start on line 3`;
    return { dependencies: [], problems: [problem] };
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
