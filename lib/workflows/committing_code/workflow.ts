/**
 * The committing-code workflow (the default): query and codebase in, the loop, and one summary line
 * out.
 * @module
 */
import { CodeCommitError, EXIT, type ExitStatus } from "../../errors/errors.ts";
import { plural } from "../../text/plural.ts";
import { SLUGS } from "../../logger/log_names.ts";
import { RunLog } from "../../logger/run_log.ts";
import { checkCleanTree } from "../../preconditions/dirty_tree.ts";
import { checkBuildScript, readQuery } from "../../preconditions/preconditions.ts";
import type { Session } from "../../session/session.ts";
import { prepareCodebase } from "../../context_builder/context_builder.ts";
import { runDryRun } from "./dry_run.ts";
import { runCommitLoop } from "./loop.ts";
import { initialPrompt } from "./prompt_layout.ts";
import { describeLeftChanges, reportRunChanges, REVIEW_CHANGES, stoppedBy } from "./run_changes.ts";

/**
 * Runs committing code (or `--dry-run`): 0 when the build passes, else the loop's status. A tree
 * with uncommitted changes is refused before any LLM call (unless `--force` or `--dry-run`).
 * @throws {CodeCommitError} for a missing file, uncommitted changes, an LLM error or Ctrl-C.
 */
export async function runCommittingCode(session: Session): Promise<ExitStatus> {
  const { root, options, console } = session;
  session.journal.workflow = "committing code";
  // git status runs meanwhile, in a process of its own; its verdict is taken before any LLM call.
  const clean = options.dryRun || options.force
    ? undefined
    : checkCleanTree(root, (line) => console.warn(line));
  clean?.catch(() => {}); // told below, unless an earlier check stops the run first
  const query = await readQuery(root);
  const codebaseFor = await prepareCodebase(session);
  await checkBuildScript(root);
  await clean;

  const log = await RunLog.create(root, SLUGS.committingCode, session.redactor);
  session.record.logDir = log.dir;
  const dryRun = options.dryRun ? " (dry run)" : "";
  console.info(`committing code with ${options.model}${dryRun}; logs in ${log.dir}`);
  const codebase = await codebaseFor({ nextAgentPrompt: initialPrompt(query), log });
  if (options.dryRun) return await runDryRun(session, log, query, codebase);

  const tokens = () => `${plural(session.tally.calls, "LLM call")}, ${session.tally.describe()}`;
  let result;
  try {
    result = await runCommitLoop(session, log, query, codebase);
  } catch (error) {
    if (error instanceof CodeCommitError && session.journal.touched().size > 0) {
      const changes = await reportRunChanges(session, log);
      console.result(
        `committing code: ${stoppedBy(error)}; ${describeLeftChanges(changes.length)}; ` +
          `${tokens()}; logs in ${log.dir}`,
      );
    }
    throw error;
  }
  const changes = await reportRunChanges(session, log);
  const repairs = result.attempts - 1;
  const files = changes.length === 0
    ? "no file changed"
    : `${plural(changes.length, "file")} changed`;
  const tries = `${plural(result.attempts, "attempt")} (${plural(repairs, "repair")})`;
  if (result.status === EXIT.ok) {
    console.result(
      `committing code: build passed after ${tries}; ${files}; ${tokens()}; logs in ${log.dir}`,
    );
    return EXIT.ok;
  }
  console.result(
    `committing code: build still failing after ${tries}; ` +
      `${files}${changes.length > 0 ? ` (left in place: ${REVIEW_CHANGES})` : ""}; ` +
      `${tokens()}; logs in ${log.dir}`,
  );
  return result.status;
}
