/**
 * `code-commit --undo`: takes the most recent run back as a whole, all or
 * nothing, never over a change made since unless forced; the restore is an
 * apply recorded like any other, and a run is undone once.
 *
 * @module
 */

import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { denoFileSystem as fs, under } from "../file_system/file_system.ts";
import { removeIfPresent } from "../file_system/write_atomically.ts";
import { type ChangedFile, nameSome } from "../text/change_list.ts";
import { countFileLineChanges } from "../text/diff.ts";
import { formatUtc } from "../text/numbers.ts";
import { plural } from "../text/plural.ts";
import { type ApplyOperation, applyOperations } from "./apply.ts";
import { contentHash } from "./content_hash.ts";
import { undoJournal } from "./journal.ts";
import type { FileState, PreImage, RunHeader, StoredJournal } from "./journal_store.ts";
import { changesOf, completedOf, markUndone, readJournal } from "./journal_store.ts";

/** A path that changed since the run left it, and how (`edited`, `removed`, …). */
export interface ChangedSince {
  readonly path: string;
  readonly how: string;
}

/** Up to 10 changes, `path (how)`, and how many more. Never throws. */
export function describeChanges(changes: readonly ChangedSince[]): string {
  return nameSome(changes.map((change) => `${change.path} (${change.how})`), { limit: 10 });
}

/** What `--undo` would do (the folders the run made from the top), or why there is nothing to do. */
export type UndoPlan =
  | { readonly kind: "nothing"; readonly reason: string }
  | {
    readonly kind: "ready";
    readonly run: RunHeader;
    readonly logDirs: readonly string[];
    /** Each path the run changed: what it held before the run, and what the run left there. */
    readonly paths: readonly { readonly path: string; before: PreImage; after: FileState }[];
    readonly changedSince: readonly ChangedSince[];
    readonly folders: readonly string[];
    readonly stored: StoredJournal;
  };

/** What `--undo` did: each path restored with its line counts, the folders left in place. */
export interface UndoResult {
  readonly run: RunHeader;
  readonly logDirs: readonly string[];
  readonly restored: readonly ChangedFile[];
  /** Paths restored over changes made since the run (`--force`). */
  readonly overwritten: readonly ChangedSince[];
  readonly foldersKept: readonly string[];
}

/**
 * Says what `--undo` would restore in the project at `root`, and which of
 * those paths changed since the run.
 *
 * @throws {JournalError} when the journal cannot be read.
 */
export async function planUndo(root: string): Promise<UndoPlan> {
  const stored = await readJournal(root);
  const run = stored.run;
  if (run === undefined) {
    return {
      kind: "nothing",
      reason: "no run of code-commit has changed files in this project (its journal, " +
        "agent-config/journal/, holds none)",
    };
  }
  const completed = completedOf(stored, run);
  const runDescription = `the most recent run that changed files (${run.workflow}, started ${
    formatUtc(run.startedAt)
  })`;
  if (run.undoneAt !== undefined || completed.some((apply) => apply.record.kind === "undo")) {
    if (run.undoneAt === undefined) await markUndone(stored, run);
    return {
      kind: "nothing",
      reason: `${runDescription} was undone already${
        run.undoneAt === undefined ? "" : ` (on ${formatUtc(run.undoneAt)})`
      }; a run is undone once`,
    };
  }
  if (completed.length === 0) {
    return { kind: "nothing", reason: `${runDescription} changed no file` };
  }

  const changes = await changesOf(
    stored.dir,
    completed.map(({ n, record, done }) => ({ n, entries: record.entries, post: done!.post })),
  );
  const folders = [...new Set(completed.flatMap((apply) => apply.record.folders))];
  const logDirs = [...new Set(completed.flatMap((apply) => apply.record.logDir ?? []))];
  // A path the run left as it found it is not restored.
  const paths = [...changes].filter(([, { before, after }]) => !sameState(before, after))
    .map(([path, change]) => ({ path, ...change }));
  if (paths.length === 0) {
    return { kind: "nothing", reason: `${runDescription} left every file as it found it` };
  }
  const changedSince: ChangedSince[] = [];
  for (const entry of paths) {
    const how = await changeSince(root, entry.path, entry.after);
    if (how !== undefined) changedSince.push({ path: entry.path, how });
  }
  return { kind: "ready", run, logDirs, paths, changedSince, folders, stored };
}

