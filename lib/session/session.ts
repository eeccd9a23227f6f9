/**
 * Everything a workflow needs for one run, set up in the order the checks
 * must happen: a local model has a local server, an apply that a killed
 * run left unfinished is rolled back, `.gitignore` protects the keys, the chosen model's key is there (a local model needs none), every
 * key is known to the redactor, the endpoint is safe, and (for a
 * workflow that builds) how `./build.sh` is contained.
 *
 * @module
 */
import { RunJournal } from "../apply/journal.ts";
import { checkJournalWritable } from "../apply/journal_writable.ts";
import { recoverFirst } from "../apply/recovery.ts";
import { Console } from "../console/console.ts";
import type { RunOptions, Workflow } from "../cli/args.ts";
import { RunRecord } from "../cli/run_record.ts";
import { workflowSpec } from "../cli/workflows.ts";
import { CodeCommitError, EXIT, InterruptedError } from "../errors/errors.ts";
import { createClient } from "../llm/client.ts";
import { loopbackKeyWarning, resolveBaseUrl, resolveLocalBaseUrl } from "../llm/endpoint.ts";
import { KEY_FILES, type ModelTarget, modelTarget } from "../llm/models.ts";
import { ask, type TokenTally } from "../llm/ask.ts";
import { replyProse } from "../reply/prose.ts";
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

/** One run of code-commit. */
export interface Session {
  /** The project root (the current directory). */
  readonly root: string;
  /** The options of the run. */
  readonly options: RunOptions;
  /** Where the user is told what happens. */
  readonly console: Console;
  /** Masks every known key. */
  readonly redactor: Redactor;
  /** The chosen model. */
  readonly client: LlmClient;
  /** Aborts on Ctrl-C. */
  readonly signal: AbortSignal;
  /** Token totals of the run (the record's). */
  readonly tally: TokenTally;
  /** What the run did, for the `--json` object: workflows note their log folder, attempts and changes here. */
  readonly record: RunRecord;
  /** How every `./build.sh` of the run is started (`--sandbox`, `--build-network`). */
  readonly containment: Containment;
  /**
   * `build.sh` as it was when the run started: every applied reply and
   * every build is checked against it (a run that builds nothing has
   * `missing` here).
   */
  readonly buildScript: BuildScriptSnapshot;
  /** The run's apply journal: every reply applied is recorded there first. */
  readonly journal: RunJournal;
}

/** The files a workflow needs before its first call, besides `.gitignore` and the key. */
export interface SetupNeeds {
  /** `agent-config/query.txt`, not empty. */
  readonly query: boolean;
  /** `agent-config/codeRollup.txt`. */
  readonly rollup: boolean;
  /** An executable `./build.sh` that is not `--init`'s placeholder. */
  readonly buildScript: boolean;
}

/**
 * What `workflow` needs before its first call, from the workflow table
 * (`lib/cli/workflows.ts`): the rollup only without `--build-context`. The
 * auto workflow checks `build.sh` itself, once it has a task that builds.
 * Never throws.
 */
export function setupNeeds(workflow: Workflow, options: RunOptions): SetupNeeds {
  const needs = workflowSpec(workflow).needs;
  return {
    query: needs.query,
    rollup: needs.rollup && !options.buildContext,
    buildScript: needs.buildScript,
  };
}

/**
 * Checks the run's preconditions and sets up the session. The folder must
 * not be a subfolder of a git repository (that alone stops the run); then
 * every set-up piece is checked and every problem found is reported
 * together, so one run names them all: the `.gitignore` rules that keep the
 * keys out of git, the chosen model's key, and what `workflow` needs (see
 * {@link setupNeeds}).
 *
 * With `runsBuilds`, looks at `build.sh` once (see `snapshotBuildScript`)
 * and decides how the run's builds are contained, before any LLM call:
 * `--sandbox auto` without a sandbox prints one warning; with a sandbox, the
 * project is planned once so that what the sandbox cannot contain (a key
 * reached through a link it cannot follow, too many hard links out of the
 * project) stops the run before it costs anything.
 *
 * @throws {UsageError} when a local model has no loopback
 * `CODE_COMMIT_OPENAI_BASE_URL` (checked first).
 * @throws {JournalError} when an interrupted apply cannot be rolled back.
 * @throws {CodeCommitError} run from a subfolder of a repository; for every
 * missing or wrong piece (one line each, after a first line saying how many
 * when there are several); when the endpoint override is unsafe, or
 * `--sandbox on` / `--build-network off` finds no sandbox.
 */
