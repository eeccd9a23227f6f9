/**
 * The file operations a reply asks for, with paths exactly as the reply wrote them.
 * @module
 */

/** One change a reply asks for: write `content` as the whole new file at `path`, or remove it. */
export type FileOperation =
  | { readonly kind: "write"; readonly path: string; readonly content: string }
  | { readonly kind: "delete"; readonly path: string };