/**
 * Restores every path of `plan`, removes the folders the run made (those now
 * empty), and marks the run undone.
 *
 * @throws {CodeCommitError} naming the paths when some changed since the
 * run and not `force` (nothing restored); an `ApplyError` when the restore
 * failed (rolled back).
 */
export async function runUndo(
  root: string,
  plan: Extract<UndoPlan, { kind: "ready" }>,
  force: boolean,
): Promise<UndoResult> {
  if (plan.changedSince.length > 0 && !force) {
    const count = plan.changedSince.length;
    const shown = describeChanges(plan.changedSince);
    throw new CodeCommitError(
      `nothing was restored: ${plural(count, "path")} the run changed ${
        count === 1 ? "has" : "have"
      } changed since: ${shown}. Save what you want to keep, then run ` +
        "code-commit --undo --force to restore them anyway (what changed since is lost)",
      EXIT.setup,
    );
  }
  const operations = plan.paths.map((entry) => restoreOperation(entry.path, entry.before));
  const restored: ChangedFile[] = [];
  for (const entry of plan.paths) {
    // Counted from the bytes, never decoded whole; a count that fails leaves the restore alone.
    const counts = countFileLineChanges(
      await readBytes(root, entry.path),
      entry.before?.data ?? null,
    );
    const kind = entry.before === null ? "created" : entry.after === null ? "deleted" : "replaced";
    restored.push({ path: entry.path, kind, added: counts?.added, removed: counts?.removed });
  }
  await applyOperations(root, operations, { journal: undoJournal(plan.stored, plan.run) });
  const foldersKept: string[] = [];
  for (const folder of [...plan.folders].reverse()) {
    try {
      await removeIfPresent(fs, root, folder);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) foldersKept.push(folder);
    }
  }
  await markUndone(await readJournal(root), plan.run);
  const overwritten = force ? plan.changedSince : [];
  return { run: plan.run, logDirs: plan.logDirs, restored, overwritten, foldersKept };
}

/** The operation that puts `before` back at `path` (its bytes and mode, or nothing). */
export function restoreOperation(path: string, before: PreImage): ApplyOperation {
  if (before === null) return { kind: "delete", path };
  return {
    kind: "write",
    path,
    content: before.data,
    ...(before.mode !== null && { mode: before.mode }),
  };
}

/** Whether the pre-image `before` and the state `after` are the same file (or both nothing). */
function sameState(before: PreImage, after: FileState): boolean {
  if (before === null || after === null) return before === null && after === null;
  if (before.data.length !== after.size || before.mode !== after.mode) return false;
  return contentHash(before.data) === after.hash;
}

/** How `path` changed since the run left it in `after`; undefined when it did not. */
async function changeSince(
  root: string,
  path: string,
  after: FileState,
): Promise<string | undefined> {
  let info;
  try {
    info = await fs.lstat(under(root, path));
  } catch {
    return after === null ? undefined : "removed";
  }
  if (!info.isFile) return "no longer a regular file";
  if (after === null) return "created";
  const mode = info.mode === null ? null : info.mode & 0o7777;
  if (after.mode !== null && mode !== after.mode) return "permissions changed";
  const data = await fs.readFile(under(root, path));
  if (data.length !== after.size || contentHash(data) !== after.hash) return "edited";
  return undefined;
}

/** The bytes of the file at `path`, or null when none is there (or it cannot be read). */
async function readBytes(root: string, path: string): Promise<Uint8Array | null> {
  try {
    const info = await fs.lstat(under(root, path));
    if (!info.isFile) return null;
    return await fs.readFile(under(root, path));
  } catch {
    return null;
  }
}
