/**
 * The file operations an LLM reply asks for: what the reply parser produces, the path guard
 * checks and the applier carries out. Paths are exactly as the reply wrote them.
 * @module
 */

/** Replace (or create) the file at `path` with `content`, its whole new content. */
export interface WriteOperation {
  readonly kind: "write";
  readonly path: string;
  readonly content: string;
}

/** Remove the file at `path`. */
export interface DeleteOperation {
  readonly kind: "delete";
  readonly path: string;
}

/** One change a reply asks for. */
export type FileOperation = WriteOperation | DeleteOperation;
