/**
 * How the auto workflow names modules: the root module (path `""`) or a
 * folder under `src/` (`src/llm`). Pure: no I/O.
 *
 * @module
 */

import { SPEC_FILE } from "../../project_files/module_files.ts";

/** The module path of the root module. */
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
