/**
 * What LLM calls cost, estimated in whole nano-dollars from the providers' list prices.
 * @module
 */
import { formatUsd } from "../text/numbers.ts";
import { isLocalModel, type ModelId, type ModelName } from "./models.ts";
import type { TokenUsage } from "./types.ts";

/** The day the prices of {@link PRICES} were read from the providers' price lists. */
export const PRICES_DATE = "2026-11-23";

// US dollars per million tokens (output: thinking included).
type Rates = { readonly input: number; readonly cachedInput: number; readonly output: number };

// `long`: higher rates for a prompt over `aboveInputTokens` (Gemini).
type ModelPrices = { base: Rates; long?: { aboveInputTokens: number; rates: Rates } };

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

/** The estimated cost of one call of `model` that used `usage`. Never throws. */
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

// $1.25 per million tokens is 1,250 nano-dollars a token.
function nanoPerToken(dollarsPerMillion: number): number {
  return Math.round(dollarsPerMillion * 1000);
}
