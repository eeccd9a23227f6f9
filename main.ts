/**
 * code-commit: the command line, wired to a workflow.
 *
 * Only the command line is loaded up front: `--version`, `--help` and a
 * usage error need nothing else. The workflow a run asks for (and, for one
 * that talks to a model, the session) is loaded when it starts, so no run
 * pays for the modules of another.
 *
 * @module
 */
import {
  parseCommandLine,
  type RunOptions,
  runsBuilds,
  wantsJson,
  type Workflow,
} from "./lib/cli/args.ts";
import { helpText, versionText } from "./lib/cli/help.ts";
import { reportOversizeWrites } from "./lib/cli/file_size_limit.ts";
import { type InterruptTrap, trapInterrupts } from "./lib/cli/interrupt.ts";
import { formatJsonResult, jsonResult } from "./lib/cli/json_result.ts";
import { RunRecord } from "./lib/cli/run_record.ts";
import { Console } from "./lib/console/console.ts";
import { CodeCommitError, EXIT, type ExitStatus, interruption } from "./lib/errors/errors.ts";
import type { ProjectLock } from "./lib/project_lock/project_lock.ts";
import type { Session } from "./lib/session/session.ts";

/** The workflows that talk to a model: they run in a session (keys, client, Ctrl-C). */
type SessionWorkflow = Exclude<Workflow, LocalWorkflow>;

/** Each workflow that talks to a model, loaded when a run asks for it. */
const WORKFLOWS: Record<
  SessionWorkflow,
  () => Promise<(session: Session) => Promise<ExitStatus>>
> = {
  commit: async () =>
    (await import("./lib/workflows/committing_code/workflow.ts")).runCommittingCode,
  consistency: async () =>
    (await import("./lib/workflows/consistency_report/workflow.ts")).runConsistencyReport,
  auto: async () => (await import("./lib/workflows/auto_workflow/workflow.ts")).runAutoWorkflow,
};

/** The workflows that only set up the project (and `--undo`): no key, no LLM call. */
type LocalWorkflow = "init" | "rollup" | "undo" | "check-build";
const LOCAL_WORKFLOWS: Record<
  Exclude<LocalWorkflow, "undo" | "check-build">,
  () => Promise<(root: string, console: Console, lock: ProjectLock) => Promise<ExitStatus>>
> = {
  init: async () => {
    const { runInit } = await import("./lib/workflows/init/workflow.ts");
    return (root, console, lock) => runInit(root, console, { madeConfigFolder: lock.madeFolder });
  },
  rollup: async () => {
    const { runRollup } = await import("./lib/workflows/rollup/workflow.ts");
    return (root, console) => runRollup(root, console);
  },
};

/** How a second process names the workflow that holds the project. */
const WORKFLOW_NAMES: Record<Workflow, (dryRun: boolean) => string> = {
  commit: (dryRun) => dryRun ? "a run with --dry-run" : "a run",
  consistency: () => "--cc",
  auto: () => "--aw",
  init: () => "--init",
  rollup: () => "--rollup",
  undo: () => "--undo",
  "check-build": () => "--check-build",
};

/**
 * Runs `workflow` in `root`, the project's lock held and the interrupt
 * `trap` installed (`lock` tells `--init` whether it made `agent-config/`). Each workflow first rolls back an apply a killed run
 * left unfinished, under the trap; `--init` and `--rollup` then run
 * without it (they write each file atomically, and a long rollup stops on
 * Ctrl-C).
 */
async function runWorkflow(
  root: string,
  workflow: Workflow,
  options: RunOptions,
  console: Console,
  trap: InterruptTrap,
  lock: ProjectLock,
  record: RunRecord,
): Promise<ExitStatus> {
  if (workflow === "init" || workflow === "rollup") {
    const [{ recoverFirst }, run] = await Promise.all([
      import("./lib/apply/recovery.ts"),
      LOCAL_WORKFLOWS[workflow](),
    ]);
    await recoverFirst(root, (line) => console.warn(line));
    trap.dispose();
    if (trap.signal.aborted) throw interruption(trap.signal);
    return await run(root, console, lock);
  }
  if (workflow === "undo") {
    // --undo needs no key and no model; it rolls back an unfinished apply itself.
    const { runUndoWorkflow } = await import("./lib/workflows/undo/workflow.ts");
    return await runUndoWorkflow(root, options, console, record);
  }
  if (workflow === "check-build") {
    // --check-build runs ./build.sh as a run would (it rolls back an unfinished apply first),
    // and calls no model: no key needed.
    const { runCheckBuild } = await import("./lib/workflows/committing_code/check_build.ts");
    return await runCheckBuild(root, options, console, trap.signal, record);
  }
  record.model = options.model;
  const [{ openSession }, run] = await Promise.all([
    import("./lib/session/session.ts"),
    WORKFLOWS[workflow](),
  ]);
  const session = await openSession(
    root,
    workflow,
    options,
    console,
    trap.signal,
    runsBuilds(workflow),
    record,
  );
  return await run(session);
}

/**
 * Runs code-commit with `args` and returns its exit status. With `--json`
 * (found even when the command line is wrong), stdout carries one JSON
 * object when the run ends, and nothing else (see `lib/cli/json_result.ts`).
 *
 * Never throws: a `CodeCommitError` becomes its message and exit code,
 * anything else an `internal error` line and exit 1.
 */
export async function main(args: readonly string[]): Promise<ExitStatus> {
  const console = new Console();
  // A write past `ulimit -f` fails with an error naming the file, instead of a silent SIGXFSZ.
  reportOversizeWrites();
  const json = wantsJson(args);
  if (json) console.resultsToStderr();
  const record = new RunRecord();
  let status: ExitStatus;
  let error: string | undefined;
  try {
    status = await run(args, console, record);
  } catch (thrown) {
    if (thrown instanceof CodeCommitError) {
      error = thrown.message;
      status = thrown.exitCode;
    } else {
      error = `internal error: ${(thrown as Error)?.stack ?? thrown}`;
      status = EXIT.failed;
    }
    console.error(error);
  }
  if (json) console.json(formatJsonResult(jsonResult(record, status, error)));
  return status;
}

/**
 * Runs what `args` ask for, noting in `record` what the `--json` object needs.
 *
 * @throws {CodeCommitError} for a wrong command line, a project another
 * code-commit holds, and whatever the workflow throws.
 */
async function run(
  args: readonly string[],
  console: Console,
  record: RunRecord,
): Promise<ExitStatus> {
  const command = parseCommandLine(args);
  if (command.kind === "help" || command.kind === "version") {
    record.workflow = command.kind;
    console.result(command.kind === "help" ? helpText() : versionText());
    return EXIT.ok;
  }
  const workflow = command.workflow;
  record.workflow = workflow;
  const root = Deno.cwd();
  const [{ lockProject }, { endLeftBuild }] = await Promise.all([
    import("./lib/project_lock/project_lock.ts"),
    import("./lib/project_lock/running_build.ts"),
  ]);
  // Before anything else: one code-commit at a time in a project (exit 6 for a second one),
  // then a build a killed run left running is ended, then the trap, so that no signal stops
  // the rollback of an unfinished apply halfway; each workflow rolls that back first.
  const lock = await lockProject(root, WORKFLOW_NAMES[workflow](command.options.dryRun));
  try {
    await endLeftBuild(root, (line) => console.warn(line));
    const trap = trapInterrupts(console);
    try {
      return await runWorkflow(root, workflow, command.options, console, trap, lock, record);
    } finally {
      trap.dispose();
    }
  } finally {
    lock.release();
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
