/**
 * `--check-build`: runs the project's `./build.sh` once exactly as a run
 * would (the same set-up checks of building, the same containment from
 * `--sandbox` and `--build-network`, the same `--build-timeout`, the same
 * tamper checks and redaction, logged in its own run folder), shows how it
 * ended, and calls no model: no key, no cost. Exit 0 when it passes, 1 when
 * it fails.
 *
 * @module
 */
import { RunRecord } from "../../cli/run_record.ts";
import type { RunOptions } from "../../cli/args.ts";
import { recoverFirst } from "../../apply/recovery.ts";
import type { Console } from "../../console/console.ts";
import { buildPassed, describeBuildEnd } from "../../build/run_build.ts";
import {
  CodeCommitError,
  EXIT,
  type ExitStatus,
  InterruptedError,
  interruption,
} from "../../errors/errors.ts";
import { KEY_FILES } from "../../llm/models.ts";
import { CHECK_BUILD_LOG, SLUGS } from "../../logger/log_names.ts";
import { RunLog } from "../../logger/run_log.ts";
import { checkAgentConfigIgnored, checkBuildScript } from "../../preconditions/preconditions.ts";
import { checkRepositoryRoot } from "../../preconditions/repository.ts";
import { decideContainment } from "../../sandbox/containment.ts";
import { readKnownKeys } from "../../secrets/keys.ts";
import { Redactor } from "../../secrets/redact.ts";
import { settleContainment } from "../../session/session.ts";
import { outsideRefusalStop, runProjectBuild, showBuildTail } from "./build_step.ts";

/**
 * Checks what building needs (the folder is a repository's root,
 * `.gitignore` keeps `/agent-config` out of git, `build.sh` is there and
 * executable), decides the containment as a run does, runs the build once,
 * and says how it ended: on a failure, the lines that report it and the
 * last lines, and when the sandbox refused it a path outside the project,
 * what to do. Returns the exit status: 0 passed, 1 failed. The log folder
 * is noted in `record` (for `--json`).
 *
 * @throws {CodeCommitError} exit 3 for every set-up problem found (all
 * listed); as a run does when the sandbox cannot contain the project or the
 * build cannot start or tampered with `build.sh`.
 * @throws {InterruptedError} when Ctrl-C (`signal`) stopped the build.
 * @throws {JournalError} when an apply a killed run left unfinished cannot be rolled back.
 */
export async function runCheckBuild(
  root: string,
  options: RunOptions,
  console: Console,
  signal: AbortSignal,
  record: RunRecord = new RunRecord(),
): Promise<ExitStatus> {
  await checkRepositoryRoot(root, false);
  const containing = Deno.realPath(root).then((realRoot) =>
    decideContainment({ mode: options.sandbox, network: options.buildNetwork, root: realRoot })
  );
  containing.catch(() => {});
  // As every workflow does first: an apply a killed run left unfinished is rolled back.
  await recoverFirst(root, (line) => console.warn(line));
  await checkBuildSetUp(root);
  // No key is read for a call, but every key file there is masked in the output and the log.
  const redactor = new Redactor(await readKnownKeys(root, KEY_FILES));
  console.useRedactor(redactor);
  const { containment, buildScript } = await settleContainment(root, containing, console);
  const session = { root, console, buildScript, containment, options, redactor, signal };
  const log = await RunLog.create(root, SLUGS.checkBuild, redactor);
  record.logDir = log.dir;
  const logPath = log.path(CHECK_BUILD_LOG);
  const build = await runProjectBuild(session, log, CHECK_BUILD_LOG);
  if (build.interrupted) throw interruption(signal);
  if (buildPassed(build)) {
    console.result(`build passed (${describeBuildEnd(build)}); the log is ${logPath}`);
    return EXIT.ok;
  }
  showBuildTail(console, build.output);
  const refusal = await outsideRefusalStop(session, build, logPath, false);
  if (refusal !== undefined) console.warn(refusal.message);
  console.result(`build failed (${describeBuildEnd(build)}); the log is ${logPath}`);
  return EXIT.failed;
}

/**
 * The set-up checks of a run that concern building, all of them.
 *
 * @throws {CodeCommitError} exit 3, listing every problem found (one line for one).
 */
async function checkBuildSetUp(root: string): Promise<void> {
  const problems: string[] = [];
  for (const check of [checkAgentConfigIgnored, checkBuildScript]) {
    try {
      await check(root);
    } catch (error) {
      if (!(error instanceof CodeCommitError) || error instanceof InterruptedError) throw error;
      problems.push(error.message);
    }
  }
  if (problems.length === 1) throw new CodeCommitError(problems[0], EXIT.setup);
  if (problems.length > 1) {
    throw new CodeCommitError(
      `${problems.length} things to set up before ./build.sh can be checked ` +
        `(code-commit --init makes the missing files it can):\n` +
        problems.map((problem) => `  - ${problem}`).join("\n"),
      EXIT.setup,
    );
  }
}
