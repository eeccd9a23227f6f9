/**
 * The committing-code loop (seeds 000 and 002): the initial query, then up
 * to three repairs while the build fails or a reply cannot be applied.
 * The auto workflow runs its code-changing stages through this same loop.
 *
 * @module
 */
import { interruption } from "../../errors/errors.ts";
import type { LlmReply } from "../../llm/types.ts";
import { INITIAL_QUERY, repairQuery } from "../../logger/log_names.ts";
import type { RunLog } from "../../logger/run_log.ts";
import { askModel, type Session } from "../../session/session.ts";
import {
  buildPassed,
  describeBuildEnd,
  formatBuildForPrompt,
  formatBuildLog,
  runBuild,
} from "../../build/run_build.ts";
import { applyReply, describeChanges } from "./apply_reply.ts";
import { initialPrompt, repairPrompt } from "./prompt_layout.ts";
import { ReplacementLedger } from "./replacements.ts";

/** Repairs after the initial attempt (seed 000: one initial attempt and three repairs). */
export const MAX_REPAIRS = 3;

/** How the loop ended. */
export interface CommitLoopResult {
  /** True when `./build.sh` exited 0 after an applied reply. */
  readonly passed: boolean;
  /** LLM calls made (1 to 4). */
  readonly attempts: number;
  /** The last reply received. */
  readonly lastReply: LlmReply;
  /** True when the last reply was applied (false: it was refused, nothing written). */
  readonly lastReplyApplied: boolean;
  /** Every file the run changed, sorted. */
  readonly changedPaths: readonly string[];
}

/**
 * Runs the loop with `query` and `codebase`, logging into `log`.
 *
 * @throws {LlmError} when an LLM call fails (the run stops: no repair can follow).
 * @throws {InterruptedError} on Ctrl-C, at a safe point.
 * @throws {CodeCommitError} when the build cannot be started or a prompt holds a key.
 */
export async function runCommitLoop(
  session: Session,
  log: RunLog,
  query: string,
  codebase: string,
): Promise<CommitLoopResult> {
  const { console, client, root, signal } = session;
  const ledger = new ReplacementLedger();
  let feedback = "";
  let lastReply: LlmReply | undefined;
  let lastReplyApplied = false;

  for (let attempt = 0; attempt <= MAX_REPAIRS; attempt++) {
    const names = attempt === 0 ? INITIAL_QUERY : repairQuery(attempt);
    const prompt = attempt === 0
      ? initialPrompt(query, codebase)
      : repairPrompt(feedback, query, codebase, ledger.format());
    console.info(
      attempt === 0
        ? `initial query: asking ${client.model}`
        : `repair ${attempt} of ${MAX_REPAIRS}: asking ${client.model}`,
    );
    const reply = await askModel(session, log, names, prompt);
    lastReply = reply;

    const outcome = await applyReply(root, reply);
    if (!outcome.ok) {
      lastReplyApplied = false;
      console.warn(`the reply was not applied, nothing from it was written: ${outcome.reason}`);
      await log.write(
        names.build,
        `build.sh was not run: the reply was not applied, and nothing from it was written.\n${outcome.reason}\n`,
      );
      feedback =
        `code-commit could not apply the previous reply, so nothing from it was written and build.sh did not run:\n${outcome.reason}\n`;
      if (signal.aborted) throw interruption(signal);
      continue;
    }

    lastReplyApplied = true;
    for (const operation of outcome.operations) {
      if (outcome.changes.some((change) => change.path === operation.path)) {
        ledger.record(operation);
      }
    }
    for (const warning of outcome.warnings) console.warn(warning);
    console.info(`applied: ${describeChanges(outcome.changes)}`);
    if (signal.aborted) throw interruption(signal);

    console.info("running ./build.sh");
    const build = await runBuild(root, {
      timeoutMs: session.options.buildTimeoutMs,
      signal,
      redactor: session.redactor,
    });
    await log.write(names.build, formatBuildLog(build));
    if (build.interrupted) throw interruption(signal);
    if (buildPassed(build)) {
      console.info(`build passed (${describeBuildEnd(build)})`);
      return {
        passed: true,
        attempts: attempt + 1,
        lastReply,
        lastReplyApplied,
        changedPaths: ledger.paths(),
      };
    }
    console.warn(`build failed (${describeBuildEnd(build)}); see ${log.path(names.build)}`);
    feedback = formatBuildForPrompt(build, log.path(names.build));
  }

  return {
    passed: false,
    attempts: MAX_REPAIRS + 1,
    lastReply: lastReply!,
    lastReplyApplied,
    changedPaths: ledger.paths(),
  };
}
