/**
 * The model table: every model code-commit can use, the API that serves
 * it, where its key lives, the environment variable that can point it at
 * another endpoint, and what its request adds to its API's plain one. The
 * command line, the key reader, the clients and the help text all read
 * this one table. Besides the table, `local:NAME` names a model served by
 * an OpenAI-compatible server on this machine (Ollama, llama.cpp, vLLM).
 *
 * @module
 */

/** The APIs code-commit speaks. */
export type Provider = "gemini" | "openai";

/**
 * What one model's request adds to the plain request of its API. A model
 * with nothing here gets the API's own defaults.
 */
export interface RequestShape {
  /**
   * Gemini 3: `generationConfig.thinkingConfig.thinkingLevel`. Gemini 2.5
   * models take a `thinkingBudget` instead (the two together are a 400);
   * code-commit sends neither to them, so they think dynamically.
   */
  readonly thinkingLevel?: "low" | "high";
  /**
   * OpenAI chat completions: `reasoning_effort`. gpt-5 reasons at `medium`
   * unless told; gpt-5.2 does not reason at all unless told (`none`).
   */
  readonly reasoningEffort?: "none" | "low" | "medium" | "high" | "xhigh";
}

/** One supported model. */
export interface ModelInfo {
  /** The API that serves the model. */
  readonly provider: Provider;
  /** The key file, relative to the project root. */
  readonly keyFile: string;
  /** The environment variable that overrides the base URL. */
  readonly baseUrlEnv: string;
  /** The base URL used when the variable is not set. */
  readonly defaultBaseUrl: string;
  /** The provider's name for people, e.g. in error messages. */
  readonly vendor: string;
  /** What this model's request adds to its API's plain request. */
  readonly request: RequestShape;
  /** The most tokens a prompt may take (the context window less what is kept for the answer). */
  readonly inputLimit: number;
  /** The most tokens the model writes in one answer, thinking included. */
  readonly outputLimit: number;
}

const GEMINI = {
  provider: "gemini",
  keyFile: "agent-config/gemini-key.txt",
  baseUrlEnv: "CODE_COMMIT_GEMINI_BASE_URL",
  defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta",
  vendor: "Gemini",
} as const;

const OPENAI = {
  provider: "openai",
  keyFile: "agent-config/openai-key.txt",
  baseUrlEnv: "CODE_COMMIT_OPENAI_BASE_URL",
  defaultBaseUrl: "https://api.openai.com/v1",
  vendor: "OpenAI",
} as const;

/** The supported models, by the name `--model` takes (and the API is sent). */
export const MODELS = {
  "gemini-2.5-pro": { ...GEMINI, request: {}, inputLimit: 1_048_576, outputLimit: 65_536 },
  "gpt-5": { ...OPENAI, request: {}, inputLimit: 272_000, outputLimit: 128_000 },
  "gemini-3-pro-preview": {
    ...GEMINI,
    request: { thinkingLevel: "high" },
    inputLimit: 1_048_576,
    outputLimit: 65_536,
  },
  "gpt-5.2": {
    ...OPENAI,
    request: { reasoningEffort: "high" },
    inputLimit: 272_000,
    outputLimit: 128_000,
  },
} as const satisfies Record<string, ModelInfo>;

/** A model name of the table. */
export type ModelName = keyof typeof MODELS;

/** The model used when `--model` is not given. */
export const DEFAULT_MODEL: ModelName = "gemini-2.5-pro";

/** Every model name, default first. */
export const MODEL_NAMES: readonly ModelName[] = Object.keys(MODELS) as ModelName[];

/** Every key file of the table, once each, Gemini's first. */
export const KEY_FILES: readonly string[] = [
  ...new Set(MODEL_NAMES.map((name) => MODELS[name].keyFile)),
];

/** Tells whether `name` is a model of the table. */
function isModelName(name: string): name is ModelName {
  return Object.hasOwn(MODELS, name);
}

/** What `--model` takes before the name of a model on a local OpenAI-compatible server. */
export const LOCAL_PREFIX = "local:";

