/**
 * The model table every part reads, and `local:NAME`, a model on a local server.
 * @module
 */

/** The APIs code-commit speaks. */
export type Provider = "gemini" | "openai";

/**
 * What one model's request adds to its API's plain one. Gemini 2.5 is sent no thinking level (a
 * `thinkingBudget` is a 400); gpt-5.2 does not reason at all unless told.
 */
export interface RequestShape {
  readonly thinkingLevel?: "low" | "high";
  readonly reasoningEffort?: "none" | "low" | "medium" | "high" | "xhigh";
}

/** One supported model. */
export interface ModelInfo {
  readonly provider: Provider;
  readonly keyFile: string;
  readonly baseUrlEnv: string;
  readonly defaultBaseUrl: string;
  readonly vendor: string;
  readonly request: RequestShape;
  readonly inputLimit: number;
  readonly outputLimit: number;
}

const GEMINI = {
  provider: "gemini",
  keyFile: "agent-config/gemini-key.txt",
  baseUrlEnv: "CODE_COMMIT_GEMINI_BASE_URL",
  defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta",
  vendor: "Gemini",
  inputLimit: 1_048_576,
  outputLimit: 65_536,
} as const;

const OPENAI = {
  provider: "openai",
  keyFile: "agent-config/openai-key.txt",
  baseUrlEnv: "CODE_COMMIT_OPENAI_BASE_URL",
  defaultBaseUrl: "https://api.openai.com/v1",
  vendor: "OpenAI",
  inputLimit: 272_000,
  outputLimit: 128_000,
} as const;

/** The supported models, by the name `--model` takes (and the API is sent). */
export const MODELS = {
  "gemini-2.5-pro": { ...GEMINI, request: {} },
  "gpt-5": { ...OPENAI, request: {} },
  "gemini-3-pro-preview": { ...GEMINI, request: { thinkingLevel: "high" } },
  "gpt-5.2": { ...OPENAI, request: { reasoningEffort: "high" } },
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

/** What `--model` takes before the name of a model on a local OpenAI-compatible server. */
export const LOCAL_PREFIX = "local:";

/** A model on a local OpenAI-compatible server: `local:` and the name the server knows. */
export type LocalModelName = `local:${string}`;

/** Any model `--model` accepts: one of the table, or `local:NAME`. */
export type ModelId = ModelName | LocalModelName;

/** Reads a `--model` value: a name of the table, or `local:` and 1-200 visible ASCII characters. */
export function parseModelId(value: string): ModelId | undefined {
  if (Object.hasOwn(MODELS, value)) return value as ModelName;
  if (!value.startsWith(LOCAL_PREFIX)) return undefined;
  const name = value.slice(LOCAL_PREFIX.length);
  return /^[\x21-\x7e]{1,200}$/.test(name) ? value as LocalModelName : undefined;
}

/** Tells whether `id` names a model on a local server. Never throws. */
export function isLocalModel(id: ModelId): id is LocalModelName {
  return id.startsWith(LOCAL_PREFIX);
}

/** What a client needs to call one model: a model of the table, or a local one (sent no key). */
export type ModelTarget =
  & Omit<ModelInfo, "keyFile" | "defaultBaseUrl">
  & { readonly id: ModelId; readonly apiModel: string }
  & (
    | { readonly local: false; readonly keyFile: string; readonly defaultBaseUrl: string }
    | { readonly local: true; readonly keyFile?: undefined; readonly defaultBaseUrl?: undefined }
  );

/** A local model's context window when nothing says otherwise: prompt and answer, in tokens. */
export const LOCAL_CONTEXT_WINDOW = 131_072;

/** The target of `id`; a local model's window gives a quarter to the answer. Never throws. */
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
  return { ...MODELS[id], id, local: false, apiModel: id };
}
