/**
 * `--check-build`: runs `./build.sh` once exactly as a run would (set-up checks, containment, time
 * limit, tamper checks, redaction, its own log folder) and calls no model. Exit 0 when it passes, 1
 * when it fails.
 * @module
 */
import { RunRecord } from "../../cli/json_result.ts";
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
 * Checks what building needs, runs the build once as a run does: 0 passed, 1 failed.
 * @throws {CodeCommitError} exit 3 listing every set-up problem; as a run does when the build
 * cannot be contained, cannot start or tampered with `build.sh`.
 * @throws {InterruptedError} on Ctrl-C; {JournalError} when a killed run's apply cannot be rolled
 * back.
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

/** @throws {CodeCommitError} exit 3 listing every set-up problem of building. */
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
