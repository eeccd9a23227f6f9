/**
 * Everything a workflow needs for one run, set up in the order the checks must happen.
 * @module
 */
import { checkJournalWritable, RunJournal } from "../apply/journal.ts";
import { recoverFirst } from "../apply/recovery.ts";
import { Console } from "../console/console.ts";
import type { RunOptions, Workflow } from "../cli/args.ts";
import { RunRecord } from "../cli/json_result.ts";
import { workflowSpec } from "../cli/workflows.ts";
import { CodeCommitError, EXIT, InterruptedError } from "../errors/errors.ts";
import { createClient } from "../llm/client.ts";
import { loopbackKeyWarning, resolveBaseUrl, resolveLocalBaseUrl } from "../llm/endpoint.ts";
import { KEY_FILES, type ModelTarget, modelTarget } from "../llm/models.ts";
import { ask, type TokenTally } from "../llm/ask.ts";
import { replyProse } from "../reply/blocks.ts";
import type { LlmClient, LlmReply } from "../llm/types.ts";
import type { CallLogNames } from "../logger/log_names.ts";
import type { RunLog } from "../logger/run_log.ts";
import {
  checkAgentConfigIgnored,
  checkBuildScript,
  checkCodeRollup,
  readQuery,
} from "../preconditions/preconditions.ts";
import { checkRepositoryRoot } from "../preconditions/repository.ts";
import { readApiKey, readKnownKeys } from "../secrets/keys.ts";
import { Redactor } from "../secrets/redact.ts";
import {
  type Containment,
  type ContainmentDecision,
  decideContainment,
} from "../sandbox/containment.ts";
import { planSandbox } from "../sandbox/sandbox_plan.ts";
import { type BuildScriptSnapshot, snapshotBuildScript } from "../preconditions/tamper_check.ts";

/** One run of code-commit; `buildScript` is `build.sh` as first seen (`missing` without builds). */
export interface Session {
  readonly root: string;
  readonly options: RunOptions;
  readonly console: Console;
  readonly redactor: Redactor;
  readonly client: LlmClient;
  /** Aborts on Ctrl-C. */
  readonly signal: AbortSignal;
  readonly tally: TokenTally;
  readonly record: RunRecord;
  readonly containment: Containment;
  readonly buildScript: BuildScriptSnapshot;
  readonly journal: RunJournal;
}

/**
 * Checks the run's preconditions in order and sets up the session before any LLM call; with
 * `runsBuilds`, the sandbox is decided and planned too. @throws {UsageError} when a local model has
 * no loopback URL; {JournalError} when an unfinished apply cannot be rolled back;
 * {CodeCommitError} from a subfolder, or listing every set-up problem together.
 */
export async function openSession(
  root: string,
  workflow: Workflow,
  options: RunOptions,
  console: Console,
  signal: AbortSignal,
  runsBuilds: boolean,
  record: RunRecord,
): Promise<Session> {
  const target = modelTarget(options.model, options.contextWindow);
  const localBaseUrl = target.local ? localServer(target, options) : undefined;
  await checkRepositoryRoot(root, false);
  // The sandbox probe runs while the set-up is checked.
  const containing = runsBuilds
    ? Deno.realPath(root).then((realRoot) =>
      decideContainment({ mode: options.sandbox, network: options.buildNetwork, root: realRoot })
    )
    : undefined;
  containing?.catch(() => {});
  // Before any other check or call in the project: roll back an apply a killed run left.
  await recoverFirst(root, (line) => console.warn(line));
  // A run that applies replies needs a journal that takes writes, before any call.
  if ((workflow === "commit" || workflow === "auto") && !options.dryRun) {
    await checkJournalWritable(root);
  }
  const key = await checkSetUp(root, workflow, options, target);
  // Every key file that exists is masked, the chosen model's or not, local model or not.
  const known = await readKnownKeys(root, KEY_FILES);
  const redactor = new Redactor(key === undefined ? known : [key, ...known]);
  console.useRedactor(redactor);
  const baseUrl = target.local
    ? localBaseUrl as string
    : resolveBaseUrl(target.baseUrlEnv, Deno.env.get(target.baseUrlEnv), target.defaultBaseUrl);
  if (key !== undefined && !target.local) {
    const warning = loopbackKeyWarning(target.provider, target.baseUrlEnv, baseUrl);
    if (warning !== undefined) console.warn(warning);
  }
  const client = createClient(options.model, key, baseUrl, { timeoutMs: options.llmTimeoutMs });
  const { containment, buildScript } = containing === undefined
    ? {
      containment: { kind: "none", why: "this workflow runs no build" } as const,
      buildScript: { kind: "missing" } as const,
    }
    : await settleContainment(root, containing, console);
  return {
    root,
    options,
    console,
    redactor,
    client,
    signal,
    tally: record.tally,
    record,
    containment,
    buildScript,
    journal: new RunJournal(root, { workflow: "code-commit" }),
  };
}

