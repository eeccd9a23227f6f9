/**
 * code-commit: the command line, wired to a workflow.
 *
 * Only the command line is loaded up front: `--version`, `--help`,
 * `--completion` and a usage error need nothing else. The workflow a run
 * asks for (and, for one that talks to a model, the session) is loaded when
 * it starts, so no run pays for the modules of another. Every workflow holds
 * the project lock; what each takes and needs and who rolls back first is
 * the table of `lib/cli/workflows.ts`; how each is loaded and started is
 * {@link START} below.
 *
 * @module
 */
import {
  readCommandLine,
  resolveOptions,
  type RunOptions,
  wantsJson,
  type Workflow,
} from "./lib/cli/args.ts";
import { completionScript, helpText, versionText } from "./lib/cli/help.ts";
import { formatJsonResult, jsonResult, RunRecord } from "./lib/cli/json_result.ts";
import { reportOversizeWrites, trapInterrupts } from "./lib/cli/signals.ts";
import { workflowSpec } from "./lib/cli/workflows.ts";
import { Console } from "./lib/console/console.ts";
import { CodeCommitError, EXIT, type ExitStatus, interruption } from "./lib/errors/errors.ts";
import type { ProjectLock } from "./lib/project_lock/project_lock.ts";
import type { Session } from "./lib/session/session.ts";

/** What a workflow is started with. */
interface Run {
  /** The project root (the current directory). */
  readonly root: string;
  /** The options of the run (flag, else settings file, else default). */
  readonly options: RunOptions;
  /** Where the user is told what happens. */
  readonly console: Console;
  /** Aborts on Ctrl-C (never, for a workflow trapped only while it recovers). */
  readonly signal: AbortSignal;
  /** Whether taking the project lock made `agent-config/` (`--init` reports it as made). */
  readonly madeConfigFolder: boolean;
  /** Opens the session of a workflow that talks to a model (keys, client, set-up checks). */
  readonly session: () => Promise<Session>;
  /** What the run did, for the `--json` object. */
  readonly record: RunRecord;
}

/** Each workflow, loaded when a run asks for it, and started. */
const START: Record<Workflow, () => Promise<(run: Run) => Promise<ExitStatus>>> = {
  commit: async () => {
    const { runCommittingCode } = await import("./lib/workflows/committing_code/workflow.ts");
    return async (run) => runCommittingCode(await run.session());
  },
  consistency: async () => {
    const { runConsistencyReport } = await import(
      "./lib/workflows/consistency_report/workflow.ts"
    );
    return async (run) => runConsistencyReport(await run.session());
  },
  auto: async () => {
    const { runAutoWorkflow } = await import("./lib/workflows/auto_workflow/workflow.ts");
    return async (run) => runAutoWorkflow(await run.session());
  },
  init: async () => {
    const { runInit } = await import("./lib/workflows/init/workflow.ts");
    return (run) => runInit(run.root, run.console, run.madeConfigFolder);
  },
  rollup: async () => {
    const { runRollup } = await import("./lib/workflows/writing_rollup/workflow.ts");
    return (run) => runRollup(run.root, run.console);
  },
  undo: async () => {
    // --undo needs no key and no model; it rolls back an unfinished apply itself.
    const { runUndoWorkflow } = await import("./lib/workflows/undo/workflow.ts");
    return (run) => runUndoWorkflow(run.root, run.options, run.console, run.record);
  },
  "check-build": async () => {
    // --check-build runs ./build.sh as a run would (it rolls back an unfinished apply first),
    // and calls no model: no key needed.
    const { runCheckBuild } = await import("./lib/workflows/committing_code/check_build.ts");
    return (run) => runCheckBuild(run.root, run.options, run.console, run.signal, run.record);
  },
};

/**
 * Runs `workflow` in `root` as its table entry says, the project's lock
 * held (`madeConfigFolder`: taking it made `agent-config/`) and the
 * interrupt `trap` installed. Each workflow first rolls back an apply a
 * killed run left unfinished, under the trap: here (`recovers: "main"`,
 * `--init` and `--rollup`, which then run without the trap: they write
 * each file atomically, and a long rollup stops on Ctrl-C) or itself (the
 * session, `--undo`, `--check-build`).
 */
