/**
 * One auto-workflow task: a stage run on a module, logged in its own folder
 * (`logs/<time>-auto-workflow-<spec path, / as +>-<stage>`).
 *
 * A review stage (self-consistent) is one direct LLM call: the reply's file
 * blocks are never applied, and `changes-attempted` is an error. A
 * code-changing stage runs through the committing-code loop — files guarded,
 * applied all or nothing, built and repaired exactly as there — and the
 * status tag of the loop's last reply decides, once the build passes.
 *
 * @module
 */
import { runCommitLoop } from "../committing_code/loop.ts";
import { CodeCommitError } from "../../errors/errors.ts";
import {
  autoWorkflowSlug,
  type CallLogNames,
  INITIAL_QUERY,
  repairQuery,
  SINGLE_QUERY,
} from "../../logger/log_names.ts";
import { RunLog } from "../../logger/run_log.ts";
import { askModel, type Session } from "../../session/session.ts";
import { assembleCodebase } from "./codebase.ts";
import type { Module } from "./graph.ts";
import { describeModule, ROOT_MODULE } from "./module_paths.ts";
import type { ModuleState, Task } from "./plan.ts";
import { changeQuery, type PromptInputs, reviewPrompt } from "./prompts.ts";
import { parseStatusReply, type Status } from "./reply.ts";

/** How a task ended. */
export type TaskOutcome =
  | {
    /** The build passed (or no build: a review) and the reply gave a status. */
    readonly kind: "status";
    /** The status of the reply: it decides what the workflow does. */
    readonly status: Status;
    /** The reply's comment, if any. */
    readonly comment: string | undefined;
    /** Every file the task changed, sorted. */
    readonly changedPaths: readonly string[];
    /** The task's log folder, relative to the project root. */
    readonly logDir: string;
  }
  | {
    /** A code-changing stage whose build still fails after the repairs. */
    readonly kind: "build-failed";
    /** LLM calls made. */
    readonly attempts: number;
    /** Every file the task changed, sorted. */
    readonly changedPaths: readonly string[];
    /** The task's log folder. */
    readonly logDir: string;
  };

const decoder = new TextDecoder("utf-8", { fatal: true });

function specText(path: string, bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw new CodeCommitError(`${path} is not valid UTF-8 text: save it as UTF-8, then run again`);
  }
}

/** `src/llm (src/llm/UserSpecification.md), stage implemented`. */
export function describeTask(task: Task): string {
  return `${describeModule(task.state.module.path)}, stage ${task.stage.name}`;
}

function changedNote(paths: readonly string[]): string {
  return paths.length === 0
    ? ""
    : ` (${paths.length} file${paths.length === 1 ? "" : "s"} this task changed ${
      paths.length === 1 ? "is" : "are"
    } left in place: review with git diff)`;
}

/**
 * Runs `task` on the project of `session`. `states` are every module's
 * states (the root module's gives the top-level specification); `modules`
 * the whole graph.
 *
 * @throws {CodeCommitError} naming the log file when the reply has no usable
 * status (no tag, two tags, two comments, a malformed comment), was cut off
 * (review), or says `changes-attempted` in a review; when a specification is
 * not UTF-8; when a file cannot be read.
 * @throws {LlmError} when an LLM call fails.
 * @throws {InterruptedError} on Ctrl-C.
 */
export async function runTask(
  session: Session,
  task: Task,
  states: readonly ModuleState[],
  modules: readonly Module[],
): Promise<TaskOutcome> {
  const { root, console } = session;
  const module = task.state.module;
  const rootState = states.find((state) => state.module.path === ROOT_MODULE);
  if (rootState === undefined) throw new RangeError("runTask: the root module has no state");

  const log = await RunLog.create(
    root,
    autoWorkflowSlug(module.specPath, task.stage.name),
    session.redactor,
  );
  console.info(
    `phase ${task.stage.phase}, L${module.depth}: ${describeTask(task)}` +
      `${task.cached === undefined ? "" : " (its specification changed since it last passed)"}; ` +
      `logs in ${log.dir}`,
  );
  const inputs: PromptInputs = {
    module,
    modules,
    stage: task.stage,
    spec: specText(module.specPath, task.state.spec),
    topSpec: specText(rootState.module.specPath, rootState.spec),
    cached: task.cached === undefined ? undefined : new TextDecoder().decode(task.cached),
  };

  if (task.stage.kind === "review") {
    const reply = await askModel(session, log, SINGLE_QUERY, reviewPrompt(inputs));
    const replyFile = log.path(SINGLE_QUERY.responseText);
    if (reply.truncated) {
      throw new CodeCommitError(
        `${describeTask(task)}: the reply was cut off at the model's output limit ` +
          `(finish reason ${reply.finishReason}); see ${replyFile}, then run again`,
      );
    }
    const parsed = parseStatusReply(reply.text);
    if (!parsed.ok) {
      throw new CodeCommitError(`${describeTask(task)}: ${parsed.error}; see ${replyFile}`);
    }
    if (parsed.fileBlocks > 0) {
      console.warn(
        `the reply holds ${parsed.fileBlocks} file block${parsed.fileBlocks === 1 ? "" : "s"}, ` +
          `ignored: ${task.stage.name} reviews only and changes no file`,
      );
    }
    if (parsed.status === "changes-attempted") {
      throw new CodeCommitError(
        `${describeTask(task)}: the reply says changes-attempted, but ${task.stage.name} ` +
          `reviews only and changes no file (nothing was written); see ${replyFile}, then run again`,
      );
    }
    return {
      kind: "status",
      status: parsed.status,
      comment: parsed.comment,
      changedPaths: [],
      logDir: log.dir,
    };
  }

  const codebase = await assembleCodebase(root, module, modules, task.stage.codebase);
  for (const warning of codebase.warnings) console.warn(`${describeTask(task)}: ${warning}`);
  const result = await runCommitLoop(session, log, changeQuery(inputs), codebase.text);
  if (!result.passed) {
    return {
      kind: "build-failed",
      attempts: result.attempts,
      changedPaths: result.changedPaths,
      logDir: log.dir,
    };
  }
  const names: CallLogNames = result.attempts === 1
    ? INITIAL_QUERY
    : repairQuery(result.attempts - 1);
  const parsed = parseStatusReply(result.lastReply.text);
  if (!parsed.ok) {
    throw new CodeCommitError(
      `${describeTask(task)}: the build passed, but ${parsed.error}; see ${
        log.path(names.responseText)
      }` +
        changedNote(result.changedPaths),
    );
  }
  if (parsed.status === "task-success" && result.changedPaths.length > 0) {
    // SPEC decision 13: the tag decides; the user is told what to review.
    console.warn(
      `${describeTask(task)} changed ${result.changedPaths.join(", ")} and its reply says ` +
        "task-success: the stage is recorded as passed; review the changes with git diff",
    );
  }
  return {
    kind: "status",
    status: parsed.status,
    comment: parsed.comment,
    changedPaths: result.changedPaths,
    logDir: log.dir,
  };
}
