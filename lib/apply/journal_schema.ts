/**
 * The apply journal's format on disk. The journal: before an apply writes
 * anything, what each path it will touch held (its bytes and mode, or that
 * nothing was there), the
 * folders it will create and the names of its temporary files are written
 * to disk and synced; once the apply is done, the journal marks it
 * complete. An apply that never got that mark (the process was killed, the
 * machine lost power) is rolled back by the next start (`recovery.ts`).
 *
 * The journal keeps the state before a run's first apply of each path
 * (the run's pre-images) for the whole run, however many attempts it takes,
 * so `--undo` can take the run back as a whole (`undo.ts`); the pre-images
 * of a path an earlier apply of the same run touched already are kept only
 * while that apply is under way. A new run replaces the previous run's
 * files only once its own first apply is complete: until then it is
 * recorded beside them as the pending run (`next-run.json`, its applies
 * numbered after the previous run's), so a run that changes no file (its
 * apply failed, or it was killed) leaves the previous run undoable.
 *
 * It lives in `agent-config/journal/` (ignored by git, never writable by a
 * reply, hidden from a contained build), one set of files per apply `n`:
 * - `apply-<n>.first`, `apply-<n>.again`: the pre-images' bytes, back to
 *   back (paths first touched by this run; paths touched again);
 * - `apply-<n>.record`: what the apply is about to do (JSON): each path
 *   with where its pre-image is and the state the apply means to leave it
 *   in (mode, size, hash), the folders and temporary files it will make;
 *   written last and synced, with the folder: the apply may write once it
 *   exists;
 * - `apply-<n>.done`: the apply completed, with the state it left each
 *   path in (mode, size, 64-bit hash: {@link contentHash}), which `--undo`
 *   compares against;
 * - `run.json`: which run the applies belong to;
 * - `next-run.json`: a new run whose first apply has not completed yet;
 *   renamed over `run.json` once it has.
 *
 * It holds copies of project files only: the paths a reply may write,
 * never `agent-config/` (so never a key).
 *
 * This module holds the format: the files' names and the schemas their
 * JSON is checked against when read back.
 *
 * @module
 */

import { z } from "zod";
import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { isTemporaryName } from "../file_system/temporary_name.ts";
import { checkPathSyntax } from "../guard/path_syntax.ts";
import { protectedRulesFor } from "../guard/protected_paths.ts";

/** The journal's folder, relative to the project root. */
export const JOURNAL_DIR = "agent-config/journal";

/** What a path held: its bytes and permission bits, or `null` when nothing was there. */
export type PreImage = { readonly data: Uint8Array; readonly mode: number | null } | null;

/** The state an apply left a file in, as `--undo` checks it: null when there is none. */
export type FileState = {
  /** The permission bits (no file type), or null where there are none. */
  readonly mode: number | null;
  /** The size in bytes. */
  readonly size: number;
  /** The content's {@link contentHash}. */
  readonly hash: string;
  /** How many lines the content holds (as `countLines` counts them). */
  readonly lines: number;
} | null;

/** The state one path was left in by an apply. */
export interface PostState {
  /** The path, relative to the project root. */
  readonly path: string;
  /** What is there now. */
  readonly after: FileState;
}

/**
 * A state an apply means to leave a path in: `null`, nothing (a delete);
 * or a file's permission bits (`null` where the file system chooses them,
 * as for a new file), size and {@link contentHash}.
 */
export type IntendedState = {
  readonly mode: number | null;
  readonly size: number;
  readonly hash: string;
} | null;

/** The header of the run the applies belong to. */
export const RUN_FILE = "run.json";
/** The header of a run whose first apply has not completed: it becomes `run.json` once one has. */
export const NEXT_RUN_FILE = "next-run.json";

/** A run's header. */
export const RunSchema = z.object({
  version: z.literal(1),
  /** Random, unique per run. */
  id: z.string().min(1),
  /** The workflow that made the run (`committing code`, `auto workflow`). */
  workflow: z.string(),
  /** When the run's first apply began (ISO 8601). */
  startedAt: z.string(),
  /** Set once `--undo` has taken the run back. */
  undoneAt: z.string().optional(),
}).strict();

/** A run's header. */
export type RunHeader = z.infer<typeof RunSchema>;

const relativePath = z.string().refine((path) => plainPath(path), "not a plain project path");

/** Where a pre-image's bytes are. */
const BeforeSchema = z.union([
  z.null(),
  z.object({
    mode: z.number().int().nonnegative().nullable(),
    size: z.number().int().nonnegative(),
    pack: z.enum(["first", "again"]),
    offset: z.number().int().nonnegative(),
  }).strict(),
]);

