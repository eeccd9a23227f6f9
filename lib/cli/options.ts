/**
 * The table of options (flag, value, default, `--help` lines, settings key) and the keys of the
 * settings file: parsing, `--help`, completion and `docs/cli.md` read it.
 *
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors/errors.ts";
import { resolveLocalBaseUrl } from "../llm/endpoint.ts";
import {
  DEFAULT_MODEL,
  LOCAL_CONTEXT_WINDOW,
  LOCAL_PREFIX,
  MODEL_NAMES,
  parseModelId,
} from "../llm/models.ts";
import type { ModelId } from "../llm/models.ts";
import { BUILD_NETWORKS, SANDBOX_MODES } from "../sandbox/modes.ts";
import type { BuildNetwork, SandboxMode } from "../sandbox/modes.ts";
import { formatCount } from "../text/numbers.ts";

/** Options of a run (flag, else settings file, else default); see the table for each. */
export interface RunOptions {
  readonly model: ModelId;
  readonly buildContext: boolean;
  readonly buildTimeoutMs: number;
  readonly llmTimeoutMs: number;
  readonly maxPhase: number;
  readonly sandbox: SandboxMode;
  readonly buildNetwork: BuildNetwork;
  readonly force: boolean;
  readonly dryRun: boolean;
  readonly json: boolean;
  /** A `local:NAME` model's context window in tokens; undefined for the default. */
  readonly contextWindow?: number;
  /** A local model's server from the settings file, checked to be on this machine. */
  readonly localBaseUrl?: string;
}

const DEFAULT_BUILD_TIMEOUT_SECONDS = 1800;
/** 15 minutes, for a thinking model on a large prompt. */
const DEFAULT_LLM_TIMEOUT_SECONDS = 900;
const MAX_SECONDS = 7 * 24 * 3600;
const CONTEXT_WINDOW_RANGE = { min: 1024, max: 16_777_216 } as const;

/** One option of the command line. */
export interface OptionSpec<T = unknown> {
  readonly flag: string;
  readonly field: keyof RunOptions;
  /**
   * Its value (none: the flag sets `true`): how `--help` names it, an example for the message
   * that says it needs one, the values completion offers, and its parser (throws UsageError).
   */
  readonly value?: {
    readonly placeholder: string;
    readonly example: string;
    readonly choices?: readonly string[];
    readonly parse: (text: string) => T;
  };
  readonly fallback: T | undefined;
  /** Its lines in `--help`, and one short line for completion and docs/cli.md. */
  readonly help: readonly string[];
  readonly brief: string;
  /** The schema of its settings key (the flag in camelCase), and what it allows (for messages). */
  readonly setting?: {
    readonly schema: z.ZodType<T, z.ZodTypeDef, unknown>;
    readonly allowed: string;
  };
  /** Why the workflows that take it do (`which run ./build.sh`), and why another does not. */
  readonly because?: { readonly takes: string; readonly refuses: string };
}

function option<T>(spec: OptionSpec<T>): OptionSpec {
  return spec as OptionSpec;
}

/** The value and setting of a duration: seconds (decimals allowed), as milliseconds. */
function duration(flag: string) {
  return {
    value: {
      placeholder: "SECONDS",
      example: "600",
      parse: (text: string) => {
        const value = Number(text);
        if (!/^\d+(\.\d+)?$/.test(text) || !(value > 0) || value > MAX_SECONDS) {
          const shown = JSON.stringify(text);
          throw new UsageError(
            `--${flag} ${shown} is not a duration; give seconds, for example --${flag} 600`,
          );
        }
        return Math.round(value * 1000);
      },
    },
    setting: {
      schema: z.number().positive().max(MAX_SECONDS).transform((value) => Math.round(value * 1000)),
      allowed: `seconds, more than 0, at most ${MAX_SECONDS}`,
    },
  };
}

