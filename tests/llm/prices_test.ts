/**
 * Tests of the price table and the cost estimate, against figures worked
 * out by hand from the published rates (US dollars per million tokens; a
 * nano-dollar is 10⁻⁹ USD, so $1.25/M is 1,250 n$ a token).
 */

import assert from "node:assert/strict";
import { addCosts, describeCost, estimateCost, PRICES, PRICES_DATE } from "../../lib/llm/prices.ts";
import type { ModelId } from "../../lib/llm/models.ts";
import type { TokenUsage } from "../../lib/llm/types.ts";

Deno.test("the price table, as published, dated", () => {
  assert.equal(PRICES_DATE, "2026-11-23");
  assert.deepEqual(PRICES, {
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
  });
});

/** A usage, the model, the cost in nano-dollars worked out by hand, and how it prints. */
const CASES: [string, ModelId, TokenUsage, number, string][] = [
  [
    // 1,843 × 1,250 + (97 + 1,112) × 10,000 = 2,303,750 + 12,090,000
    "gemini-2.5-pro, the ok.json fixture",
    "gemini-2.5-pro",
    { input: 1843, cached: 0, output: 97, thinking: 1112 },
    14_393_750,
    "est. $0.0144",
  ],
  [
    // 50,000 × 1,250 + 100,000 × 125 + 10,000 × 10,000
    "gemini-2.5-pro with cached input",
    "gemini-2.5-pro",
    { input: 150_000, cached: 100_000, output: 2_000, thinking: 8_000 },
    175_000_000,
    "est. $0.1750",
  ],
  [
    // exactly 200,000 is not above the threshold: 200,000 × 1,250
    "gemini-2.5-pro at 200,000 prompt tokens",
    "gemini-2.5-pro",
    { input: 200_000, cached: 0, output: 0, thinking: 0 },
    250_000_000,
    "est. $0.2500",
  ],
  [
    // 200,001 × 2,500: the whole prompt at the long rate
    "gemini-2.5-pro one token above 200,000",
    "gemini-2.5-pro",
    { input: 200_001, cached: 0, output: 0, thinking: 0 },
    500_002_500,
    "est. $0.5000",
  ],
  [
    // 250,000 × 2,500 + (1,000 + 4,000) × 15,000: output at the long rate too
    "gemini-2.5-pro above 200,000: input and output at the long rates",
    "gemini-2.5-pro",
    { input: 250_000, cached: 0, output: 1_000, thinking: 4_000 },
    700_000_000,
    "est. $0.7000",
  ],
  [
    // 6,000 × 2,000 + 4,000 × 200 + 2,000 × 12,000
    "gemini-3-pro-preview with cached input",
    "gemini-3-pro-preview",
    { input: 10_000, cached: 4_000, output: 500, thinking: 1_500 },
    36_800_000,
    "est. $0.0368",
  ],
  [
    // 200,000 × 4,000 + 100,000 × 400 + 10,000 × 18,000
    "gemini-3-pro-preview above 200,000, cached rate doubled too",
    "gemini-3-pro-preview",
    { input: 300_000, cached: 100_000, output: 10_000, thinking: 0 },
    1_020_000_000,
    "est. $1.02",
  ],
  [
    // 1,791 × 1,250 + (92 + 1,152) × 10,000 = 2,238,750 + 12,440,000
    "gpt-5, the ok.json fixture",
    "gpt-5",
    { input: 1791, cached: 0, output: 92, thinking: 1152 },
    14_678_750,
    "est. $0.0147",
  ],
  [
    // no long-prompt rate for OpenAI: 300,000 × 1,250
    "gpt-5 with a long prompt",
    "gpt-5",
    { input: 300_000, cached: 0, output: 0, thinking: 0 },
    375_000_000,
    "est. $0.3750",
  ],
  [
    // 255 × 1,750 + 1,536 × 175 + 1,244 × 14,000 = 446,250 + 268,800 + 17,416,000
    "gpt-5.2 with cached input",
    "gpt-5.2",
    { input: 1791, cached: 1536, output: 92, thinking: 1152 },
    18_131_050,
    "est. $0.0181",
  ],
  [
    "nothing used",
    "gpt-5.2",
    { input: 0, cached: 0, output: 0, thinking: 0 },
    0,
    "est. $0.00",
  ],
];

for (const [name, model, usage, nanoUsd, text] of CASES) {
  Deno.test(`estimateCost: ${name}`, () => {
    const cost = estimateCost(model, usage);
    assert.deepEqual(cost, { kind: "usd", nanoUsd });
    assert.equal(describeCost(cost), text);
  });
}

Deno.test("a local model costs nothing, and says so", () => {
  const cost = estimateCost("local:llama3.1:8b", {
    input: 5_000,
    cached: 0,
    output: 900,
    thinking: 0,
  });
  assert.deepEqual(cost, { kind: "local" });
  assert.equal(describeCost(cost), "no cost (local model)");
});

Deno.test("costs add exactly; a local call makes the sum local", () => {
  const a = { kind: "usd", nanoUsd: 14_393_750 } as const;
  const b = { kind: "usd", nanoUsd: 14_678_750 } as const;
  assert.deepEqual(addCosts(a, b), { kind: "usd", nanoUsd: 29_072_500 });
  assert.equal(describeCost(addCosts(a, b)), "est. $0.0291");
  assert.deepEqual(addCosts(a, { kind: "local" }), { kind: "local" });
});

Deno.test("cached tokens beyond the prompt (a server's miscount) are capped at the prompt", () => {
  // 100 × 125 + 0 at the input rate
  assert.deepEqual(
    estimateCost("gemini-2.5-pro", { input: 100, cached: 250, output: 0, thinking: 0 }),
    { kind: "usd", nanoUsd: 12_500 },
  );
});
