/**
 * What LLM calls cost, estimated in US dollars from the providers'
 * published list prices: the paid standard tier, per million tokens, as
 * read on {@link PRICES_DATE}. Thinking tokens are billed as output.
 * Gemini bills a call whose prompt is over 200,000 tokens at higher rates,
 * for its input and its output. Input read from the provider's cache
 * (Gemini's `cachedContentTokenCount`, OpenAI's `cached_tokens`) is billed
 * at the cached rate. Not counted: batch and priority tiers, free tiers,
 * explicit context-cache storage, taxes. A local model costs nothing.
 *
 * Sources, read 2026-11-23: ai.google.dev/gemini-api/docs/pricing and
 * openai.com/api/pricing as quoted by price trackers and SDK price tables
 * (gemini-2.5-pro $1.25/$10, $2.50/$15 above 200k, cache $0.125/$0.25;
 * gemini-3-pro-preview $2/$12, $4/$18 above 200k, cache $0.20/$0.40;
 * gpt-5 $1.25/$10, cached $0.125; gpt-5.2 $1.75/$14, cached $0.175).
 *
 * Amounts are counted in whole nano-dollars (10⁻⁹ USD), so sums are exact.
 *
 * @module
 */
import { formatUsd } from "../text/numbers.ts";
import { isLocalModel, type ModelId, type ModelName } from "./models.ts";
import type { TokenUsage } from "./types.ts";

/** The day the prices of {@link PRICES} were read from the providers' price lists. */
export const PRICES_DATE = "2026-11-23";

/** The rates of one tier, in US dollars per million tokens. */
export interface Rates {
  /** Prompt tokens not read from a cache. */
  readonly input: number;
  /** Prompt tokens read from the provider's cache. */
  readonly cachedInput: number;
  /** Reply tokens, thinking included. */
  readonly output: number;
}

/** The prices of one model. */
export interface ModelPrices {
  /** The rates of an ordinary call. */
  readonly base: Rates;
  /** Higher rates for a call whose prompt has more than `aboveInputTokens` tokens (Gemini). */
  readonly long?: { readonly aboveInputTokens: number; readonly rates: Rates };
}

/** The list prices of every model of the table. */
export const PRICES: Readonly<Record<ModelName, ModelPrices>> = {
  "gemini-2.5-pro": {
    base: { input: 1.25, cachedInput: 0.125, output: 10 },
    long: { aboveInputTokens: 200_000, rates: { input: 2.5, cachedInput: 0.25, output: 15 } },
  },
  "gpt-5": { base: { input: 1.25, cachedInput: 0.125, output: 10 } },
  "gemini-3-pro-preview": {
    base: { input: 2, cachedInput: 0.2, output: 12 },
    long: { aboveInputTokens: 200_000, rates: { input: 4, cachedInput: 0.4, output: 18 } },
  },
  "gpt-5.2": { base: { input: 1.75, cachedInput: 0.175, output: 14 } },
};

/** The estimated cost of one or more calls. */
export type Cost =
  | { readonly kind: "usd"; /** Whole nano-dollars. */ readonly nanoUsd: number }
  | { readonly kind: "local" };

/** The cost of nothing. */
export const NO_COST: Cost = { kind: "usd", nanoUsd: 0 };

/**
 * The estimated cost of one call of `model` that used `usage`: the input
 * not read from a cache at the input rate, the cached input at the cached
 * rate, output and thinking at the output rate, all at the long-prompt
 * rates when the prompt is over the model's threshold. Never throws.
 */
export function estimateCost(model: ModelId, usage: TokenUsage): Cost {
  if (isLocalModel(model)) return { kind: "local" };
  const prices = PRICES[model];
  const rates = prices.long !== undefined && usage.input > prices.long.aboveInputTokens
    ? prices.long.rates
    : prices.base;
  const cached = Math.min(usage.cached, usage.input);
  const nanoUsd = (usage.input - cached) * nanoPerToken(rates.input) +
    cached * nanoPerToken(rates.cachedInput) +
    (usage.output + usage.thinking) * nanoPerToken(rates.output);
  return { kind: "usd", nanoUsd };
}

/** Adds two costs; any local call makes the sum local. Never throws. */
export function addCosts(a: Cost, b: Cost): Cost {
  if (a.kind === "local" || b.kind === "local") return { kind: "local" };
  return { kind: "usd", nanoUsd: a.nanoUsd + b.nanoUsd };
}

/** `est. $0.0144`, or `no cost (local model)`. Never throws. */
export function describeCost(cost: Cost): string {
  return cost.kind === "local" ? "no cost (local model)" : `est. ${formatUsd(cost.nanoUsd / 1e9)}`;
}

/** US dollars per million tokens as nano-dollars per token ($1.25/M is 1,250 n$ a token). */
function nanoPerToken(dollarsPerMillion: number): number {
  return Math.round(dollarsPerMillion * 1000);
}
