/**
 * The apply journal's format on disk, in `agent-config/journal/` (ignored by
 * git, never writable by a reply, hidden from a contained build). Before an
 * apply writes anything, what each path held, the folders it will make and
 * its temporary files are recorded and synced; an apply without its
 * completion mark is rolled back by the next start (`recovery.ts`).
 *
 * Per apply `n`: `apply-<n>.first` / `.again` (the pre-images' bytes, back
 * to back: paths first touched by this run / touched again), `.record` (what
 * the apply is about to do, written last and synced), `.done` (the state it
 * left each path in, which `--undo` compares against). `run.json` names the
 * run the applies belong to; `next-run.json` is a new run whose first apply
 * has not completed yet (renamed over `run.json` once it has), so a run that
 * changes nothing leaves the previous run undoable. Only project files are
 * copied, never `agent-config/` (so never a key).
 *
 * @module
 */

import { z } from "zod";
import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import { isTemporaryName } from "../file_system/temporary_name.ts";
import { checkPathSyntax } from "../guard/path_syntax.ts";
import { protectedRulesFor } from "../guard/protected_paths.ts";

/** The journal's folder, relative to the project root. */
export const JOURNAL_DIR = "agent-config/journal";

/** What a path held: its bytes and permission bits, or `null` when nothing was there. */
export type PreImage = { readonly data: Uint8Array; readonly mode: number | null } | null;

/** The header of the run the applies belong to. */
export const RUN_FILE = "run.json";
/** The header of a run whose first apply has not completed: it becomes `run.json` once one has. */
export const NEXT_RUN_FILE = "next-run.json";

/** A run's header (`id` random per run; `undoneAt` set once `--undo` took it back). */
export const RunSchema = z.object({
  version: z.literal(1),
  id: z.string().min(1),
  workflow: z.string(),
  startedAt: z.string(),
  undoneAt: z.string().optional(),
}).strict();

/** A run's header. */
export type RunHeader = z.infer<typeof RunSchema>;

const relativePath = z.string().refine((path) => plainPath(path), "not a plain project path");
const size = z.number().int().nonnegative();
const mode = size.nullable();

const IntendedObject = z.object({ mode, size, hash: z.string().regex(/^[0-9a-f]{16}$/) })
  .strict();

/**
 * A state an apply means to leave a path in: `null` (a delete), or a file's
 * mode (`null`: the file system's), size and {@link contentHash}.
 */
export type IntendedState = z.infer<typeof IntendedObject> | null;

const StateSchema = IntendedObject.extend({ lines: size }).nullable();

/** The state an apply left a file in (its line count too), as `--undo` checks it; null: none. */
export type FileState = z.infer<typeof StateSchema>;

/** The state one path was left in by an apply. */
export interface PostState {
  readonly path: string;
  readonly after: FileState;
}

/** One apply's record: what it is about to do (`intended` is absent in an older record). */
export const RecordSchema = z.object({
  version: z.literal(1),
  run: z.string(),
  apply: z.number().int().positive(),
  kind: z.enum(["reply", "undo"]),
  logDir: z.string().optional(),
  entries: z.array(
    z.object({
      path: relativePath,
      before: z.object({ mode, size, pack: z.enum(["first", "again"]), offset: size }).strict()
        .nullable(),
      intended: z.array(IntendedObject.nullable()).optional(),
    }).strict(),
  ),
  folders: z.array(relativePath),
  temporaries: z.array(z.string().refine(temporaryPath, "not a temporary file's path")),
}).strict();

/** One apply's record, as read back. */
export type ApplyRecord = z.infer<typeof RecordSchema>;

/** One completed apply's mark: the state it left each path in. */
export const DoneSchema = z.object({
  version: z.literal(1),
  run: z.string(),
  apply: z.number().int().positive(),
  post: z.array(z.object({ path: relativePath, after: StateSchema }).strict()),
}).strict();

/** One completed apply's mark. */
export type DoneRecord = z.infer<typeof DoneSchema>;

/** What says which run and apply a record belongs to, and what it was (its entries unchecked). */
export const RecordHeaderSchema = RecordSchema.pick({
  version: true,
  run: true,
  apply: true,
  kind: true,
  logDir: true,
}).strip();

/** What says which run and apply a mark belongs to (its post states unchecked). */
export const DoneHeaderSchema = DoneSchema.pick({ version: true, run: true, apply: true }).strip();

/**
 * A path the journal may name: relative, accepted by the guard's syntax
 * check, and not protected (a journal edited by hand can never make a
 * rollback write `build.sh` or `agent-config/`), except for `agent-state/`,
 * which code-commit's own runs record as they change it. Never throws.
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
  return isTemporaryName(path.slice(slash + 1)) && (slash < 0 || plainPath(path.slice(0, slash)));
}

/** The names of the files of apply `n` in the journal folder. */
export function applyFiles(n: number): Record<"record" | "done" | "first" | "again", string> {
  return {
    record: `apply-${n}.record`,
    done: `apply-${n}.done`,
    first: `apply-${n}.first`,
    again: `apply-${n}.again`,
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

/** The {@link JournalError} saying `what` failed, the system's reason, then `tail`. */
export function journalFailure(what: string, error: unknown, tail = ""): JournalError {
  return new JournalError(`${what}: ${messageOf(error)}${tail}`, { cause: error });
}
