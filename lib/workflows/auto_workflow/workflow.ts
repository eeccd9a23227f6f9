/**
 * The auto workflow (`--aw`): check the modules and their graph before any LLM call, then run the
 * next task until one needs the user or nothing is left.
 * @module
 */
import { CodeCommitError, EXIT, type ExitStatus, interruption } from "../../errors/errors.ts";
import { autoWorkflowSlug } from "../../logger/log_names.ts";
import { RunLog } from "../../logger/run_log.ts";
import { checkCleanTree } from "../../preconditions/dirty_tree.ts";
import { checkBuildScript } from "../../preconditions/preconditions.ts";
import { plural } from "../../text/plural.ts";
import type { Session } from "../../session/session.ts";
import { readCache, readSpecification, writeCache } from "./cache.ts";
import { describeModule, type Module, ROOT_MODULE } from "./graph.ts";
import { loadModules, StructureError } from "./modules.ts";
import { type ModuleState, nextTask, phasesComplete, type Task } from "./next_task.ts";
import { PHASES, type StageName, STAGES } from "./stages.ts";
import { describeTask, runTask, type TaskOutcome } from "./task.ts";
import {
  describeLeftChanges,
  reportRunChanges,
  REVIEW_CHANGES,
  stoppedBy,
} from "../committing_code/run_changes.ts";

/** `L0: src/core, src/util; L1: src/llm; L2: the root module (UserSpecification.md)`. */
function describeLevels(modules: readonly Module[]): string {
  const name = (module: Module) =>
    module.path === ROOT_MODULE ? describeModule(ROOT_MODULE) : module.path;
  return [...Map.groupBy(modules, (module) => module.depth)]
    .map(([depth, level]) => `L${depth}: ${level.map(name).join(", ")}`).join("; ");
}

/** Loads the modules, printing each search warning once; the error thrown lists every problem. */
async function loadModulesReported(
  session: Session,
  warned: Set<string>,
  after?: Task,
): Promise<readonly Module[]> {
  const warnOnce = (warnings: readonly string[]) => {
    for (const warning of warnings) {
      if (!warned.has(warning)) session.console.warn(`auto workflow: ${warning}`);
      warned.add(warning);
    }
  };
  try {
    const loaded = await loadModules(session.root);
    warnOnce(loaded.warnings);
    return loaded.modules;
  } catch (error) {
    if (!(error instanceof StructureError)) throw error;
    warnOnce(error.warnings);
    if (after === undefined) throw error;
    throw new StructureError([
      `after ${describeTask(after)} passed (and was recorded), the modules have ` +
      `${plural(error.problems.length, "problem")}; fix them, then run again:\n` +
      error.problems.map((problem) => `  - ${problem}`).join("\n"),
    ]);
  }
}

/**
 * Runs the auto workflow: 0 when nothing is left, 7 when a task stopped for the user, else the
 * loop's status.
 * @throws {StructureError} listing every problem of the modules, before any LLM call.
 * @throws {CodeCommitError} for a bad `build.sh`, a refused cache path, an unusable reply or an LLM
 * error; {InterruptedError} on Ctrl-C.
 */
