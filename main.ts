/**
 * code-commit: the command line, wired to a workflow.
 *
 * Only the command line is loaded up front: `--version`, `--help`,
 * `--completion` and a usage error need nothing else. The workflow a run
 * asks for (and, for one that talks to a model, the session) is loaded when
 * it starts, so no run pays for the modules of another. What each workflow
 * takes and needs is the table of `lib/cli/workflows.ts`; how each is
 * loaded and started is {@link START} below.
 *
 * @module
 */
import { readCommandLine, resolveOptions, type RunOptions, type Workflow } from "./lib/cli/args.ts";
import { completionScript } from "./lib/cli/completion.ts";
import { helpText, versionText } from "./lib/cli/help.ts";
import { trapInterrupts } from "./lib/cli/interrupt.ts";
import { workflowSpec } from "./lib/cli/workflows.ts";
import { Console } from "./lib/console/console.ts";
import { CodeCommitError, EXIT } from "./lib/errors/errors.ts";
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
  /** Opens the session of a workflow that talks to a model (keys, client, set-up checks). */
  readonly session: () => Promise<Session>;
}

/** Each workflow, loaded when a run asks for it, and started. */
const START: Record<Workflow, () => Promise<(run: Run) => Promise<number>>> = {
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
    return (run) => runInit(run.root, run.console);
  },
  rollup: async () => {
    const { runRollup } = await import("./lib/workflows/rollup/workflow.ts");
    return (run) => runRollup(run.root, run.console);
  },
  undo: async () => {
    // --undo needs no key and no model; the trap keeps a signal from stopping it halfway.
    const { runUndoWorkflow } = await import("./lib/workflows/undo/workflow.ts");
    return (run) => runUndoWorkflow(run.root, run.options, run.console);
  },
  "check-build": async () => {
    // --check-build runs ./build.sh as a run would, and calls no model: no key needed.
    const { runCheckBuild } = await import("./lib/workflows/committing_code/check_build.ts");
    return (run) => runCheckBuild(run.root, run.options, run.console, run.signal);
  },
};

/**
 * Runs `workflow` with `options` in `root` as its table entry says: an
 * apply a killed run left unfinished is rolled back first (here, or by the
 * workflow itself), Ctrl-C trapped for the whole run or not at all, the
 * session opened for a workflow that talks to a model.
 */
async function runWorkflow(
  root: string,
  workflow: Workflow,
  options: RunOptions,
  console: Console,
): Promise<number> {
  const spec = workflowSpec(workflow);
  const sessionModule = spec.callsModel ? import("./lib/session/session.ts") : undefined;
  sessionModule?.catch(() => {});
  if (spec.recovers === "main") {
    const [{ recoverFirst }, start] = await Promise.all([
      import("./lib/apply/recovery.ts"),
      START[workflow](),
    ]);
    await recoverFirst(root, (line) => console.warn(line));
    const never = new AbortController().signal;
    return await start({ root, options, console, signal: never, session: noSession });
  }
  const trap = trapInterrupts(console);
  try {
    const start = await START[workflow]();
    const session = async () => {
      const { openSession } = await (sessionModule ?? import("./lib/session/session.ts"));
      return await openSession(root, workflow, options, console, trap.signal, spec.runsBuilds);
    };
    return await start({ root, options, console, signal: trap.signal, session });
  } finally {
    trap.dispose();
  }
}

/** The session of a workflow that has none. @throws {Error} always: a table mistake. */
function noSession(): Promise<Session> {
  return Promise.reject(new Error("this workflow talks to no model and opens no session"));
}

/**
 * Runs code-commit with `args` and returns its exit status.
 *
 * Never throws: a `CodeCommitError` becomes its message and exit code,
 * anything else an `internal error` line and exit 1.
 */
export async function main(args: readonly string[]): Promise<number> {
  const console = new Console();
  try {
    const command = readCommandLine(args);
    if (command.kind === "help") {
      console.result(helpText());
      return EXIT.ok;
    }
    if (command.kind === "version") {
      console.result(versionText());
      return EXIT.ok;
    }
    if (command.kind === "completion") {
      console.result(completionScript(command.shell).trimEnd());
      return EXIT.ok;
    }
    const root = Deno.cwd();
    const { readsSettings, readSettings } = await import("./lib/cli/settings.ts");
    const settings = readsSettings(command.workflow) ? await readSettings(root) : {};
    const options = resolveOptions(command.workflow, command.given, settings);
    return await runWorkflow(root, command.workflow, options, console);
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