/** `text` when it is one of `values`. @throws {UsageError} naming `--flag` otherwise. */
export function oneOf<T extends string>(flag: string, values: readonly T[], text: string): T {
  const found = values.find((value) => value === text);
  if (found === undefined) {
    throw new UsageError(`--${flag} ${JSON.stringify(text)} is not one of ${values.join(", ")}`);
  }
  return found;
}

/** The value, setting and default of an option that takes one of `values`, the default first. */
function choice<T extends string>(flag: string, values: readonly T[], example: string) {
  return {
    value: {
      placeholder: values.join("|"),
      example,
      choices: values,
      parse: (text: string) => oneOf(flag, values, text),
    },
    fallback: values[0],
    setting: { schema: z.enum(values as [T, ...T[]]), allowed: values.join(", ") },
  };
}

function parseModel(text: string): ModelId {
  const model = parseModelId(text);
  if (model === undefined) {
    throw new UsageError(
      `--model ${JSON.stringify(text)} is not a supported model; use ${MODEL_NAMES.join(", ")}, ` +
        `or local:NAME for a model on a local OpenAI-compatible server`,
    );
  }
  return model;
}

function parseContextWindow(text: string): number {
  const { min, max } = CONTEXT_WINDOW_RANGE;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new UsageError(
      `--context-window ${JSON.stringify(text)} is not a number of tokens from ${min} to ${max}; ` +
        `give the server's window, for example --context-window 32768`,
    );
  }
  return value;
}

const CALLS_A_MODEL = { takes: "which call a model", refuses: "which calls no model" } as const;
const RUNS_BUILDS = { takes: "which run ./build.sh", refuses: "which runs no build" } as const;

