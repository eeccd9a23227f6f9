/**
 * code-commit: the command line, wired to a workflow.
 *
 * @module
 */
import { parseCommandLine, type Workflow } from "./lib/cli/args.ts";
import { helpText, versionText } from "./lib/cli/help.ts";
import { trapInterrupts } from "./lib/cli/interrupt.ts";
import { Console } from "./lib/console/console.ts";
import { CodeCommitError, EXIT } from "./lib/errors/errors.ts";
import { openSession, type Session } from "./lib/session/session.ts";
import { runCommittingCode } from "./lib/workflows/committing_code/workflow.ts";
import { runConsistencyReport } from "./lib/workflows/consistency_report/workflow.ts";
import { runAutoWorkflow } from "./lib/workflows/auto_workflow/workflow.ts";
import { runInit } from "./lib/workflows/init/workflow.ts";
import { runRollup } from "./lib/workflows/rollup/workflow.ts";

/** The workflows that talk to a model: they run in a session (keys, client, Ctrl-C). */
const WORKFLOWS: Record<
  Exclude<Workflow, LocalWorkflow>,
  (session: Session) => Promise<number>
> = {
  commit: runCommittingCode,
  consistency: runConsistencyReport,
  auto: runAutoWorkflow,
};

/** The workflows that only set up the project: no key, no LLM call. */
type LocalWorkflow = "init" | "rollup";
const LOCAL_WORKFLOWS: Record<LocalWorkflow, (root: string, console: Console) => Promise<number>> =
  { init: runInit, rollup: runRollup };

/** The workflows that run `./build.sh` (their session decides how builds are contained). */
const RUNS_BUILDS: Record<Exclude<Workflow, LocalWorkflow>, boolean> = {
  commit: true,
  consistency: false,
  auto: true,
};

/** Runs code-commit with `args` and returns its exit status. */
export async function main(args: readonly string[]): Promise<number> {
  const console = new Console();
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
      return await LOCAL_WORKFLOWS[workflow](Deno.cwd(), console);
    }
    const trap = trapInterrupts(console);
    try {
      const session = await openSession(
        Deno.cwd(),
        workflow,
        command.options,
        console,
        trap.signal,
        RUNS_BUILDS[workflow],
      );
      return await WORKFLOWS[workflow](session);
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
