/**
 * The command line of code-commit, parsed strictly: one workflow flag at
 * most, `--model` from the model table, a few options, and nothing else.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
import {
  DEFAULT_MODEL,
  isLocalModel,
  MODEL_NAMES,
  type ModelId,
  parseModelId,
} from "../llm/models.ts";
import {
  BUILD_NETWORKS,
  type BuildNetwork,
  SANDBOX_MODES,
  type SandboxMode,
} from "../sandbox/modes.ts";

/** The workflows code-commit runs. */
export type Workflow =
  | "commit"
  | "consistency"
  | "auto"
  | "init"
  | "rollup"
  | "undo"
  | "check-build";

/** What the command line asked for. */
export type Command =
  | { readonly kind: "help" }
  | { readonly kind: "version" }
  | { readonly kind: "run"; readonly workflow: Workflow; readonly options: RunOptions };

/** Options of a run, with their defaults filled in. */
export interface RunOptions {
  /** The model every LLM call of the run uses: one of the table, or `local:NAME`. */
  readonly model: ModelId;
  /** Build the codebase with the context builder instead of reading agent-config/codeRollup.txt. */
  readonly buildContext: boolean;
  /** How long one `./build.sh` may run, in milliseconds. */
  readonly buildTimeoutMs: number;
  /** How long one LLM request may take, in milliseconds. */
  readonly llmTimeoutMs: number;
  /** The auto workflow runs phases up to this one (1 unless `--max-phase` says more). */
  readonly maxPhase: number;
  /** Whether `./build.sh` runs in a sandbox: where available (`auto`), always (`on`), never (`off`). */
  readonly sandbox: SandboxMode;
  /** Whether a contained build reaches the network. */
  readonly buildNetwork: BuildNetwork;
  /**
   * `--force`: committing code and the auto workflow run on a tree with
   * uncommitted changes; `--undo` restores paths changed since the run.
   */
  readonly force: boolean;
  /** `--dry-run` (committing code): show what the first reply would change, and change nothing. */
  readonly dryRun: boolean;
  /**
   * A local model's context window in tokens (`--context-window`), prompt
   * and answer together; undefined for the default (`LOCAL_CONTEXT_WINDOW`).
   * Only a `local:NAME` model reads it.
   */
  readonly contextWindow?: number;
  /** `--json`: stdout carries only one JSON object when the run ends (see `json_result.ts`). */
  readonly json: boolean;
}

/** Default time one `./build.sh` may run: 30 minutes. */
export const DEFAULT_BUILD_TIMEOUT_SECONDS = 1800;
/** Default time one LLM request may take: 15 minutes, for a thinking model on a large prompt. */
export const DEFAULT_LLM_TIMEOUT_SECONDS = 900;

/**
 * Whether `workflow` runs `./build.sh` (committing code, the auto
 * workflow, `--check-build`): only these take `--sandbox` and
 * `--build-network`, and only they decide how builds are contained. Never throws.
 */
export function runsBuilds(workflow: Workflow): boolean {
  return workflow === "commit" || workflow === "auto" || workflow === "check-build";
}

/** Each workflow flag and the workflow it selects. */
const WORKFLOW_FLAGS: Readonly<Record<string, Workflow>> = {
  "commit": "commit",
  "consistency-check": "consistency",
  "consistency": "consistency",
  "cc": "consistency",
  "auto-workflow": "auto",
  "aw": "auto",
  "init": "init",
  "rollup": "rollup",
  "undo": "undo",
  "check-build": "check-build",
};

/** Every flag: a boolean one, or one that takes a value (`string`); `short` is its one-letter form. */
const OPTIONS: Readonly<Record<string, { type: "boolean" | "string"; short?: string }>> = {
  "help": { type: "boolean", short: "h" },
  "version": { type: "boolean" },
  "model": { type: "string" },
  "build-context": { type: "boolean" },
  "build-timeout": { type: "string" },
  "llm-timeout": { type: "string" },
  "max-phase": { type: "string" },
  "sandbox": { type: "string" },
  "build-network": { type: "string" },
  "force": { type: "boolean" },
  "dry-run": { type: "boolean" },
  "context-window": { type: "string" },
  "json": { type: "boolean" },
  ...Object.fromEntries(Object.keys(WORKFLOW_FLAGS).map((flag) => [flag, { type: "boolean" }])),
};

/**
 * Parses the arguments after the program name.
 *
 * @throws {UsageError} for an unknown flag, a flag given twice, a missing or
 * bad value, an unknown model, a positional argument, or two workflow flags.
 */
