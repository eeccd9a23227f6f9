/**
 * The file operations an LLM reply asks for: what the reply parser produces, the path guard
 * checks and the applier carries out. Paths are exactly as the reply wrote them.
 * @module
 */

/** One change a reply asks for: write `content` as the whole new file at `path`, or remove it. */
export type FileOperation =
  | { readonly kind: "write"; readonly path: string; readonly content: string }
  | { readonly kind: "delete"; readonly path: string };