/** A model on a local OpenAI-compatible server: `local:` and the name the server knows. */
export type LocalModelName = `local:${string}`;

/** Any model `--model` accepts: one of the table, or `local:NAME`. */
export type ModelId = ModelName | LocalModelName;

/** Longest local model name accepted (Hugging Face paths with a tag fit easily). */
const MAX_LOCAL_NAME = 200;

/**
 * Reads a `--model` value: a name of the table, or `local:` followed by
 * 1 to 200 printable ASCII characters without spaces (`local:llama3.1:8b`,
 * `local:Qwen/Qwen2.5-Coder-32B-Instruct`). Returns undefined for anything
 * else. Never throws.
 */
export function parseModelId(value: string): ModelId | undefined {
  if (isModelName(value)) return value;
  if (!value.startsWith(LOCAL_PREFIX)) return undefined;
  const name = value.slice(LOCAL_PREFIX.length);
  return name.length <= MAX_LOCAL_NAME && /^[\x21-\x7e]+$/.test(name)
    ? value as LocalModelName
    : undefined;
}

/** Tells whether `id` names a model on a local server. Never throws. */
export function isLocalModel(id: ModelId): id is LocalModelName {
  return id.startsWith(LOCAL_PREFIX);
}

/** What every model target has. */
interface TargetBase {
  /** The model as the user named it, e.g. `gpt-5.2` or `local:llama3.1:8b`. */
  readonly id: ModelId;
  /** The API that serves it. */
  readonly provider: Provider;
  /** The name sent to the API. */
  readonly apiModel: string;
  /** What the request adds to the API's plain request. */
  readonly request: RequestShape;
  /** The environment variable that holds (or overrides) the base URL. */
  readonly baseUrlEnv: string;
  /** The provider's name for people. */
  readonly vendor: string;
  /** The most tokens a prompt may take. */
  readonly inputLimit: number;
  /** The most tokens the model writes in one answer, thinking included. */
  readonly outputLimit: number;
}

/** Everything a client needs to call one model: a model of the table, or a local one. */
export type ModelTarget =
  | TargetBase & {
    /** A model of the table, behind a key. */
    readonly local: false;
    /** The key file, relative to the project root. */
    readonly keyFile: string;
    /** The base URL used when the variable is not set. */
    readonly defaultBaseUrl: string;
  }
  | TargetBase & {
    /** A model on a server on this machine, sent no key; its base URL must be set. */
    readonly local: true;
    readonly keyFile?: undefined;
    readonly defaultBaseUrl?: undefined;
  };

/**
 * A local model's context window when nothing says otherwise: prompt and
 * answer together, in tokens.
 */
export const LOCAL_CONTEXT_WINDOW = 131_072;

/**
 * The target of `id`: from the table, or the OpenAI-compatible API for
 * `local:NAME`, whose window of `contextWindow` tokens (by default
 * {@link LOCAL_CONTEXT_WINDOW}; `--context-window` sets it) is split: a
 * quarter kept for the answer, the rest for the prompt. `contextWindow` is
 * not read for a model of the table.
 *
 * Never throws.
 */
export function modelTarget(
  id: ModelId,
  contextWindow: number = LOCAL_CONTEXT_WINDOW,
): ModelTarget {
  if (isLocalModel(id)) {
    const output = Math.floor(contextWindow / 4);
    return {
      id,
      local: true,
      provider: "openai",
      apiModel: id.slice(LOCAL_PREFIX.length),
      request: {},
      baseUrlEnv: OPENAI.baseUrlEnv,
      vendor: "local",
      inputLimit: contextWindow - output,
      outputLimit: output,
    };
  }
  const info: ModelInfo = MODELS[id];
  return {
    id,
    local: false,
    provider: info.provider,
    apiModel: id,
    request: info.request,
    keyFile: info.keyFile,
    baseUrlEnv: info.baseUrlEnv,
    defaultBaseUrl: info.defaultBaseUrl,
    vendor: info.vendor,
    inputLimit: info.inputLimit,
    outputLimit: info.outputLimit,
  };
}
