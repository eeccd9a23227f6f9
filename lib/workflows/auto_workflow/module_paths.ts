/**
 * How the auto workflow names modules and their files. A module is a folder
 * holding `UserSpecification.md`: the project root (the root module, whose
 * module path is `""`) or a folder under `src/` (`src/llm`, `src/llm/gemini`).
 * Pure: no I/O.
 *
 * @module
 */

import { SPEC_FILE } from "../../project_files/module_files.ts";

/** The module path of the root module. */
export const ROOT_MODULE = "";

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
