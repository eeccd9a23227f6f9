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
import { parseCommandLine, runsBuilds, type Workflow } from "./lib/cli/args.ts";
import { helpText, versionText } from "./lib/cli/help.ts";
import { reportOversizeWrites } from "./lib/cli/file_size_limit.ts";
import { trapInterrupts } from "./lib/cli/interrupt.ts";
import { Console } from "./lib/console/console.ts";
import { CodeCommitError, EXIT } from "./lib/errors/errors.ts";
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
type LocalWorkflow = "init" | "rollup" | "undo";
const LOCAL_WORKFLOWS: Record<
  Exclude<LocalWorkflow, "undo">,
  () => Promise<(root: string, console: Console) => Promise<number>>
> = {
  init: async () => (await import("./lib/workflows/init/workflow.ts")).runInit,
  rollup: async () => (await import("./lib/workflows/rollup/workflow.ts")).runRollup,
};

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
    if (workflow === "init" || workflow === "rollup") {
      const [{ recoverFirst }, run] = await Promise.all([
        import("./lib/apply/recovery.ts"),
        LOCAL_WORKFLOWS[workflow](),
      ]);
      // Every workflow first rolls back an apply a killed run left unfinished.
      await recoverFirst(Deno.cwd(), (line) => console.warn(line));
      return await run(Deno.cwd(), console);
    }
    const trap = trapInterrupts(console);
    try {
      if (workflow === "undo") {
        // --undo needs no key and no model; the trap keeps a signal from stopping it halfway.
        const { runUndoWorkflow } = await import("./lib/workflows/undo/workflow.ts");
        return await runUndoWorkflow(Deno.cwd(), command.options, console);
      }
      const [{ openSession }, run] = await Promise.all([
        import("./lib/session/session.ts"),
        WORKFLOWS[workflow](),
      ]);
      const session = await openSession(
        Deno.cwd(),
        workflow,
        command.options,
        console,
        trap.signal,
        runsBuilds(workflow),
      );
      return await run(session);
    } finally {
      trap.dispose();
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
