/**
 * Runs the project's `./build.sh` once, the one way every workflow does: contained, timed,
 * redacted, logged and between the tamper checks.
 * @module
 */
import { type BuildResult, formatBuildLog, runBuild } from "../../build/run_build.ts";
import { failingTail, findOutsideRefusal } from "../../build/build_output.ts";
import { type Console, LatestLine } from "../../console/console.ts";
import { stripAnsi } from "../../text/ansi.ts";
import { CodeCommitError, EXIT } from "../../errors/errors.ts";
import type { RunLog } from "../../logger/run_log.ts";
import { trackBuilds } from "../../project_lock/running_build.ts";
import {
  checkAfterBuild,
  checkBuildScriptUnchanged,
  snapshotBeforeBuild,
} from "../../preconditions/tamper_check.ts";
import { buildLaunch } from "../../sandbox/containment.ts";
import { scanProject } from "../../sandbox/project_scan.ts";
import type { Session } from "../../session/session.ts";

/** What a build needs of a run: the project, how builds are contained, the time limit, Ctrl-C, keys. */
export type BuildSession = Pick<
  Session,
  "root" | "console" | "buildScript" | "containment" | "options" | "signal" | "redactor"
>;

/**
 * Runs one build, logged as `logName` after `notes`. `build.sh` is compared with the run's first
 * look before (a reply may have written where a link leads) and after the build.
 * @throws {CodeCommitError} when `build.sh` changed, the build cannot be contained or started, or
 * it changed a protected entry or `.gitignore`.
 */
export async function runProjectBuild(
  session: BuildSession,
  log: RunLog,
  logName: string,
  notes: readonly string[] = [],
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
      tracker: trackBuilds(root),
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
  const noted = notes.map((note) => `[code-commit warning: ${note}]\n`).join("");
  await log.write(logName, noted + formatBuildLog(build));
  await checkAfterBuild(root, session.buildScript, before);
  return build;
}

/**
 * When the sandbox refused a contained build a path outside the project, the error (exit 3) that
 * stops the run before any repair: no code change fixes it. `afterReply`: a reply's changes were
 * applied. Never throws.
 */
export async function outsideRefusalStop(
  session: BuildSession,
  build: BuildResult,
  logPath: string,
  afterReply: boolean,
): Promise<CodeCommitError | undefined> {
  if (session.containment.kind === "none" || build.timedOut || build.interrupted) return undefined;
  // When the real path cannot be read, the root as given is enough to compare with.
  const real = await Deno.realPath(session.root).catch(() => undefined);
  const roots = real === undefined ? [session.root] : [session.root, real];
  const refusal = findOutsideRefusal(build.output, roots);
  if (refusal === undefined) return undefined;
  const applied = afterReply
    ? " The reply's changes stay applied (code-commit --undo takes them back)."
    : "";
  const stop = afterReply
    ? "so no repair was asked for"
    : "so a run stops there instead of asking for repairs";
  return new CodeCommitError(
    `./build.sh failed because the sandbox refused it ${refusal.path}, which is outside the ` +
      `project (${JSON.stringify(refusal.line)}); no change to the code can fix that, ${stop}. ` +
      `Make the tool write inside the project instead (a cache or home folder under the ` +
      `project, set in build.sh), or run once with --sandbox off (the build then runs with ` +
      `your rights). The build's output is in ${logPath}.${applied}`,
    EXIT.setup,
  );
}

const BUILD_LINES_SHOWN = 20;

/** Prints a failing build's lines that report a failure, then its last lines. Never throws. */
export function showBuildTail(console: Console, output: string): void {
  const { failures, failuresOmitted, tail } = failingTail(stripAnsi(output), BUILD_LINES_SHOWN);
  if (failures.length > 0) {
    console.info("lines of its output that report a failure:");
    for (const line of failures) console.info(`  | ${line}`);
    if (failuresOmitted > 0) console.info(`  … and ${failuresOmitted} more in the log`);
  }
  if (tail.lines.length === 0) return;
  console.info(
    tail.omitted > 0 ? `the last ${tail.lines.length} lines of its output:` : "its output:",
  );
  for (const line of tail.lines) console.info(line === "" ? "  |" : `  | ${line}`);
}