export function parseCommandLine(args: readonly string[]): Command {
  const values = readFlags(args);
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  const workflow = chooseWorkflow(values);
  const model = chooseModel(values);
  checkFlagsApply(values, workflow);
  const containment = chooseContainment(values);
  const maxPhaseText = values["max-phase"] as string | undefined;
  const contextWindow = chooseContextWindow(values, model);
  return {
    kind: "run",
    workflow,
    options: {
      model,
      buildContext: values["build-context"] === true,
      buildTimeoutMs: seconds(
        "--build-timeout",
        values["build-timeout"] as string | undefined,
        DEFAULT_BUILD_TIMEOUT_SECONDS,
      ),
      llmTimeoutMs: seconds(
        "--llm-timeout",
        values["llm-timeout"] as string | undefined,
        DEFAULT_LLM_TIMEOUT_SECONDS,
      ),
      maxPhase: maxPhaseText === undefined ? 1 : phase(maxPhaseText),
      ...containment,
      force: values.force === true,
      dryRun: values["dry-run"] === true,
      json: values.json === true,
      ...(contextWindow === undefined ? {} : { contextWindow }),
    },
  };
}

/**
 * Whether `args` hold `--json` among the flags (before a `--`), read
 * without parsing them: a run whose command line is wrong still ends with
 * the JSON object. Never throws.
 */
export function wantsJson(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).includes("--json");
}

/** The fewest and the most tokens `--context-window` takes. */
const CONTEXT_WINDOW_RANGE = { min: 1024, max: 16_777_216 } as const;

/**
 * `--context-window TOKENS`: a local model's window, prompt and answer
 * together; undefined when not given.
 *
 * @throws {UsageError} for a value that is not a whole number of tokens in
 * range, or the flag with a model of the table (whose window is known).
 */
function chooseContextWindow(values: FlagValues, model: ModelId): number | undefined {
  const text = values["context-window"] as string | undefined;
  if (text === undefined) return undefined;
  if (!isLocalModel(model)) {
    throw new UsageError(
      `--context-window applies only to a local:NAME model; the window of ${model} is known`,
    );
  }
  const value = Number(text);
  if (
    !/^\d+$/.test(text) || value < CONTEXT_WINDOW_RANGE.min || value > CONTEXT_WINDOW_RANGE.max
  ) {
    throw new UsageError(
      `--context-window ${
        JSON.stringify(text)
      } is not a number of tokens from ${CONTEXT_WINDOW_RANGE.min} to ${CONTEXT_WINDOW_RANGE.max}; give the server's window, for example --context-window 32768`,
    );
  }
  return value;
}

/** The flags given, by name (`true` for a flag without a value). */
type FlagValues = Record<string, string | boolean | undefined>;

/**
 * Reads the flags of `args`, each at most once: `--name`, `--name VALUE`,
 * `--name=VALUE`, a one-letter form (`-h`); `--` ends the flags.
 *
 * @throws {UsageError} for an unknown flag, a missing value (a flag that
 * takes one, last or followed by another flag), a value given to a flag
 * that takes none, a positional argument, or a flag given twice.
 */
function readFlags(args: readonly string[]): FlagValues {
  const values: FlagValues = {};
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === "--") {
      if (index + 1 < args.length) throw unexpected(args[index + 1]);
      break;
    }
    if (!arg.startsWith("-") || arg === "-") throw unexpected(arg);
    const equals = arg.startsWith("--") ? arg.indexOf("=", 3) : -1;
    const given = equals === -1 ? arg : arg.slice(0, equals);
    const name = given.startsWith("--")
      ? given.slice(2)
      : Object.keys(OPTIONS).find((option) => `-${OPTIONS[option].short}` === given);
    if (name === undefined || !Object.hasOwn(OPTIONS, name)) {
      throw new UsageError(`unknown flag ${given}; run code-commit --help for the flags`);
    }
    if (Object.hasOwn(values, name)) throw new UsageError(`--${name} is given twice; give it once`);
    if (OPTIONS[name].type === "boolean") {
      if (equals !== -1) throw new UsageError(`${given} takes no value`);
      values[name] = true;
    } else if (equals !== -1) {
      values[name] = arg.slice(equals + 1);
    } else {
      // The next argument is the value, unless it is missing or a flag (a value that starts
      // with a dash is given as --name=-value).
      const value = args[index + 1];
      if (value === undefined || (value.startsWith("-") && value !== "-")) {
        throw new UsageError(`${given} needs a value, for example ${exampleFor(given)}`);
      }
      values[name] = value;
      index++;
    }
  }
  return values;
}

/** The usage error for a positional argument `arg`. Never throws. */
function unexpected(arg: string): UsageError {
  return new UsageError(
    `unexpected argument ${
      JSON.stringify(arg)
    }; code-commit reads its query from agent-config/query.txt`,
  );
}

/** The workflow the flags ask for (committing code when none). @throws {UsageError} for two. */
function chooseWorkflow(values: FlagValues): Workflow {
  const workflowFlags = Object.keys(WORKFLOW_FLAGS).filter((flag) => values[flag] === true);
  if (workflowFlags.length > 1) {
    const named = workflowFlags.map((flag) => `--${flag}`).join(" and ");
    throw new UsageError(`${named} are two workflow flags; choose one workflow per run`);
  }
  return workflowFlags.length === 1 ? WORKFLOW_FLAGS[workflowFlags[0]] : "commit";
}

