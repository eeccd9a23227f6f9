/**
 * One auto-workflow task: a stage run on a module, logged in its own folder; a review is one LLM
 * call, a code-changing stage the committing-code loop, ended before it is applied by a
 * `changes-requested` reply.
 * @module
 */
import { runCommitLoop } from "../committing_code/loop.ts";
import { CodeCommitError, EXIT, type ExitStatus } from "../../errors/errors.ts";
import { decodeStrictly } from "../../text/utf8.ts";
import { SINGLE_QUERY } from "../../logger/log_names.ts";
import type { RunLog } from "../../logger/run_log.ts";
import { askModel, type Session } from "../../session/session.ts";
import { plural } from "../../text/plural.ts";
import { nameSome } from "../../text/change_list.ts";
import { assembleTaskCodebase } from "./task_codebase.ts";
import { describeModule, type Module, ROOT_MODULE } from "./graph.ts";
import type { ModuleState, Task } from "./next_task.ts";
import { changeQuery, type PromptInputs, reviewPrompt } from "./stage_prompts.ts";
import { parseStatusReply, proseWithoutStatus, type Status } from "./reply.ts";

interface Ended {
  /** LLM calls the task made (more than 1: the reply came in a repair). */
  readonly attempts: number;
  /** Every file the task changed, sorted. */
  readonly changedPaths: readonly string[];
}

/** How a task ended: a status, or a build still failing after the repairs (the loop's status). */
export type TaskOutcome =
  | Ended & {
    readonly kind: "status";
    readonly status: Status;
    readonly comment: string | undefined;
  }
  | Ended & { readonly kind: "build-failed"; readonly status: ExitStatus };

/** `src/llm (src/llm/UserSpecification.md), stage implemented`. Never throws. */
export function describeTask(task: Task): string {
  return `${describeModule(task.state.module.path)}, stage ${task.stage.name}`;
}

/**
 * Runs `task`, logged in `log` (its own folder).
 * @throws {CodeCommitError} naming the log file for an unusable reply; for a non-UTF-8
 * specification or an unreadable file. {LlmError}; {InterruptedError} on Ctrl-C.
 */
export async function runTask(
  session: Session,
  task: Task,
  states: readonly ModuleState[],
  modules: readonly Module[],
  log: RunLog,
): Promise<TaskOutcome> {
  const module = task.state.module;
  session.journal.logDir = log.dir;
  session.record.logDir = log.dir;
  session.console.info(
    `phase ${task.stage.phase}, L${module.depth}: ${describeTask(task)}` +
      `${task.cached === undefined ? "" : " (its specification changed since it last passed)"}; ` +
      `logs in ${log.dir}`,
  );
  const rootState = states.find((state) => state.module.path === ROOT_MODULE);
  if (rootState === undefined) throw new RangeError("runTask: the root module has no state");
  const inputs: PromptInputs = {
    module,
    modules,
    stage: task.stage,
    spec: specText(module.specPath, task.state.spec),
    topSpec: specText(rootState.module.specPath, rootState.spec),
    cached: task.cached === undefined ? undefined : new TextDecoder().decode(task.cached),
  };
  if (task.stage.kind !== "review") return await runChange(session, task, log, inputs);
  // A review changes no file: its file blocks are never applied.
  const reply = await askModel(session, log, SINGLE_QUERY, reviewPrompt(inputs));
  const replyFile = log.path(SINGLE_QUERY.replyText);
  if (reply.truncated) {
    throw new CodeCommitError(
      `${describeTask(task)}: the reply was cut off at the model's output limit ` +
        `(finish reason ${reply.finishReason}); see ${replyFile}, then run again`,
      EXIT.model,
    );
  }
  const parsed = parseStatusReply(reply.text);
  if (!parsed.ok) {
    throw new CodeCommitError(
      `${describeTask(task)}: ${parsed.reason}; see ${replyFile}`,
      EXIT.model,
    );
  }
  if (parsed.fileBlocks > 0) {
    session.console.warn(
      `the reply holds ${plural(parsed.fileBlocks, "file block")}, ignored: ` +
        `${task.stage.name} reviews only and changes no file`,
    );
  }
  if (parsed.status === "changes-attempted") {
    throw new CodeCommitError(
      `${describeTask(task)}: the reply says changes-attempted, but ${task.stage.name} ` +
        `reviews only and changes no file (nothing was written); see ${replyFile}, then run again`,
      EXIT.model,
    );
  }
  const { status, comment } = parsed;
  return { kind: "status", status, comment, attempts: 1, changedPaths: [] };
}

function specText(path: string, bytes: Uint8Array): string {
  const text = decodeStrictly(bytes);
  if (text !== undefined) return text;
  throw new CodeCommitError(
    `${path} is not valid UTF-8 text: save it as UTF-8, then run again`,
    EXIT.setup,
  );
}

/** A code-changing stage; once the build passes, the last reply's status decides. */
async function runChange(
  session: Session,
  task: Task,
  log: RunLog,
  inputs: PromptInputs,
): Promise<TaskOutcome> {
  const { module, modules, stage } = inputs;
  const codebase = await assembleTaskCodebase(session.root, module, modules, stage.codebase);
  for (const warning of codebase.warnings) {
    session.console.warn(`${describeTask(task)}: ${warning}`);
  }
  const result = await runCommitLoop(session, log, changeQuery(inputs), codebase.text, {
    inspect: (reply) => {
      const parsed = parseStatusReply(reply.text);
      return parsed.ok && parsed.status === "changes-requested"
        ? "the reply says changes-requested, so none of it was applied"
        : undefined;
    },
    prose: proseWithoutStatus,
  });
  const { attempts, changedPaths } = result;
  // A stopped loop's last reply is the changes-requested one, never applied.
  const parsed = parseStatusReply(result.lastReply.text);
  if (result.stopped && parsed.ok && parsed.fileBlocks > 0) {
    session.console.warn(
      `the reply holds ${plural(parsed.fileBlocks, "file block")}, not applied: ` +
        "a changes-requested reply changes no file",
    );
  }
  if (!result.stopped && result.status !== EXIT.ok) {
    return { kind: "build-failed", status: result.status, attempts, changedPaths };
  }
  if (!parsed.ok) {
    const verb = changedPaths.length === 1 ? "is" : "are";
    const left = changedPaths.length === 0
      ? ""
      : ` (${plural(changedPaths.length, "file")} this task changed ${verb} left in place: ` +
        "review with git status and git diff, or take the run back with code-commit --undo)";
    throw new CodeCommitError(
      `${describeTask(task)}: the build passed, but ${parsed.reason}; ` +
        `see ${log.path(result.lastNames.replyText)}${left}`,
      EXIT.model,
    );
  }
  if (parsed.status === "task-success" && changedPaths.length > 0) {
    // The tag decides, even when the reply changed files; the user is told what to review.
    const named = nameSome(changedPaths);
    session.console.warn(
      `${describeTask(task)} changed ${named} and its reply says task-success: the stage is ` +
        "recorded as passed; review the changes with git status and git diff",
    );
  }
  const { status, comment } = parsed;
  return { kind: "status", status, comment, attempts, changedPaths };
}
