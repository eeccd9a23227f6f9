/**
 * The model table: every model code-commit can use, the API that serves
 * it, where its key lives, and the environment variable that can point it
 * at another endpoint. The command line, the key reader, the clients and
 * the help text all read this one table.
 *
 * @module
 */

/** The APIs code-commit speaks. */
export type Provider = "gemini" | "openai";

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
}

/** The supported models, by the name `--model` takes. */
export const MODELS = {
  "gemini-2.5-pro": {
    provider: "gemini",
    keyFile: "agent-config/gemini-key.txt",
    baseUrlEnv: "CODE_COMMIT_GEMINI_BASE_URL",
    defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta",
    vendor: "Gemini",
  },
  "gpt-5": {
    provider: "openai",
    keyFile: "agent-config/openai-key.txt",
    baseUrlEnv: "CODE_COMMIT_OPENAI_BASE_URL",
    defaultBaseUrl: "https://api.openai.com/v1",
    vendor: "OpenAI",
  },
} as const satisfies Record<string, ModelInfo>;

/** A model name `--model` accepts. */
export type ModelName = keyof typeof MODELS;

/** The model used when `--model` is not given. */
export const DEFAULT_MODEL: ModelName = "gemini-2.5-pro";

/** Every model name, default first. */
export const MODEL_NAMES: readonly ModelName[] = Object.keys(MODELS) as ModelName[];

/** Tells whether `name` is a supported model. */
export function isModelName(name: string): name is ModelName {
  return Object.hasOwn(MODELS, name);
}
