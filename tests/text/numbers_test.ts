import assert from "node:assert/strict";
import { formatCount, formatSeconds } from "../../lib/text/numbers.ts";

for (
  const [n, expected] of [
    [0, "0"],
    [7, "7"],
    [999, "999"],
    [1000, "1,000"],
    [12345, "12,345"],
    [1234567, "1,234,567"],
    [-1234, "-1,234"],
    [1000.9, "1,000"],
  ] as const
) {
  Deno.test(`formatCount(${n}) is ${expected}`, () => assert.equal(formatCount(n), expected));
}

const SECONDS: [number, string][] = [
  [0, "0s"],
  [200, "0.2s"],
  [250, "0.25s"],
  [1_200, "1.2s"],
  [1_234, "1.23s"],
  [1_235.1, "1.24s"],
  [58_000, "58s"],
  [900_000, "900s"],
];

for (const [ms, expected] of SECONDS) {
  Deno.test(`formatSeconds(${ms}) is ${expected}`, () => {
    assert.equal(formatSeconds(ms), expected);
  });
}
