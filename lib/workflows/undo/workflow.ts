/**
 * `code-commit --undo`: takes back the most recent run that changed files, as a whole; no LLM call,
 * no key, no network.
 * @module
 */
import { RunRecord } from "../../cli/json_result.ts";
import { recoverFirst } from "../../apply/recovery.ts";
import { planUndo, runUndo } from "../../apply/undo.ts";
import type { RunOptions } from "../../cli/args.ts";
import type { Console } from "../../console/console.ts";
import { CodeCommitError, EXIT, type ExitStatus } from "../../errors/errors.ts";
import { SLUGS, UNDO_LIST } from "../../logger/log_names.ts";
import { RunLog } from "../../logger/run_log.ts";
import { checkRepositoryRoot } from "../../preconditions/repository.ts";
import { compareCodePoints } from "../../project_files/order.ts";
import { Redactor } from "../../secrets/redact.ts";
import { cutList, formatLineCounts } from "../../text/change_list.ts";
import { formatCount, formatUtc } from "../../text/numbers.ts";
import { plural } from "../../text/plural.ts";

/** What the undo does to each kind of change the run made, in the order the summary names them. */
const UNDONE = {
  created: { verb: "removed", why: " (the run created it)", now: "deleted" },
  replaced: { verb: "restored", why: "", now: "replaced" },
  deleted: { verb: "put back", why: " (the run deleted it)", now: "created" },
} as const;

/**
 * Runs `--undo`: rolls back an interrupted apply (with `--force`, even over paths changed since),
 * then restores every path the last run changed.
 * @throws {CodeCommitError} from a subfolder; with nothing to undo, or paths changed since without
 * `--force`; an `ApplyError` when the restore failed.
 */
export async function runUndoWorkflow(
  root: string,
  options: RunOptions,
  console: Console,
  record: RunRecord = new RunRecord(),
): Promise<ExitStatus> {
  await checkRepositoryRoot(root, false);
  const recovered = await recoverFirst(root, (line) => console.warn(line), {
    force: options.force,
  });
  const planned = await planUndo(root);
  if (planned.kind === "nothing") {
    if (recovered) {
      console.result(
        `undo: took back the interrupted apply (see above); nothing else to undo: ${planned.reason}`,
      );
      return EXIT.ok;
    }
    throw new CodeCommitError(`nothing to undo: ${planned.reason}`, EXIT.setup);
  }
  const plan = {
    ...planned,
    paths: [...planned.paths].sort((a, b) => compareCodePoints(a.path, b.path)),
    changedSince: [...planned.changedSince].sort((a, b) => compareCodePoints(a.path, b.path)),
  };
  const when = plan.logDirs.length > 0
    ? `logged in ${plan.logDirs[0]}`
    : `started ${formatUtc(plan.run.startedAt)}`;
  const which = `the ${plan.run.workflow} run ${when}`;
  console.info(`undo: taking back ${which} (${plural(plan.paths.length, "file")})`);
  const result = await runUndo(root, plan, options.force);

  const lines = result.restored.map((file) => {
    const { verb, why } = UNDONE[file.kind];
    return `  ${verb.padEnd(8)}  ${file.path}  ${formatLineCounts(file)}${why}`;
  });
  const log = await RunLog.create(root, SLUGS.undo, new Redactor());
  record.logDir = log.dir;
  // What the undo itself changed: a file the run created is deleted now, and the other way round.
  record.changes = result.restored.map((file) => ({
    path: file.path,
    kind: UNDONE[file.kind].now,
    added: file.removed,
    removed: file.added,
  }));
  await log.write(UNDO_LIST, `${lines.join("\n")}\n`);
  for (const change of result.overwritten) {
    console.warn(`${change.path} was ${change.how} since the run; restored anyway (--force)`);
  }
  for (const folder of result.foldersKept) {
    console.warn(`${folder}/ was made by the run but now holds other files: left in place`);
  }
  console.result(cutList(lines, log.path(UNDO_LIST)).join("\n"));
  const kinds = Object.entries(UNDONE).flatMap(([kind, { verb }]) => {
    const count = result.restored.filter((file) => file.kind === kind).length;
    return count > 0 ? [`${formatCount(count)} ${verb}`] : [];
  }).join(", ");
  console.result(
    `undo: took back ${which}: ${plural(result.restored.length, "file")} (${kinds}); ` +
      `it cannot be undone again; list in ${log.path(UNDO_LIST)}`,
  );
  return EXIT.ok;
}
