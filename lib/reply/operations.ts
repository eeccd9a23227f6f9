/**
 * The file operations an LLM reply asks for: what the reply parser
 * produces, the path guard checks and the applier carries out.
 *
 * @module
 */

/** Replace (or create) the file at `path` with `content`. */
export interface WriteOperation {
  /** Tells a write from a delete. */
  readonly kind: "write";
  /** The path exactly as the reply wrote it, relative to the project root. */
  readonly path: string;
  /** The whole new content of the file. */
  readonly content: string;
}

/** Remove the file at `path`. */
export interface DeleteOperation {
  /** Tells a delete from a write. */
  readonly kind: "delete";
  /** The path exactly as the reply wrote it, relative to the project root. */
  readonly path: string;
}

/** One change a reply asks for. */
export type FileOperation = WriteOperation | DeleteOperation;
