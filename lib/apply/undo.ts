/**
 * `code-commit --undo`: takes the most recent run that changed files back
 * as a whole, from the journal's pre-images: replaced files get their
 * bytes and modes back, created files and the folders the run made are
 * removed, deleted files come back. All or nothing: when any of the run's
 * paths changed since the run (a hand edit), nothing is restored unless
 * forced. The restore is an apply like any other, recorded in the journal
 * first, so an interrupted undo is rolled back at the next start and can
 * be done again. A run undone is marked so, and is not undone twice.
 *
 * @module
 */

import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { denoFileSystem, type FileSystem, under } from "../file_system/file_system.ts";
import { removeIfPresent } from "../file_system/write_atomically.ts";
import { type ChangedFile, nameSome } from "../text/change_list.ts";
import { countFileLineChanges } from "../text/diff.ts";
import { formatUtc } from "../text/numbers.ts";
import { plural } from "../text/plural.ts";
import { type ApplyOperation, applyOperations } from "./apply.ts";
import { contentHash } from "./content_hash.ts";
import { undoRecorder } from "./journal_recorder.ts";
import { type FileState, type PreImage, type RunHeader } from "./journal_schema.ts";
import { markUndone, readJournal, readPreImage, type StoredJournal } from "./journal_store.ts";

/** One path the run changed, as the undo will restore it. */
interface UndoPath {
  readonly path: string;
  /** What it held before the run. */
  readonly before: PreImage;
  /** What the run left there. */
  readonly after: FileState;
}

/** A path that changed since the run, and how. */
export interface ChangedSince {
  /** The path. */
  readonly path: string;
  /** What happened to it: `edited`, `removed`, `created`, `not a file`. */
  readonly how: string;
}

/** What `--undo` would do, or why there is nothing to do. */
export type UndoPlan =
  | {
    readonly kind: "nothing";
    /** Why, in one sentence. */
    readonly reason: string;
  }
  | {
    readonly kind: "ready";
    /** The run. */
    readonly run: RunHeader;
    /** The run's log folders. */
    readonly logDirs: readonly string[];
    /** The paths to restore. */
    readonly paths: readonly UndoPath[];
    /** The run's paths that changed since the run. */
    readonly changedSince: readonly ChangedSince[];
    /** The folders the run made, from the top. */
    readonly folders: readonly string[];
    readonly stored: StoredJournal;
  };

/** What `--undo` did. */
export interface UndoResult {
  /** The run taken back. */
  readonly run: RunHeader;
  /** Its log folders. */
  readonly logDirs: readonly string[];
  /** Each path restored: what the run had done to it, and the lines the undo adds and removes. */
  readonly restored: readonly ChangedFile[];
  /** Paths restored over changes made since the run (`--force`). */
  readonly overwritten: readonly ChangedSince[];
  /** Folders the run made that now hold other files: left in place. */
  readonly foldersKept: readonly string[];
}

/**
 * Reads the journal of the project at `root` and says what `--undo` would
 * restore, and which of those paths changed since the run.
 *
 * @throws {JournalError} when the journal cannot be read.
 */
