/**
 * Runs the project's `./build.sh` once, the one way every workflow does:
 * contained as the session decided (`--sandbox`, `--build-network`), with
 * the session's time limit, Ctrl-C and redaction, logged, and followed by
 * the tamper check.
 *
 * @module
 */
import { type BuildResult, formatBuildLog, runBuild } from "../../build/run_build.ts";
import type { RunLog } from "../../logger/run_log.ts";
import { checkAfterBuild, snapshotBuildScript } from "../../preconditions/build_integrity.ts";
import { buildLaunch } from "../../sandbox/containment.ts";
import type { Session } from "../../session/session.ts";

/**
 * Runs one build of the session's project and writes it to `log` as
 * `logName`; the progress line and the log say how it was contained.
 *
 * @throws {CodeCommitError} when the build cannot be started, or when it
 * changed `build.sh` or `.gitignore` no longer protects the keys (after the
 * build is logged).
 */
export async function runProjectBuild(
  session: Session,
  log: RunLog,
  logName: string,
): Promise<BuildResult> {
  const { root, console } = session;
  const before = await snapshotBuildScript(root);
  const launch = await buildLaunch(session.containment, root);
  console.info(`running ./build.sh (${launch.description})`);
  const build = await runBuild(root, {
    timeoutMs: session.options.buildTimeoutMs,
    signal: session.signal,
    redactor: session.redactor,
    launch,
  });
  await log.write(logName, formatBuildLog(build));
  await checkAfterBuild(root, before);
  return build;
}
