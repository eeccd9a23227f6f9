/**
 * Runs the project's `./build.sh` once, the one way every workflow does:
 * contained as the session decided (`--sandbox`, `--build-network`), with
 * the session's time limit, Ctrl-C and redaction, logged, and between the
 * tamper checks.
 *
 * @module
 */
import { type BuildResult, formatBuildLog, runBuild } from "../../build/run_build.ts";
import { LatestLine } from "../../console/latest_line.ts";
import type { RunLog } from "../../logger/run_log.ts";
import {
  checkAfterBuild,
  checkBuildScriptUnchanged,
  snapshotBeforeBuild,
} from "../../preconditions/build_integrity.ts";
import { buildLaunch } from "../../sandbox/containment.ts";
import { scanProject } from "../../sandbox/project_scan.ts";
import type { Session } from "../../session/session.ts";

/**
 * Runs one build of the session's project and writes it to `log` as
 * `logName`; the progress line and the log say how it was contained. On a
 * terminal, a live line shows how long the build has run and its latest
 * output line.
 * Every build follows an applied reply, so `build.sh` is compared with the
 * session's first look at it here, before the build (a reply written where
 * a `build.sh` link leads), and again after it.
 *
 * @throws {CodeCommitError} when `build.sh` is not what it was when the run
 * started; when the sandbox cannot contain the project (see `planFromScan`)
 * or the build cannot be started; after the build (logged), when it changed
 * `build.sh` or a protected entry, or `.gitignore` no longer protects the
 * keys.
 */
export async function runProjectBuild(
  session: Session,
  log: RunLog,
  logName: string,
): Promise<BuildResult> {
  const { root, console } = session;
  await checkBuildScriptUnchanged(root, session.buildScript, "since the run started");
  const scan = await scanProject(await Deno.realPath(root), {
    hardLinks: session.containment.kind !== "none",
  });
  const before = await snapshotBeforeBuild(root, scan);
  const launch = await buildLaunch(session.containment, scan);
  console.info(`running ./build.sh (${launch.description})`);
  const live = console.liveLine("./build.sh");
  const latest = new LatestLine();
  let build: BuildResult;
  try {
    build = await runBuild(root, {
      timeoutMs: session.options.buildTimeoutMs,
      signal: session.signal,
      redactor: session.redactor,
      launch,
      ...(live.shown && {
        onOutput: (text: string) => {
          latest.add(text);
          live.update(latest.line());
        },
      }),
    });
  } finally {
    live.stop();
  }
  await log.write(logName, formatBuildLog(build));
  await checkAfterBuild(root, session.buildScript, before);
  return build;
}