export async function openSession(
  root: string,
  workflow: Workflow,
  options: RunOptions,
  console: Console,
  signal: AbortSignal,
  runsBuilds = true,
  record: RunRecord = new RunRecord(),
): Promise<Session> {
  const target = modelTarget(options.model, options.contextWindow);
  // Whether a local model has a server here depends on the command line and
  // the environment alone: told before anything else.
  const localBaseUrl = target.local ? localServer(target, options) : undefined;
  await checkRepositoryRoot(root, false);
  // The sandbox probe (bubblewrap, once) runs while the set-up is checked; its verdict is
  // taken below: a run that stops before then has no use for it.
  const containing = runsBuilds
    ? Deno.realPath(root).then((realRoot) =>
      decideContainment({ mode: options.sandbox, network: options.buildNetwork, root: realRoot })
    )
    : undefined;
  containing?.catch(() => {});
  // First thing in the project (main.ts took its lock and trapped the signals before), before
  // any other check or call: an apply a killed run left unfinished is rolled back.
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
  const client = connectModel(options, target, key, localBaseUrl, console);
  const { containment, buildScript } = containing === undefined
    ? NO_BUILD
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

/**
 * Checks the set-up the workflow needs (agent-config/ ignored, the key, the
 * query, the rollup, `build.sh`), all of them, and returns the key (none for
 * a local model).
 *
 * @throws {CodeCommitError} listing every problem found (one line for one).
 * @throws {InterruptedError} on Ctrl-C.
 */
async function checkSetUp(
  root: string,
  workflow: Workflow,
  options: RunOptions,
  target: ModelTarget,
): Promise<string | undefined> {
  const problems: string[] = [];
  const check = async <T>(step: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await step();
    } catch (error) {
      if (!(error instanceof CodeCommitError) || error instanceof InterruptedError) throw error;
      problems.push(error.message);
      return undefined;
    }
  };
  const needs = { ...setupNeeds(workflow, options), key: workflowSpec(workflow).needs.key };
  await check(() => checkAgentConfigIgnored(root));
  const key = target.local || !needs.key
    ? undefined
    : await check(() => readApiKey(root, target.keyFile, target.vendor));
  if (needs.query) await check(() => readQuery(root));
  if (needs.rollup) await check(() => checkCodeRollup(root));
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

/**
 * The base URL of a local model's server: `CODE_COMMIT_OPENAI_BASE_URL`
 * when set (the environment of one run wins over the project's standing
 * choice), else `localBaseUrl` from `agent-config/settings.json` (checked
 * when the file was read).
 *
 * @throws {UsageError} as `resolveLocalBaseUrl`, when neither names a
 * server on this machine.
 */
function localServer(target: ModelTarget, options: RunOptions): string {
  const fromEnvironment = Deno.env.get(target.baseUrlEnv);
  if ((fromEnvironment === undefined || fromEnvironment === "") && options.localBaseUrl) {
    return options.localBaseUrl;
  }
  return resolveLocalBaseUrl(target.baseUrlEnv, fromEnvironment, target.id);
}

/**
 * The client of the chosen model at its base URL (`localBaseUrl` for a
 * local model, resolved before), with the warning when a key would go to a
 * loopback address.
 *
 * @throws {CodeCommitError} naming the variable when the base URL in the
 * environment is not one code-commit sends a key to (see `resolveBaseUrl`).
 */
function connectModel(
  options: RunOptions,
  target: ModelTarget,
  key: string | undefined,
  localBaseUrl: string | undefined,
  console: Console,
): LlmClient {
  const baseUrl = target.local
    ? localBaseUrl as string
    : resolveBaseUrl(target.baseUrlEnv, Deno.env.get(target.baseUrlEnv), target.defaultBaseUrl);
  if (key !== undefined && !target.local) {
    const warning = loopbackKeyWarning(target.provider, target.baseUrlEnv, baseUrl);
    if (warning !== undefined) console.warn(warning);
  }
  return createClient(options.model, key, baseUrl, { timeoutMs: options.llmTimeoutMs });
}

/** How builds are contained, and `build.sh` as it was first seen. */
export interface BuildSetUp {
  readonly containment: Containment;
  readonly buildScript: BuildScriptSnapshot;
}

/** The build set-up of a workflow that runs no build. */
const NO_BUILD: BuildSetUp = {
  containment: { kind: "none", why: "this workflow runs no build" },
  buildScript: { kind: "missing" },
};

/**
 * Takes `build.sh`'s first snapshot and the sandbox probe's verdict
 * (`containing`, started earlier), warns when `auto` found no sandbox, and
 * plans the sandbox once for a contained build.
 *
 * @throws {CodeCommitError} as `snapshotBuildScript` (a `build.sh` that
 * cannot be read as a script), `decideContainment` (`--sandbox on` and no
 * sandbox) and `planSandbox` do.
 */
export async function settleContainment(
  root: string,
  containing: Promise<ContainmentDecision>,
  console: Console,
): Promise<BuildSetUp> {
  const buildScript = await snapshotBuildScript(root);
  const realRoot = await Deno.realPath(root);
  const decision = await containing;
  if (decision.warning !== undefined) console.warn(decision.warning);
  if (decision.containment.kind !== "none") await planSandbox(realRoot);
  return { containment: decision.containment, buildScript };
}

/**
 * The session's model with its limits: a local model's from its window
 * (`--context-window`, or the default). Every prompt a session sends is
 * measured against this one input limit. Never throws.
 */
export function sessionModel(session: Session): ModelTarget {
  return modelTarget(session.options.model, session.options.contextWindow);
}

/**
 * Sends `prompt` to the session's model as every workflow does (see
 * {@link ask}): logged in `log` under `names`, shown on the session's
 * console, refused if it holds a key, interrupted by Ctrl-C, its tokens
 * added to the session's totals, and not sent when it cannot fit the
 * model's input limit (`--context-window` for a local model). The log
 * folder and the reply's prose are noted in the session's record.
 *
 * @throws {CodeCommitError} when the prompt contains an API key (not sent),
 * or cannot fit the model's input limit (exit `EXIT.setup`).
 * @throws {LlmError} when the call fails.
 * @throws {InterruptedError} on Ctrl-C.
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