/** Checks all the set-up the workflow needs, every problem listed; the key (none for a local model). */
async function checkSetUp(
  root: string,
  workflow: Workflow,
  options: RunOptions,
  target: ModelTarget,
): Promise<string | undefined> {
  const problems: string[] = [];
  const check = <T>(step: () => Promise<T>): Promise<T | undefined> =>
    step().catch((error) => {
      if (!(error instanceof CodeCommitError) || error instanceof InterruptedError) throw error;
      problems.push(error.message);
      return undefined;
    });
  const needs = workflowSpec(workflow).needs;
  await check(() => checkAgentConfigIgnored(root));
  const key = target.local || !needs.key
    ? undefined
    : await check(() => readApiKey(root, target.keyFile, target.vendor));
  if (needs.query) await check(() => readQuery(root));
  if (needs.rollup && !options.buildContext) await check(() => checkCodeRollup(root));
  if (needs.buildScript) await check(() => checkBuildScript(root));
  if (problems.length === 1) throw new CodeCommitError(problems[0], EXIT.setup);
  if (problems.length > 1) {
    throw new CodeCommitError(
      `${problems.length} things to set up before code-commit can run ` +
        `(code-commit --init makes the missing files it can):\n` +
        problems.map((problem) => `  - ${problem}`).join("\n"),
      EXIT.setup,
    );
  }
  return key;
}

/** A local model's server: the environment's (one run wins over the project's), else the settings'. */
function localServer(target: ModelTarget, options: RunOptions): string {
  const fromEnvironment = Deno.env.get(target.baseUrlEnv);
  if (!fromEnvironment && options.localBaseUrl) return options.localBaseUrl;
  return resolveLocalBaseUrl(target.baseUrlEnv, fromEnvironment, target.id);
}

/**
 * How builds are contained (warning when `auto` found no sandbox, a sandbox planned once), and
 * `build.sh` as first seen. @throws {CodeCommitError}
 */
export async function settleContainment(
  root: string,
  containing: Promise<ContainmentDecision>,
  console: Console,
): Promise<{ containment: Containment; buildScript: BuildScriptSnapshot }> {
  const buildScript = await snapshotBuildScript(root);
  const realRoot = await Deno.realPath(root);
  const decision = await containing;
  if (decision.warning !== undefined) console.warn(decision.warning);
  if (decision.containment.kind !== "none") await planSandbox(realRoot);
  return { containment: decision.containment, buildScript };
}

/** The session's model with its limits (a local model's from `--context-window`). Never throws. */
export function sessionModel(session: Session): ModelTarget {
  return modelTarget(session.options.model, session.options.contextWindow);
}

/**
 * Sends `prompt` to the session's model (see {@link ask}), logged in `log` under `names`, noting
 * the log folder and the reply's prose in the record. @throws as `ask`.
 */
export async function askModel(
  session: Session,
  log: RunLog,
  names: CallLogNames,
  prompt: string,
): Promise<LlmReply> {
  const target = sessionModel(session);
  session.record.logDir = log.dir;
  const reply = await ask(session.client, prompt, {
    budget: {
      model: target.id,
      inputLimit: target.inputLimit,
      local: target.local,
      buildContext: session.options.buildContext,
    },
    console: session.console,
    log,
    names,
    redactor: session.redactor,
    signal: session.signal,
    tally: session.tally,
  });
  session.record.prose.push({
    log: log.path(names.replyText),
    text: replyProse(reply.text).join("\n"),
  });
  return reply;
}
