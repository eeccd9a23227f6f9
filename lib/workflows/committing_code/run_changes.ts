/**
 * What a run changed, told at the end: every path its applies changed (but code-commit's records in
 * `agent-state/`), from the journal, with the lines added and removed. A path changed and then
 * changed back is not listed.
 * @module
 */
import { contentHash } from "../../apply/content_hash.ts";
import { type RunJournal } from "../../apply/journal.ts";
import { STATE_DIR } from "../../apply/journal_store.ts";
import { InterruptedError } from "../../errors/errors.ts";
import { denoFileSystem, under } from "../../file_system/file_system.ts";
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
 * The files the run of `journal` changed, by path, each against what it held before the run.
 * @throws {JournalError} when the journal cannot be read.
 */
async function describeRunChanges(root: string, journal: RunJournal): Promise<ChangedFile[]> {
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
      const now = await currentBytes(root, path) ?? new Uint8Array();
      changes.push({ path, kind: "replaced", ...countByteLineChanges(before.data, now) });
    }
  }
  return changes;
}

/** The bytes of the regular file at `path`; null when there is none (or something else is there). */
async function currentBytes(root: string, path: string): Promise<Uint8Array | null> {
  try {
    const info = await denoFileSystem.lstat(under(root, path));
    if (!info.isFile) return null;
    return await denoFileSystem.readFile(under(root, path));
  } catch {
    return null;
  }
}

/**
 * Prints what the session's run changed (the first twenty files), writes the whole list to `log`,
 * notes it in the record and returns it.
 * @throws {JournalError} when the journal cannot be read; a `CodeCommitError` when the log cannot
 * be written.
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

/** How the final line of a run `error` ended goes on after the workflow's name. Never throws. */
export function stoppedBy(error: unknown): string {
  return error instanceof InterruptedError ? "interrupted" : "stopped by the error below";
}

/** What a run that stopped early left behind, for its final line. Never throws. */
export function describeLeftChanges(count: number, what = ""): string {
  return count === 0
    ? "no file changed"
    : `${plural(count, "file")} changed${what}, left in place (${REVIEW_CHANGES})`;
}