export async function planUndo(
  root: string,
  fs: FileSystem = denoFileSystem,
): Promise<UndoPlan> {
  const stored = await readJournal(root);
  const run = stored.run;
  if (run === undefined) {
    return {
      kind: "nothing",
      reason: "no run of code-commit has changed files in this project (its journal, " +
        "agent-config/journal/, holds none)",
    };
  }
  const completed = stored.applies.filter((apply) =>
    apply.done !== undefined && apply.record.run === run.id
  );
  const runDescription = `the most recent run that changed files (${run.workflow}, started ${
    formatUtc(run.startedAt)
  })`;
  if (run.undoneAt !== undefined || completed.some((apply) => apply.record.kind === "undo")) {
    if (run.undoneAt === undefined) await markUndone(stored, run, new Date());
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

  const packs = new Map<string, Uint8Array>();
  const before = new Map<string, PreImage>();
  const after = new Map<string, FileState>();
  const folders: string[] = [];
  const logDirs: string[] = [];
  for (const apply of completed) {
    for (const entry of apply.record.entries) {
      if (!before.has(entry.path)) {
        before.set(entry.path, await readPreImage(stored.dir, apply.n, entry.before, packs));
      }
    }
    for (const state of apply.done!.post) after.set(state.path, state.after);
    for (const folder of apply.record.folders) if (!folders.includes(folder)) folders.push(folder);
    const logDir = apply.record.logDir;
    if (logDir !== undefined && !logDirs.includes(logDir)) logDirs.push(logDir);
  }
  const paths: UndoPath[] = [];
  for (const [path, image] of before) {
    const state = after.get(path) ?? null;
    if (sameState(image, state)) continue; // the run left it as it found it
    paths.push({ path, before: image, after: state });
  }
  if (paths.length === 0) {
    return { kind: "nothing", reason: `${runDescription} left every file as it found it` };
  }
  const changedSince: ChangedSince[] = [];
  for (const entry of paths) {
    const how = await changeSince(fs, root, entry.path, entry.after);
    if (how !== undefined) changedSince.push({ path: entry.path, how });
  }
  return { kind: "ready", run, logDirs, paths, changedSince, folders, stored };
}

/**
 * Restores every path of `plan` (after {@link planUndo}), removes the
 * folders the run made (those now empty), and marks the run undone.
 *
 * @throws {CodeCommitError} naming the paths when some changed since the
 * run and `force` is false (nothing restored); an `ApplyError` when the
 * restore failed (rolled back).
 */
export async function runUndo(
  root: string,
  plan: Extract<UndoPlan, { kind: "ready" }>,
  force: boolean,
  fs: FileSystem = denoFileSystem,
): Promise<UndoResult> {
  if (plan.changedSince.length > 0 && !force) {
    const shown = nameSome(
      plan.changedSince.map((change) => `${change.path} (${change.how})`),
      { limit: 10 },
    );
    throw new CodeCommitError(
      `nothing was restored: ${plural(plan.changedSince.length, "path")} the run changed ` +
        `${
          plan.changedSince.length === 1 ? "has" : "have"
        } changed since: ${shown}. Save what you want to keep, then run ` +
        "code-commit --undo --force to restore them anyway (what changed since is lost)",
      EXIT.setup,
    );
  }
  const operations: ApplyOperation[] = plan.paths.map((entry) =>
    entry.before === null ? { kind: "delete", path: entry.path } : {
      kind: "write",
      path: entry.path,
      content: entry.before.data,
      ...(entry.before.mode === null ? {} : { mode: entry.before.mode }),
    }
  );
  const restored: ChangedFile[] = [];
  for (const entry of plan.paths) {
    // Counted from the bytes, never decoded whole; a count that fails leaves the restore alone.
    const counts = countFileLineChanges(
      await readBytes(fs, root, entry.path),
      entry.before?.data ?? null,
    );
    const kind = entry.before === null ? "created" : entry.after === null ? "deleted" : "replaced";
    restored.push({ path: entry.path, kind, added: counts?.added, removed: counts?.removed });
  }
  await applyOperations(root, operations, { fs, recorder: undoRecorder(plan.stored, plan.run) });
  const foldersKept: string[] = [];
  for (const folder of [...plan.folders].reverse()) {
    try {
      await removeIfPresent(fs, root, folder);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) foldersKept.push(folder);
    }
  }
  await markUndone(await readJournal(root), plan.run, new Date());
  return {
    run: plan.run,
    logDirs: plan.logDirs,
    restored,
    overwritten: force ? plan.changedSince : [],
    foldersKept,
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
  fs: FileSystem,
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
async function readBytes(fs: FileSystem, root: string, path: string): Promise<Uint8Array | null> {
  try {
    const info = await fs.lstat(under(root, path));
    if (!info.isFile) return null;
    return await fs.readFile(under(root, path));
  } catch {
    return null;
  }
}