export async function runAutoWorkflow(session: Session): Promise<ExitStatus> {
  const { root, console, options } = session;
  session.journal.workflow = "auto workflow";
  const { maxPhase } = options;
  const warned = new Set<string>();
  let modules = await loadModulesReported(session, warned);
  let states = await loadStates(root, modules, maxPhase);
  let task = nextTask(states, maxPhase);
  console.info(
    `auto workflow with ${options.model}: ${plural(modules.length, "module")}, ` +
      `phases 1 to ${maxPhase}; ${describeLevels(modules)}`,
  );
  if (task !== undefined) {
    await checkBuildScript(root);
    if (!options.force) await checkCleanTree(root, (line) => console.warn(line));
  }

  let passed = 0;
  let lastLog: RunLog | undefined;
  try {
    while (task !== undefined) {
      if (session.signal.aborted) throw interruption(session.signal);
      const slug = autoWorkflowSlug(task.state.module.specPath, task.stage.name);
      lastLog = await RunLog.create(root, slug, session.redactor);
      const outcome = await runTask(session, task, states, modules, lastLog);
      if (outcome.kind === "status" && outcome.comment !== undefined && outcome.comment !== "") {
        console.result(`comment on ${describeTask(task)}:\n${outcome.comment}`);
      }
      if (outcome.kind !== "status" || outcome.status !== "task-success") {
        await reportRunChanges(session, lastLog);
        return stop(session, task, outcome, passed, lastLog.dir);
      }
      const file = await writeCache(
        root,
        task.state.module.path,
        task.stage.name,
        task.state.spec,
        session.journal,
      );
      passed++;
      console.info(`${describeTask(task)}: passed; recorded in ${file}`);
      modules = await loadModulesReported(session, warned, task);
      states = await loadStates(root, modules, maxPhase);
      task = nextTask(states, maxPhase);
    }
  } catch (error) {
    if (
      error instanceof CodeCommitError && lastLog !== undefined &&
      session.journal.touched().size > 0
    ) {
      const changes = await reportRunChanges(session, lastLog);
      console.result(
        `auto workflow: ${stoppedBy(error)}; ${plural(passed, "task")} passed before it; ` +
          `${describeLeftChanges(changes.length, " by this run")}${tokens(session)}; ` +
          `logs in ${lastLog.dir}`,
      );
    }
    throw error;
  }

  if (lastLog !== undefined) await reportRunChanges(session, lastLog);
  const next = phasesComplete(states) < PHASES.length && maxPhase < PHASES.length
    ? `; run with --max-phase ${maxPhase + 1} to go on to phase ${maxPhase + 1}`
    : "";
  console.result(
    `auto workflow: nothing left to do: all ${plural(states.length, "module")} ` +
      `passed ${maxPhase === 1 ? "phase 1" : `phases 1 to ${maxPhase}`} ` +
      `(${plural(passed, "task")} passed in this run${tokens(session)})${next}`,
  );
  return EXIT.ok;
}

function tokens(session: Session): string {
  return session.tally.calls === 0
    ? ""
    : `; ${plural(session.tally.calls, "LLM call")}, ${session.tally.describe()}`;
}

/** Ends the run on a task that did not pass, with its final line. */
function stop(
  session: Session,
  task: Task,
  outcome: TaskOutcome,
  passed: number,
  logDir: string,
): ExitStatus {
  const where = `${describeTask(task)} (phase ${task.stage.phase})`;
  const files = outcome.changedPaths.length === 0
    ? "no file changed"
    : `${plural(outcome.changedPaths.length, "file")} changed by the task`;
  const tail = `${plural(passed, "task")} passed before it${tokens(session)}; logs in ${logDir}`;
  if (outcome.kind === "build-failed") {
    const left = outcome.changedPaths.length === 0 ? "" : `, left in place: ${REVIEW_CHANGES}`;
    session.console.result(
      `auto workflow: ${where} failed: the build still fails after ` +
        `${plural(outcome.attempts, "attempt")} (${files}${left}); ${tail}`,
    );
    return outcome.status;
  }
  if (outcome.status === "changes-requested") {
    const repair = outcome.attempts === 1
      ? ""
      : ` in repair ${outcome.attempts - 1}, before the build passed`;
    const left = outcome.changedPaths.length === 0 ? "" : ` (left in place: ${REVIEW_CHANGES})`;
    session.console.result(
      `auto workflow: stopped at ${where}: changes requested${repair}` +
        `${outcome.comment ? " (see the comment above)" : " (the reply gave no comment)"}; ` +
        `${files}${left}; make the changes, then run code-commit --aw again; ${tail}`,
    );
    return EXIT.needsUser;
  }
  session.console.result(
    `auto workflow: stopped at ${where}: changes attempted (${files}); review them with ` +
      `git status and git diff (or take the run back with code-commit --undo), then run ` +
      `code-commit --aw again; ${tail}`,
  );
  return EXIT.needsUser;
}

/**
 * Reads every module's specification and its cache for phases 1 to `maxPhase`; a hard-linked
 * specification is refused (its other name may be outside the project).
 */
async function loadStates(
  root: string,
  modules: readonly Module[],
  maxPhase: number,
): Promise<ModuleState[]> {
  const states: ModuleState[] = [];
  for (const module of modules) {
    // Discovery found it a regular file: a link or a fifo put there since is refused.
    const spec = await readSpecification(root, module.specPath);
    if (spec === undefined) {
      throw new CodeCommitError(
        `cannot read ${module.specPath}: it was removed while code-commit ran; restore it, then run again`,
        EXIT.setup,
      );
    }
    const cache = new Map<StageName, Uint8Array>();
    for (const stage of STAGES.filter((stage) => stage.phase <= maxPhase)) {
      const cached = await readCache(root, module.path, stage.name);
      if (cached !== undefined) cache.set(stage.name, cached);
    }
    states.push({ module, spec, cache });
  }
  return states;
}
