import assert from "node:assert/strict";
import { formatCount, formatSeconds, formatUsd, formatUtc } from "../../lib/text/numbers.ts";

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

const DOLLARS: [number, string][] = [
  [0, "$0.00"],
  [0.00001, "<$0.0001"],
  [0.00005, "$0.0001"],
  [0.01439375, "$0.0144"],
  [0.04830625, "$0.0483"],
  [0.1, "$0.1000"],
  [0.99994, "$0.9999"],
  [0.99996, "$1.00"],
  [1, "$1.00"],
  [12.345, "$12.35"],
  [1234.567, "$1,234.57"],
  [-0.5, "-$0.5000"],
];

for (const [dollars, expected] of DOLLARS) {
  Deno.test(`formatUsd(${dollars}) is ${expected}`, () =>
    assert.equal(formatUsd(dollars), expected));
}

Deno.test("formatUtc: a moment to the second in UTC, from a Date or an ISO string", () => {
  assert.equal(formatUtc(new Date("2026-11-27T07:40:00.705Z")), "2026-11-27 07:40:00 UTC");
  assert.equal(formatUtc("2026-11-27T09:11:37.705Z"), "2026-11-27 09:11:37 UTC");
  assert.equal(formatUtc("not a date"), "not a date");
});
