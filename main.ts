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
import { parseCommandLine, type RunOptions, runsBuilds, type Workflow } from "./lib/cli/args.ts";
import { helpText, versionText } from "./lib/cli/help.ts";
import { reportOversizeWrites } from "./lib/cli/file_size_limit.ts";
import { type InterruptTrap, trapInterrupts } from "./lib/cli/interrupt.ts";
import { Console } from "./lib/console/console.ts";
import { CodeCommitError, EXIT, interruption } from "./lib/errors/errors.ts";
import type { ProjectLock } from "./lib/project_lock/project_lock.ts";
import type { Session } from "./lib/session/session.ts";

/** The workflows that talk to a model: they run in a session (keys, client, Ctrl-C). */
type SessionWorkflow = Exclude<Workflow, LocalWorkflow>;

/** Each workflow that talks to a model, loaded when a run asks for it. */
const WORKFLOWS: Record<SessionWorkflow, () => Promise<(session: Session) => Promise<number>>> = {
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
  () => Promise<(root: string, console: Console, lock: ProjectLock) => Promise<number>>
> = {
  init: async () => {
    const { runInit } = await import("./lib/workflows/init/workflow.ts");
    return (root, console, lock) => runInit(root, console, { madeConfigFolder: lock.madeFolder });
  },
  rollup: async () => {
    const { runRollup } = await import("./lib/workflows/writing_rollup/workflow.ts");
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
): Promise<number> {
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
    return await runUndoWorkflow(root, options, console);
  }
  if (workflow === "check-build") {
    // --check-build runs ./build.sh as a run would (it rolls back an unfinished apply first),
    // and calls no model: no key needed.
    const { runCheckBuild } = await import("./lib/workflows/committing_code/check_build.ts");
    return await runCheckBuild(root, options, console, trap.signal);
  }
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
  );
  return await run(session);
}

/**
 * Runs code-commit with `args` and returns its exit status.
 *
 * Never throws: a `CodeCommitError` becomes its message and exit code,
 * anything else an `internal error` line and exit 1.
 */
export async function main(args: readonly string[]): Promise<number> {
  const console = new Console();
  // A write past `ulimit -f` fails with an error naming the file, instead of a silent SIGXFSZ.
  reportOversizeWrites();
  try {
    const command = parseCommandLine(args);
    if (command.kind === "help") {
      console.result(helpText());
      return EXIT.ok;
    }
    if (command.kind === "version") {
      console.result(versionText());
      return EXIT.ok;
    }
    const workflow = command.workflow;
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
        return await runWorkflow(root, workflow, command.options, console, trap, lock);
      } finally {
        trap.dispose();
      }
    } finally {
      lock.release();
    }
  } catch (error) {
    if (error instanceof CodeCommitError) {
      console.error(error.message);
      return error.exitCode;
    }
    console.error(`internal error: ${(error as Error)?.stack ?? error}`);
    return EXIT.failed;
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
