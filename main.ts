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
import { parseCommandLine, runsBuilds, wantsJson, type Workflow } from "./lib/cli/args.ts";
import { helpText, versionText } from "./lib/cli/help.ts";
import { trapInterrupts } from "./lib/cli/interrupt.ts";
import { formatJsonResult, jsonResult } from "./lib/cli/json_result.ts";
import { RunRecord } from "./lib/cli/run_record.ts";
import { Console } from "./lib/console/console.ts";
import { CodeCommitError, EXIT, type ExitStatus } from "./lib/errors/errors.ts";
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
  () => Promise<(root: string, console: Console) => Promise<ExitStatus>>
> = {
  init: async () => (await import("./lib/workflows/init/workflow.ts")).runInit,
  rollup: async () => (await import("./lib/workflows/rollup/workflow.ts")).runRollup,
};

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
 * Runs the workflow `args` ask for, noting in `record` what the JSON object needs.
 *
 * @throws {CodeCommitError} for a wrong command line, and whatever the workflow throws.
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
      return await runUndoWorkflow(Deno.cwd(), command.options, console, record);
    }
    if (workflow === "check-build") {
      // --check-build runs ./build.sh as a run would, and calls no model: no key needed.
      const { runCheckBuild } = await import("./lib/workflows/committing_code/check_build.ts");
      return await runCheckBuild(Deno.cwd(), command.options, console, trap.signal, record);
    }
    record.model = command.options.model;
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
      record,
    );
    return await run(session);
  } finally {
    trap.dispose();
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
