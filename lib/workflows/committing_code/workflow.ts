/**
 * The committing-code workflow (the default): query and codebase in, the
 * loop, and one summary line out.
 *
 * @module
 */
import { EXIT } from "../../errors/errors.ts";
import { plural } from "../../text/plural.ts";
import { SLUGS } from "../../logger/log_names.ts";
import { RunLog } from "../../logger/run_log.ts";
import { checkBuildScript, readQuery } from "../../preconditions/preconditions.ts";
import type { Session } from "../../session/session.ts";
import { prepareCodebase } from "../../context_builder/context_builder.ts";
import { runCommitLoop } from "./loop.ts";
import { initialPrompt } from "./prompt_layout.ts";

/**
 * Runs committing code in the session's project. Returns 0 when the build
 * passes, 1 when the repairs are spent.
 *
 * @throws {CodeCommitError} for a missing file, an LLM error or Ctrl-C.
 */
export async function runCommittingCode(session: Session): Promise<number> {
  const { root, options, console } = session;
  const query = await readQuery(root);
  const codebaseFor = await prepareCodebase(session);
  await checkBuildScript(root);

  const log = await RunLog.create(root, SLUGS.committingCode, session.redactor);
  console.info(`committing code with ${options.model}; logs in ${log.dir}`);
  const codebase = await codebaseFor({ nextAgentPrompt: initialPrompt(query), log });

  const result = await runCommitLoop(session, log, query, codebase);
  const repairs = result.attempts - 1;
  const files = `${plural(result.changedPaths.length, "file")} changed`;
  const tokens = `${plural(session.tally.calls, "LLM call")}, ${session.tally.describe()}`;
  const tries = `${plural(result.attempts, "attempt")} (${plural(repairs, "repair")})`;
  if (result.passed) {
    console.result(
      `committing code: build passed after ${tries}; ${files}; ${tokens}; logs in ${log.dir}`,
    );
    return EXIT.ok;
  }
  console.result(
    `committing code: build still failing after ${tries}; ` +
      `${files}${
        result.changedPaths.length > 0 ? " (left in place: review them with git diff)" : ""
      }; ` +
      `${tokens}; logs in ${log.dir}`,
  );
  return EXIT.failed;
}
