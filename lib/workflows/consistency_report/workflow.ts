/**
 * The consistency report: one LLM call whose reply, formatted, becomes
 * `agent-config/consistency-report.txt`. It never changes a project file nor runs the build,
 * whatever the reply holds.
 * @module
 */
import { AGENT_CONFIG_DIR } from "../../guard/protected_paths.ts";
import { joinPrompt, section } from "../../prompts/layout.ts";
import { prepareCodebase } from "../../context_builder/context_builder.ts";
import { CodeCommitError, EXIT, type ExitStatus, messageOf } from "../../errors/errors.ts";
import { denoFileSystem, under } from "../../file_system/file_system.ts";
import { describeEntry, lstatOrUndefined } from "../../file_system/lstat.ts";
import { checkRealFolder } from "../../file_system/real_folders.ts";
import { writeAtomically } from "../../file_system/write_atomically.ts";
import { SINGLE_QUERY, SLUGS } from "../../logger/log_names.ts";
import { RunLog } from "../../logger/run_log.ts";
import {
  CONSISTENCY_REPORT_FILE as REPORT_FILE,
  readQuery,
} from "../../preconditions/preconditions.ts";
import { SYSTEM_PROMPTS } from "../../prompts/system_prompts.ts";
import { scanBlocks } from "../../reply/blocks.ts";
import { plural } from "../../text/plural.ts";
import { askModel, type Session } from "../../session/session.ts";
import { formatReport, REPORT_HEADINGS } from "./report.ts";

/** The consistency prompt; without `codebase` (the context builder's input), no codebase section. */
function consistencyPrompt(query: string, codebase?: string): string {
  return joinPrompt([
    SYSTEM_PROMPTS.consistencyReport,
    section("query", query),
    ...(codebase === undefined ? [] : [section("codebase", codebase)]),
  ]);
}

/**
 * Runs the consistency report: 0 once written, even with headings missing.
 * @throws {CodeCommitError} for a missing input, an unsafe or unwritable report; exit 4 for an
 * empty reply or one with no heading (the old report stays).
 * @throws {LlmError} when the call fails; {InterruptedError} on Ctrl-C.
 */
export async function runConsistencyReport(session: Session): Promise<ExitStatus> {
  const { root, options, console, client } = session;
  const query = await readQuery(root);
  const codebaseFor = await prepareCodebase(session);
  await checkReportDestination(root);

  const log = await RunLog.create(root, SLUGS.consistencyReport, session.redactor);
  session.record.logDir = log.dir;
  console.info(`consistency report with ${options.model}; logs in ${log.dir}`);
  const codebase = await codebaseFor({ nextAgentPrompt: consistencyPrompt(query), log });

  console.info(`asking ${client.model} for the consistency report`);
  const reply = await askModel(session, log, SINGLE_QUERY, consistencyPrompt(query, codebase));

  const report = formatReport(reply.text);
  if (report.text.trim() === "") {
    throw new CodeCommitError(
      `the reply of ${client.model} is empty, so no report was written (${REPORT_FILE} is unchanged); ` +
        `see ${log.path(SINGLE_QUERY.replyJson)}`,
      EXIT.model,
    );
  }
  if (report.missing.length === REPORT_HEADINGS.length) {
    // Not a report at all (a refusal, an answer to another question): the last good report stays.
    throw new CodeCommitError(
      `the reply of ${client.model} has none of the ${REPORT_HEADINGS.length} section headings, ` +
        `so it is no consistency report and was not written: ${REPORT_FILE} is unchanged; ` +
        `see ${log.path(SINGLE_QUERY.replyText)}, then run again`,
      EXIT.model,
    );
  }
  if (reply.truncated) {
    console.warn("the reply was cut off at the model's output limit; the report may end early");
  }
  if (report.missing.length > 0) {
    const named = report.missing.map((heading) => `"${heading}"`).join(", ");
    console.warn(
      `the reply lacks ${report.missing.length} of the ${REPORT_HEADINGS.length} section headings ` +
        `(no section ${named}); the report is written anyway`,
    );
  }
  if (scanBlocks(reply.text).items.some((item) => item.kind === "block")) {
    console.info(
      "the reply holds ^^^ file blocks; a consistency report never changes files: they are kept as report text",
    );
  }

  await writeReport(root, session.redactor.redact(report.text));
  const found = REPORT_HEADINGS.length - report.missing.length;
  console.result(
    `consistency report: ${found} of ${REPORT_HEADINGS.length} sections; ` +
      `${plural(session.tally.calls, "LLM call")}, ${session.tally.describe()}; ` +
      `logs in ${log.dir}`,
  );
  console.result(REPORT_FILE);
  return EXIT.ok;
}

/**
 * @throws {CodeCommitError} naming the path and what to do unless `agent-config` is a real folder
 * and the report absent or a regular file.
 */
async function checkReportDestination(root: string): Promise<void> {
  const folder = await checkRealFolder(denoFileSystem, root, AGENT_CONFIG_DIR);
  if (!folder.ok) {
    throw new CodeCommitError(
      folder.found === "missing"
        ? `${AGENT_CONFIG_DIR}/ not found: the consistency report is written to ${REPORT_FILE}; create the folder`
        : folder.found === "symlink"
        ? `${AGENT_CONFIG_DIR} is a symbolic link; the consistency report is written only into a real ` +
          `${AGENT_CONFIG_DIR}/ folder: replace the link with a folder`
        : `${AGENT_CONFIG_DIR} is not a folder: it must be the folder of your keys`,
      EXIT.setup,
    );
  }
  const file = await lstatOrUndefined(under(root, REPORT_FILE));
  if (file === undefined || file.isFile) return;
  throw new CodeCommitError(
    `${REPORT_FILE} is ${describeEntry(file)}; code-commit writes the report only as a ` +
      "regular file: remove it",
    EXIT.setup,
  );
}

/**
 * Writes `text` to the report atomically (a reader sees the old or the new one; a failed write
 * keeps the old), checking right before that no link leads it elsewhere.
 * @throws {CodeCommitError} naming the report when it cannot be written safely.
 */
async function writeReport(root: string, text: string): Promise<void> {
  await checkReportDestination(root);
  try {
    await writeAtomically(denoFileSystem, root, REPORT_FILE, new TextEncoder().encode(text));
  } catch (error) {
    throw new CodeCommitError(`cannot write ${REPORT_FILE}: ${messageOf(error)}`, EXIT.setup, {
      cause: error,
    });
  }
}
