/**
 * The names a project's modules go by: where they are, and the files that make and document one.
 *
 * @module
 */

/** The folder that holds every module but the root one. */
export const SOURCE_DIR = "src";

/** The file that makes a folder a module: its specification. */
export const SPEC_FILE = "UserSpecification.md";

/** The file that lists the modules a module depends on. */
export const DEPENDENCIES_FILE = "ModuleDependencies.md";

/** The file that describes a module's public interface. */
export const API_FILE = "APISignatures.md";
