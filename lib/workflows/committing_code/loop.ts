/**
 * The committing-code loop: the initial query, then up to three repairs while the build fails or a
 * reply cannot be applied. The auto workflow runs it with an inspector that may end it on a reply
 * before that reply is applied.
 * @module
 */
import { EXIT, type ExitStatus, interruption } from "../../errors/errors.ts";
import type { LlmReply } from "../../llm/types.ts";
import { type CallLogNames, INITIAL_QUERY, repairQuery } from "../../logger/log_names.ts";
import type { RunLog } from "../../logger/run_log.ts";
import { askModel, type Session, sessionModel } from "../../session/session.ts";
import {
  buildPassed,
  type BuildResult,
  describeBuildEnd,
  formatBuildForPrompt,
} from "../../build/run_build.ts";
import { estimateTokens } from "../../text/tokens.ts";
import { replyProse } from "../../reply/blocks.ts";
import type { Console } from "../../console/console.ts";
import { applyReply, describeChanges } from "./apply_reply.ts";
import { outsideRefusalStop, runProjectBuild, showBuildTail } from "./build_step.ts";
import { initialPrompt, repairPrompt } from "./prompt_layout.ts";
import { compareCodePoints } from "../../project_files/order.ts";
import type { FileOperation } from "../../reply/operations.ts";
import { cutList, NAMED_AT_MOST } from "../../text/change_list.ts";

const MAX_REPAIRS = 3;

/** At most this many lines of a reply's prose are shown; the log has the rest. */
const PROSE_LINES_SHOWN = 20;

/** How the loop ended. */
export interface CommitLoopResult {
  /**
   * 0 when `./build.sh` passed after an applied reply; else 1 when the last reply was applied, or
   * the status its refusal gives (see `applyReply`).
   */
  readonly status: ExitStatus;
  /** The inspector ended the loop on the last reply, before it was applied. */
  readonly stopped: boolean;
  /** LLM calls made (1 to 4). */
  readonly attempts: number;
  readonly lastReply: LlmReply;
  readonly lastNames: CallLogNames;
  /** Every file the run changed, sorted. */
  readonly changedPaths: readonly string[];
}

/**
 * Runs the loop. `inspect` sees each reply before it is applied and may end the loop there, saying
 * why (for the build log); `prose` picks the lines shown as the model's words (by default all
 * outside blocks).
 * @throws {LlmError} when a call fails; {InterruptedError} on Ctrl-C, at a safe point.
 * @throws {CodeCommitError} when a build cannot start or tampered with `build.sh` or `.gitignore`,
 * or a prompt holds a key.
 */
export async function runCommitLoop(
  session: Session,
  log: RunLog,
  query: string,
  codebase: string,
  options: {
    readonly inspect?: (reply: LlmReply) => string | undefined;
    readonly prose?: (text: string) => string[];
  } = {},
): Promise<CommitLoopResult> {
  // The latest applied change of each path the run changed.
  const applied = new Map<string, FileOperation>();
  let feedback: Feedback = "";
  let status: ExitStatus = EXIT.model;
  let lastReply!: LlmReply;
  let lastNames!: CallLogNames;
  const result = (attempts: number, stopped = false): CommitLoopResult => ({
    status,
    stopped,
    attempts,
    lastReply,
    lastNames,
    changedPaths: [...applied.keys()].sort(compareCodePoints),
  });

  for (let attempt = 0; attempt <= MAX_REPAIRS; attempt++) {
    const names = attempt === 0 ? INITIAL_QUERY : repairQuery(attempt);
    const prompt = attempt === 0
      ? initialPrompt(query, codebase)
      : repairPromptFor(session, feedback, query, codebase, applied);
    session.record.noteAttempt(attempt);
    const model = session.client.model;
    session.console.info(
      attempt === 0
        ? `initial query: asking ${model}`
        : `repair ${attempt} of ${MAX_REPAIRS}: asking ${model}`,
    );
    const reply = await askModel(session, log, names, prompt);
    lastReply = reply;
    lastNames = names;
    status = EXIT.model;

    const stop = options.inspect?.(reply);
    if (stop !== undefined) {
      await log.write(names.build, `build.sh was not run: ${stop}\n`);
      return result(attempt + 1, true);
    }
    showProse(session.console, model, reply.text, log.path(names.replyText), options.prose);

    const attemptResult = await applyAttempt(session, log, names, reply, applied);
    if ("refused" in attemptResult) {
      feedback = attemptResult.refused;
      status = attemptResult.status;
      continue;
    }
    status = EXIT.failed;

    const build = await runProjectBuild(session, log, names.build, attemptResult.warnings);
    if (build.interrupted) throw interruption(session.signal);
    if (buildPassed(build)) {
      session.console.info(`build passed (${describeBuildEnd(build)})`);
      status = EXIT.ok;
      return result(attempt + 1);
    }
    const logPath = log.path(names.build);
    session.console.warn(`build failed (${describeBuildEnd(build)}); see ${logPath}`);
    showBuildTail(session.console, build.output);
    // A path outside the project the sandbox refused: no repair of the code can fix it.
    const refusal = await outsideRefusalStop(session, build, logPath, true);
    if (refusal !== undefined) throw refusal;
    feedback = { build, logPath };
  }
  return result(MAX_REPAIRS + 1);
}

