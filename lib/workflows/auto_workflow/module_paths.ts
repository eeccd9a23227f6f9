/**
 * How the auto workflow names modules and their files. A module is a folder
 * holding `UserSpecification.md`: the project root (the root module, whose
 * module path is `""`) or a folder under `src/` (`src/llm`, `src/llm/gemini`).
 * Pure: no I/O.
 *
 * @module
 */

/** The module path of the root module. */
export const ROOT_MODULE = "";

/** The file that makes a folder a module. */
export const SPEC_FILE = "UserSpecification.md";

/** The file that describes a module's public interface. */
export const API_FILE = "APISignatures.md";

/** The folder that holds every module but the root one. */
export const SOURCE_DIR = "src";

/** A module as discovery finds it. */
export interface ModuleInfo {
  /** Its module path: `""` for the root module, else e.g. `src/llm`. */
  readonly path: string;
  /** Its specification, e.g. `src/llm/UserSpecification.md` (`UserSpecification.md` for the root). */
  readonly specPath: string;
  /** Where its `ModuleDependencies.md` is (or must be created). */
  readonly dependenciesFile: string;
  /** Where its `APISignatures.md` is (or belongs). */
  readonly apiFile: string;
}

/** The specification path of the module at `modulePath`. Never throws. */
function specPathOf(modulePath: string): string {
  return modulePath === ROOT_MODULE ? SPEC_FILE : `${modulePath}/${SPEC_FILE}`;
}

/**
 * Names a module for the user, with its specification:
 * `src/llm (src/llm/UserSpecification.md)`, or
 * `the root module (UserSpecification.md)`. Never throws.
 */
export function describeModule(modulePath: string): string {
  return modulePath === ROOT_MODULE
    ? `the root module (${SPEC_FILE})`
    : `${modulePath} (${specPathOf(modulePath)})`;
}