const IntendedSchema = z.union([
  z.null(),
  z.object({
    mode: z.number().int().nonnegative().nullable(),
    size: z.number().int().nonnegative(),
    hash: z.string().regex(/^[0-9a-f]{16}$/),
  }).strict(),
]);

/** One apply's record: what it is about to do. */
export const RecordSchema = z.object({
  version: z.literal(1),
  run: z.string(),
  apply: z.number().int().positive(),
  /** A reply's apply, or the apply of `--undo`. */
  kind: z.enum(["reply", "undo"]),
  /** The run's log folder of this apply, when it has one. */
  logDir: z.string().optional(),
  entries: z.array(
    z.object({
      path: relativePath,
      before: BeforeSchema,
      /** What the apply meant to write there (absent in a record of an older code-commit). */
      intended: z.array(IntendedSchema).optional(),
    }).strict(),
  ),
  folders: z.array(relativePath),
  temporaries: z.array(z.string().refine(temporaryPath, "not a temporary file's path")),
}).strict();

/** One apply's record, as read back. */
export type ApplyRecord = z.infer<typeof RecordSchema>;

const StateSchema = z.union([
  z.null(),
  z.object({
    mode: z.number().int().nonnegative().nullable(),
    size: z.number().int().nonnegative(),
    hash: z.string().regex(/^[0-9a-f]{16}$/),
    lines: z.number().int().nonnegative(),
  }).strict(),
]);

/** One completed apply's mark. */
export const DoneSchema = z.object({
  version: z.literal(1),
  run: z.string(),
  apply: z.number().int().positive(),
  post: z.array(z.object({ path: relativePath, after: StateSchema }).strict()),
}).strict();

/** One completed apply's mark: the state it left each path in. */
export type DoneRecord = z.infer<typeof DoneSchema>;

/** What says which run and apply a record belongs to, and what it was (its entries unchecked). */
export const RecordHeaderSchema = RecordSchema.pick({
  version: true,
  run: true,
  apply: true,
  kind: true,
  logDir: true,
}).passthrough();

/** What says which run and apply a mark belongs to (its post states unchecked). */
export const DoneHeaderSchema = DoneSchema.pick({ version: true, run: true, apply: true })
  .passthrough();

/** A record's header alone, as an {@link ApplyRecord} with no entries, folders or temporaries. */
export function recordHeader(header: z.infer<typeof RecordHeaderSchema>): ApplyRecord {
  const { version, run, apply, kind, logDir } = header;
  return {
    version,
    run,
    apply,
    kind,
    ...(logDir === undefined ? {} : { logDir }),
    entries: [],
    folders: [],
    temporaries: [],
  };
}

/** A mark's header alone, as a {@link DoneRecord} with no post states. */
export function doneHeader(header: z.infer<typeof DoneHeaderSchema>): DoneRecord {
  return { version: header.version, run: header.run, apply: header.apply, post: [] };
}

/**
 * A path the journal may name: relative, `/`-separated, no `.`/`..` or empty
 * segment, accepted by the guard's syntax check, and not protected (a
 * journal edited by hand can never make a rollback write `build.sh` or
 * `agent-config/`), except for `agent-state/`, where code-commit itself
 * records what the auto workflow passed. Never throws.
 */
function plainPath(path: string): boolean {
  return checkPathSyntax(path) === undefined && !path.startsWith("./") &&
    protectedRulesFor(path).every((rule) => rule.name === STATE_DIR);
}

/** code-commit's own state (the specification cache), which its runs record as they change it. */
export const STATE_DIR = "agent-state";

/** A temporary file's path: a plain folder, then `.<name>.code-commit-<16 hex>.tmp`. */
function temporaryPath(path: string): boolean {
  const slash = path.lastIndexOf("/");
  const name = path.slice(slash + 1);
  if (!isTemporaryName(name)) return false;
  return slash < 0 || plainPath(path.slice(0, slash));
}

/** The names of the files of apply `n` in the journal folder. */
export function applyFiles(
  n: number,
): { record: string; done: string; first: string; again: string } {
  const stem = `apply-${n}`;
  return {
    record: `${stem}.record`,
    done: `${stem}.done`,
    first: `${stem}.first`,
    again: `${stem}.again`,
  };
}

/** The journal could not be read or written. Exit status 3 (`EXIT.setup`). */
export class JournalError extends CodeCommitError {
  /** Makes the error; `message` is the whole user-facing line. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, EXIT.setup, options);
    this.name = "JournalError";
  }
}
