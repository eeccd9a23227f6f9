/** Tests of how the live line says what a stream has delivered. */
import assert from "node:assert/strict";
import { describeProgress, type StreamProgress } from "../../lib/llm/progress.ts";

const CASES: [StreamProgress, string][] = [
  [{ thinkingChars: 0, answerChars: 0 }, ""],
  [
    { thinkingChars: 0, answerChars: 0, thinkingTokens: 1112, answerTokens: 97 },
    "thinking 1,112 · answer 97 tokens",
  ],
  [{ thinkingChars: 0, answerChars: 0, thinkingTokens: 300 }, "thinking 300 tokens"],
  [{ thinkingChars: 0, answerChars: 1001 }, "answer ~251 tokens (~ estimated from characters)"],
  [
    { thinkingChars: 40, answerChars: 8, thinkingTokens: 12 },
    "thinking 12 · answer ~2 tokens (~ estimated from characters)",
  ],
  [{ thinkingChars: 8, answerChars: 0 }, "thinking ~2 tokens (~ estimated from characters)"],
];

for (const [progress, expected] of CASES) {
  Deno.test(`describeProgress: ${JSON.stringify(expected)}`, () => {
    assert.equal(describeProgress(progress), expected);
  });
}