/** Every option, in the order `--help` shows them. */
export const OPTIONS: readonly OptionSpec[] = [
  option<ModelId>({
    flag: "model",
    field: "model",
    value: {
      placeholder: "NAME",
      example: MODEL_NAMES[1],
      choices: [...MODEL_NAMES, "local:"],
      parse: parseModel,
    },
    fallback: DEFAULT_MODEL,
    help: [`the model every call uses (default ${DEFAULT_MODEL}); see Models above`],
    brief: "the model every call uses",
    setting: {
      schema: z.string().refine((text) => parseModelId(text) !== undefined)
        .transform((text) => parseModelId(text)!),
      allowed: `${MODEL_NAMES.join(", ")}, or local:NAME`,
    },
    because: CALLS_A_MODEL,
  }),
  option<boolean>({
    flag: "build-context",
    field: "buildContext",
    fallback: false,
    help: [
      "build a focused codebase with a preprocessing LLM call instead of",
      "reading agent-config/codeRollup.txt",
    ],
    brief: "the context builder picks the files",
  }),
  option<number>({
    flag: "build-timeout",
    field: "buildTimeoutMs",
    ...duration("build-timeout"),
    fallback: DEFAULT_BUILD_TIMEOUT_SECONDS * 1000,
    help: [`stop ./build.sh after this long (default ${DEFAULT_BUILD_TIMEOUT_SECONDS})`],
    brief: "stop ./build.sh after this many seconds",
    because: RUNS_BUILDS,
  }),
  option<number>({
    flag: "llm-timeout",
    field: "llmTimeoutMs",
    ...duration("llm-timeout"),
    fallback: DEFAULT_LLM_TIMEOUT_SECONDS * 1000,
    help: [`give up on one LLM request after this long (default ${DEFAULT_LLM_TIMEOUT_SECONDS})`],
    brief: "give up on one LLM request after this many seconds",
    because: CALLS_A_MODEL,
  }),
  option<number>({
    flag: "context-window",
    field: "contextWindow",
    value: { placeholder: "TOKENS", example: "32768", parse: parseContextWindow },
    fallback: undefined,
    help: [
      "a local:NAME model's context window, prompt and answer together",
      `(default ${formatCount(LOCAL_CONTEXT_WINDOW)}); a prompt that cannot fit is not sent`,
    ],
    brief: "a local model's context window in tokens",
    setting: {
      schema: z.number().int().min(CONTEXT_WINDOW_RANGE.min).max(CONTEXT_WINDOW_RANGE.max),
      allowed:
        `a whole number of tokens from ${CONTEXT_WINDOW_RANGE.min} to ${CONTEXT_WINDOW_RANGE.max}`,
    },
    because: CALLS_A_MODEL,
  }),
  option<number>({
    flag: "max-phase",
    field: "maxPhase",
    value: {
      placeholder: "N",
      example: "2",
      choices: ["1", "2", "3", "4"],
      parse: (text) => {
        if (!/^[1-4]$/.test(text)) {
          throw new UsageError(
            `--max-phase ${JSON.stringify(text)} is not a phase; give 1, 2, 3 or 4`,
          );
        }
        return Number(text);
      },
    },
    fallback: 1,
    help: ["go up to phase N (default 1; phases 2-4 use code-commit's own prompts)"],
    brief: "the auto workflow goes up to this phase",
    setting: { schema: z.number().int().min(1).max(4), allowed: "1, 2, 3 or 4" },
  }),
  option<boolean>({
    flag: "dry-run",
    field: "dryRun",
    fallback: false,
    help: [
      "make the first call, show what its reply would change (the whole diff",
      "goes to the log), change nothing, run no build",
    ],
    brief: "show what the first reply would change, change nothing",
  }),
  option<boolean>({
    flag: "force",
    field: "force",
    fallback: false,
    help: [
      "run even though git shows uncommitted changes; --undo: restore even",
      "paths edited since the run",
    ],
    brief: "run on uncommitted changes; --undo: restore edited paths",
  }),
  option<SandboxMode>({
    flag: "sandbox",
    field: "sandbox",
    ...choice("sandbox", SANDBOX_MODES, "on"),
    help: [
      "run ./build.sh in a sandbox: the project writable, agent-config/",
      "hidden, .git/ and the protected files read-only, the rest of the system",
      "read-only, its processes ended with it (bubblewrap on Linux,",
      "sandbox-exec on macOS). auto (default): where available, else warn;",
      "on: refuse to start without it; off: run it with your rights",
    ],
    brief: "contain ./build.sh: auto, on or off",
    because: RUNS_BUILDS,
  }),
  option<BuildNetwork>({
    flag: "build-network",
    field: "buildNetwork",
    ...choice("build-network", BUILD_NETWORKS, "off"),
    help: ["off: a contained build gets no network at all, not even loopback", "(default on)"],
    brief: "off: no network for a contained build",
    because: RUNS_BUILDS,
  }),
  option<boolean>({
    flag: "json",
    field: "json",
    fallback: false,
    help: [
      "print one JSON object on stdout when the run ends, whatever the outcome",
      "(docs/json.md); everything else goes to stderr",
    ],
    brief: "report the result as JSON",
  }),
];

/**
 * Every key of `agent-config/settings.json`: the field of {@link RunOptions} it sets, the option
 * whose workflows read it (`with`), its schema, what it allows and a line for the docs.
 */
export const SETTINGS = [
  ...OPTIONS.flatMap((option) =>
    option.setting === undefined ? [] : [{
      key: option.flag.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase()),
      field: option.field,
      with: option.flag,
      schema: option.setting.schema,
      allowed: option.setting.allowed,
      brief: `as --${option.flag}: ${option.brief}`,
    }]
  ),
  {
    key: "localBaseUrl",
    field: "localBaseUrl" as const,
    with: "model",
    schema: z.string().transform((text, context) => {
      try {
        return resolveLocalBaseUrl(
          "localBaseUrl in agent-config/settings.json",
          text,
          `${LOCAL_PREFIX}NAME`,
        );
      } catch (error) {
        context.addIssue({ code: z.ZodIssueCode.custom, message: (error as Error).message });
        return z.NEVER;
      }
    }),
    allowed: "an http:// or https:// URL on this machine (127.0.0.1, localhost or [::1])",
    brief: "the server of a local:NAME model (CODE_COMMIT_OPENAI_BASE_URL wins over it)",
  },
];