async function runWorkflow(
  root: string,
  workflow: Workflow,
  options: RunOptions,
  console: Console,
  trap: ReturnType<typeof trapInterrupts>,
  madeConfigFolder: boolean,
  record: RunRecord,
): Promise<ExitStatus> {
  const spec = workflowSpec(workflow);
  const sessionModule = spec.callsModel ? import("./lib/session/session.ts") : undefined;
  sessionModule?.catch(() => {});
  const session = async () => {
    const { openSession } = await (sessionModule ?? import("./lib/session/session.ts"));
    record.model = options.model;
    return await openSession(
      root,
      workflow,
      options,
      console,
      trap.signal,
      spec.runsBuilds,
      record,
    );
  };
  const run: Run = {
    root,
    options,
    console,
    signal: trap.signal,
    madeConfigFolder,
    session,
    record,
  };
  if (spec.recovers === "main") {
    const [{ recoverFirst }, start] = await Promise.all([
      import("./lib/apply/recovery.ts"),
      START[workflow](),
    ]);
    await recoverFirst(root, (line) => console.warn(line));
    trap.dispose();
    if (trap.signal.aborted) throw interruption(trap.signal);
    return await start({ ...run, signal: new AbortController().signal });
  }
  return await (await START[workflow]())(run);
}

/** The project lock a run took, held until its end is recorded. */
interface Held {
  /** The project root the lock is in. */
  root?: string;
  /** The lock, once taken. */
  lock?: ProjectLock;
}

/**
 * Runs code-commit with `args` and returns its exit status. With `--json`
 * (found even when the command line is wrong), stdout carries one JSON
 * object when the run ends, and nothing else (see `lib/cli/json_result.ts`).
 * Whether or not `--json` was given, a run that held the project lock keeps
 * the same object in `agent-config/last-run.json` (see `lib/cli/last_run.ts`)
 * before it releases the lock.
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
  const held: Held = {};
  let status: ExitStatus;
  let error: string | undefined;
  try {
    status = await run(args, console, record, held);
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
  let line: string | undefined;
  try {
    line = formatJsonResult(jsonResult(record, status, error));
    // A command line wrong with the settings file leaves the last run's object as it is.
    if (held.root !== undefined && held.lock !== undefined && status !== EXIT.usage) {
      const { keepLastRun } = await import("./lib/cli/last_run.ts");
      await keepLastRun(
        held.root,
        console.redact(line),
        held.lock.madeFolder,
        (warning) => console.warn(warning),
      );
    }
  } catch (thrown) {
    console.error(`internal error: no result object: ${(thrown as Error)?.stack ?? thrown}`);
  } finally {
    held.lock?.release();
  }
  // Printed once the lock is released: a script that reads it may start the next run at once.
  if (json && line !== undefined) console.json(line);
  return status;
}

/**
 * Runs what `args` ask for, noting in `record` what the `--json` object
 * needs, and in `held` the project lock it took: the caller releases it.
 *
 * @throws {CodeCommitError} for a wrong command line or settings file, a
 * project another code-commit holds, and whatever the workflow throws.
 */
async function run(
  args: readonly string[],
  console: Console,
  record: RunRecord,
  held: Held,
): Promise<ExitStatus> {
  const command = readCommandLine(args);
  if (command.kind === "help" || command.kind === "version" || command.kind === "completion") {
    record.workflow = command.kind;
    console.result(
      command.kind === "help"
        ? helpText()
        : command.kind === "version"
        ? versionText()
        : completionScript(command.shell).trimEnd(),
    );
    return EXIT.ok;
  }
  const workflow = command.workflow;
  record.workflow = workflow;
  const spec = workflowSpec(workflow);
  const root = Deno.cwd();
  const [{ lockProject }, { endLeftBuild }, { readsSettings, readSettings }] = await Promise.all([
    import("./lib/project_lock/project_lock.ts"),
    import("./lib/project_lock/running_build.ts"),
    import("./lib/cli/settings.ts"),
  ]);
  // Before anything else in the project, its settings file included: one code-commit at a
  // time (exit 6 for a second one); then the settings file completes the command line; then a
  // build a killed run left running is ended, then the trap, so that no signal stops the
  // rollback of an unfinished apply halfway; each workflow rolls that back first.
  held.lock = await lockProject(
    root,
    `${spec.holder}${command.given.dryRun === true ? " with --dry-run" : ""}`,
  );
  held.root = root;
  const settings = readsSettings(workflow) ? await readSettings(root) : {};
  const options = resolveOptions(workflow, command.given, settings);
  await endLeftBuild(root, (line) => console.warn(line));
  const trap = trapInterrupts(console);
  try {
    return await runWorkflow(
      root,
      workflow,
      options,
      console,
      trap,
      held.lock?.madeFolder === true,
      record,
    );
  } finally {
    trap.dispose();
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