/** Why the last reply was not applied, or the failed build. */
type Feedback = string | { readonly build: BuildResult; readonly logPath: string };

/** Tokens kept for the build's output even when the rest fills the window (the size check then refuses). */
const MIN_OUTPUT_TOKENS = 8_000;

/** Tokens of the prompt's own lines around the output. */
const OUTPUT_FRAME_TOKENS = 200;

/** The repair prompt with `feedback`, a build's output cut to fit the model's input limit; keys masked. */
function repairPromptFor(
  session: Session,
  feedback: Feedback,
  query: string,
  codebase: string,
  applied: ReadonlyMap<string, FileOperation>,
): string {
  if (typeof feedback === "string") return repairPrompt(feedback, query, codebase, applied);
  const rest = estimateTokens(repairPrompt("", query, codebase, applied));
  const room = Math.max(
    MIN_OUTPUT_TOKENS,
    sessionModel(session).inputLimit - rest - OUTPUT_FRAME_TOKENS,
  );
  // Masked again once escape sequences are gone: a key printed with colours inside it is whole now.
  const output = session.redactor.redact(
    formatBuildForPrompt(feedback.build, feedback.logPath, room),
  );
  return repairPrompt(output, query, codebase, applied);
}

/** Applies `reply` (journaled), recording it in `applied`; Ctrl-C waits until it is done or refused. */
async function applyAttempt(
  session: Session,
  log: RunLog,
  names: CallLogNames,
  reply: LlmReply,
  applied: Map<string, FileOperation>,
): Promise<
  | { readonly refused: string; readonly status: ExitStatus }
  | { readonly warnings: readonly string[] }
> {
  const { console, root, signal } = session;
  session.journal.logDir = log.dir;
  const outcome = await applyReply(root, reply, session.redactor, session.journal);
  if (!outcome.ok) {
    // The refusals, one a line: the terminal shows twenty, the build's log has them all.
    const shown = cutList(outcome.reason.split("\n"), log.path(names.build), NAMED_AT_MOST + 1);
    console.warn(`the reply was not applied, nothing from it was written: ${shown.join("\n")}`);
    await log.write(
      names.build,
      `build.sh was not run: the reply was not applied, and nothing from it was written.\n${outcome.reason}\n`,
    );
    if (signal.aborted) throw interruption(signal);
    return {
      refused:
        `code-commit could not apply the previous reply, so nothing from it was written and build.sh did not run:\n${outcome.reason}\n`,
      status: outcome.status,
    };
  }
  const changed = new Set(outcome.changes.map((change) => change.path));
  for (const operation of outcome.operations) {
    if (changed.has(operation.path)) applied.set(operation.path, operation);
  }
  for (const warning of outcome.warnings) console.warn(warning);
  console.info(`applied: ${describeChanges(outcome.changes, outcome.unchanged)}`);
  if (signal.aborted) throw interruption(signal);
  return { warnings: outcome.warnings };
}

/**
 * Prints the model's words (`proseOf`, by default all outside file blocks) under `<model> says:`,
 * at most {@link PROSE_LINES_SHOWN} lines. Never throws.
 */
export function showProse(
  console: Console,
  model: string,
  text: string,
  logPath: string,
  proseOf: (text: string) => string[] = replyProse,
): void {
  const prose = proseOf(text);
  if (prose.length === 0) return;
  console.info(`${model} says:`);
  for (const line of prose.slice(0, PROSE_LINES_SHOWN)) console.info(`  ${line}`);
  if (prose.length > PROSE_LINES_SHOWN) {
    console.info(`  … ${prose.length - PROSE_LINES_SHOWN} more lines in ${logPath}`);
  }
}
