/**
 * What a run changed, as it tells its user at the end: every path its
 * applies changed (but code-commit's own records in `agent-state/`), from
 * the journal — what the path held before the run against what the run
 * left there: created, replaced or deleted, with the lines added and
 * removed (a created file's lines were counted as it was written; a
 * replaced one is read back for the diff). A path the run changed and then
 * changed back is not listed.
 *
 * @module
 */

import { contentHash } from "../../apply/content_hash.ts";
import { type RunJournal } from "../../apply/journal.ts";
import { STATE_DIR } from "../../apply/journal_store.ts";
import { InterruptedError } from "../../errors/errors.ts";
import { denoFileSystem, type FileSystem, under } from "../../file_system/file_system.ts";
import { CHANGES_LIST } from "../../logger/log_names.ts";
import type { RunLog } from "../../logger/run_log.ts";
import { compareCodePoints } from "../../project_files/order.ts";
import type { Session } from "../../session/session.ts";
import {
  type ChangedFile,
  countKinds,
  cutList,
  formatChangedFiles,
} from "../../text/change_list.ts";
import { countByteLineChanges, countLines } from "../../text/diff.ts";
import { plural } from "../../text/plural.ts";

/**
 * The files the run of `journal` changed in the project at `root`, by
 * path, each against what it held before the run.
 *
 * @throws {JournalError} when the journal cannot be read.
 */
export async function describeRunChanges(
  root: string,
  journal: RunJournal,
  fs: FileSystem = denoFileSystem,
): Promise<ChangedFile[]> {
  const runChanges = await journal.runChanges();
  const changes: ChangedFile[] = [];
  for (const path of [...runChanges.keys()].sort(compareCodePoints)) {
    // code-commit's own records (the auto workflow's cache): not the project's code.
    if (path.startsWith(`${STATE_DIR}/`)) continue;
    const { before, after } = runChanges.get(path)!;
    if (before === null && after === null) continue;
    if (before === null) {
      // Created: the journal counted its lines as it wrote them.
      changes.push({ path, kind: "created", added: after!.lines, removed: 0 });
    } else if (after === null) {
      changes.push({ path, kind: "deleted", added: 0, removed: countLines(before.data) });
    } else if (
      before.data.length !== after.size || contentHash(before.data) !== after.hash ||
      (before.mode !== null && after.mode !== null && before.mode !== after.mode)
    ) {
      const now = await currentBytes(fs, root, path) ?? new Uint8Array();
      const counts = countByteLineChanges(before.data, now);
      changes.push({ path, kind: "replaced", ...counts });
    }
  }
  return changes;
}

/** The bytes of the regular file at `path`; null when there is none (or something else is there). */
async function currentBytes(
  fs: FileSystem,
  root: string,
  path: string,
): Promise<Uint8Array | null> {
  try {
    const info = await fs.lstat(under(root, path));
    if (!info.isFile) return null;
    return await fs.readFile(under(root, path));
  } catch {
    return null;
  }
}

/**
 * Tells the user what the session's run changed, before its summary line:
 * the files with their lines added and removed on stdout (the first twenty
 * and a count), the whole list in `log` (`changes.txt`). Prints nothing when
 * the run changed nothing. Returns the changes, and notes them in the
 * session's record.
 *
 * @throws {JournalError} when the journal cannot be read; a `CodeCommitError` when the log cannot be written.
 */
export async function reportRunChanges(session: Session, log: RunLog): Promise<ChangedFile[]> {
  const changes = await describeRunChanges(session.root, session.journal);
  session.record.changes = changes;
  if (changes.length === 0) return changes;
  const lines = formatChangedFiles(changes);
  await log.write(CHANGES_LIST, `${lines.join("\n")}\n`);
  session.console.result(
    [
      `${plural(changes.length, "file")} changed by this run (${countKinds(changes)}):`,
      ...cutList(lines, log.path(CHANGES_LIST)),
    ].join("\n"),
  );
  return changes;
}

/** What to do with files a run left changed: the words every stop message uses. */
export const REVIEW_CHANGES =
  "see them with git status and git diff, or take the whole run back with code-commit --undo";

/**
 * How the final line of a run that `error` ended begins, after the
 * workflow's name: `interrupted` for Ctrl-C or a stop signal (that is not
 * an error), `stopped by the error below` otherwise. Never throws.
 */
export function stoppedBy(error: unknown): string {
  return error instanceof InterruptedError ? "interrupted" : "stopped by the error below";
}

/**
 * What a run that stopped early left behind, for its final line:
 * `no file changed`, or `2 files changed<what>, left in place (<how to
 * review them>)`. Never throws.
 */
export function describeLeftChanges(count: number, what = ""): string {
  return count === 0
    ? "no file changed"
    : `${plural(count, "file")} changed${what}, left in place (${REVIEW_CHANGES})`;
}