/** The `--model` given, or the default. @throws {UsageError} for a model not supported. */
function chooseModel(values: FlagValues): ModelId {
  const modelText = values.model as string | undefined ?? DEFAULT_MODEL;
  const model = parseModelId(modelText);
  if (model === undefined) {
    throw new UsageError(
      `--model ${JSON.stringify(modelText)} is not a supported model; use ${
        MODEL_NAMES.join(", ")
      }, or local:NAME for a model on a local OpenAI-compatible server`,
    );
  }
  return model;
}

/**
 * Checks that every flag given applies to `workflow` (`--build-context`,
 * `--force`, `--dry-run`, `--max-phase`, `--sandbox`, `--build-network`).
 *
 * @throws {UsageError} naming the flag and what it applies to.
 */
function checkFlagsApply(values: FlagValues, workflow: Workflow): void {
  const buildContext = values["build-context"] === true;
  if (buildContext && workflow === "auto") {
    throw new UsageError(
      "--build-context applies to committing code and the consistency report, not to --auto-workflow (which assembles its own codebase)",
    );
  }
  if (
    buildContext &&
    (workflow === "init" || workflow === "rollup" || workflow === "undo" ||
      workflow === "check-build")
  ) {
    throw new UsageError(
      `--build-context applies to committing code and the consistency report, not to --${workflow}`,
    );
  }
  if (
    values.force === true && workflow !== "commit" && workflow !== "auto" && workflow !== "undo"
  ) {
    throw new UsageError(
      `--force applies to committing code, --auto-workflow and --undo, not to ${
        workflow === "consistency"
          ? "the consistency report, which changes no file"
          : `--${workflow}`
      }`,
    );
  }
  if (values["dry-run"] === true && workflow !== "commit") {
    throw new UsageError(
      "--dry-run applies only to committing code (with or without --build-context)",
    );
  }
  if (values["max-phase"] !== undefined && workflow !== "auto") {
    throw new UsageError("--max-phase applies only to --auto-workflow");
  }
  for (const flag of ["sandbox", "build-network"]) {
    if (values[flag] !== undefined && !runsBuilds(workflow)) {
      throw new UsageError(
        `--${flag} applies to committing code, --auto-workflow and --check-build, which run ./build.sh, not to ${
          workflow === "consistency" ? "the consistency report" : `--${workflow}`
        }, which runs no build`,
      );
    }
  }
}

/**
 * `--sandbox` and `--build-network`, or their defaults.
 *
 * @throws {UsageError} for a value not among the choices, or `--build-network
 * off` with `--sandbox off`.
 */
function chooseContainment(
  values: FlagValues,
): { sandbox: SandboxMode; buildNetwork: BuildNetwork } {
  const sandbox = choice("--sandbox", values.sandbox as string | undefined, SANDBOX_MODES);
  const buildNetwork = choice(
    "--build-network",
    values["build-network"] as string | undefined,
    BUILD_NETWORKS,
  );
  if (sandbox === "off" && buildNetwork === "off") {
    throw new UsageError(
      "--build-network off needs the sandbox, and --sandbox off turns it off; drop one of them",
    );
  }
  return { sandbox, buildNetwork };
}

/** Reads a duration in seconds (decimals allowed) and returns milliseconds. */
function seconds(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback * 1000;
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(value > 0) || value > 7 * 24 * 3600) {
    throw new UsageError(
      `${flag} ${JSON.stringify(text)} is not a duration; give seconds, for example ${flag} 600`,
    );
  }
  return Math.round(value * 1000);
}

/** Reads a flag that takes one of `values` (the first is the default). */
function choice<T extends string>(flag: string, text: string | undefined, values: readonly T[]): T {
  if (text === undefined) return values[0];
  const found = values.find((value) => value === text);
  if (found === undefined) {
    throw new UsageError(`${flag} ${JSON.stringify(text)} is not one of ${values.join(", ")}`);
  }
  return found;
}

/** Reads `--max-phase`: 1 to 4. */
function phase(text: string): number {
  if (!/^[1-4]$/.test(text)) {
    throw new UsageError(`--max-phase ${JSON.stringify(text)} is not a phase; give 1, 2, 3 or 4`);
  }
  return Number(text);
}

/** An example of `flag` with a value, for the message that says it needs one. Never throws. */
function exampleFor(flag: string): string {
  switch (flag) {
    case "--model":
      return `--model ${MODEL_NAMES[1]}`;
    case "--max-phase":
      return "--max-phase 2";
    case "--sandbox":
      return "--sandbox on";
    case "--build-network":
      return "--build-network off";
    case "--context-window":
      return "--context-window 32768";
    default:
      return `${flag} 600`;
  }
}
