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

const WORKFLOWS: Record<Workflow, (session: Session) => Promise<number>> = {
  commit: runCommittingCode,
  consistency: runConsistencyReport,
  auto: runAutoWorkflow,
};

/** The workflows that run `./build.sh` (their session decides how builds are contained). */
const RUNS_BUILDS: Record<Workflow, boolean> = { commit: true, consistency: false, auto: true };

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
    const trap = trapInterrupts(console);
    try {
      const session = await openSession(
        Deno.cwd(),
        command.options,
        console,
        trap.signal,
        RUNS_BUILDS[command.workflow],
      );
      return await WORKFLOWS[command.workflow](session);
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
