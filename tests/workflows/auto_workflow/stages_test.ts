/**
 * Tests of the stage table: fourteen stages in four phases,
 * in order; which ones review and which change code, and their codebases.
 */
import assert from "node:assert/strict";
import { PHASES, type StageName, STAGES } from "../../../lib/workflows/auto_workflow/stages.ts";

Deno.test("PHASES: fourteen stages, phase by phase, in order", () => {
  assert.deepEqual(
    PHASES.map((phase) => [phase.number, phase.stages.map((stage) => stage.name)]),
    [
      [1, ["self-consistent", "implemented", "documented", "happy-path-tested"]],
      [2, ["dependency-verified", "secure", "complete", "edge-tested"]],
      [3, ["simple", "logged", "integration-tested"]],
      [4, ["benchmarked", "fuzzed", "polished"]],
    ],
  );
  for (const phase of PHASES) {
    for (const stage of phase.stages) assert.equal(stage.phase, phase.number);
  }
});

Deno.test("stages: self-consistent only reviews; every other stage changes code", () => {
  assert.deepEqual(STAGES.filter((stage) => stage.kind === "review").map((s) => s.name), [
    "self-consistent",
  ]);
});

Deno.test("stages: documented sees the module only; implemented and happy-path-tested show the cached spec", () => {
  assert.deepEqual(STAGES.filter((stage) => stage.codebase === "module").map((s) => s.name), [
    "documented",
  ]);
  assert.deepEqual(STAGES.filter((stage) => stage.showsCachedSpec).map((s) => s.name), [
    "implemented",
    "happy-path-tested",
  ]);
});

Deno.test("StageName is exactly the table's names: a misspelt stage does not type-check", () => {
  const known: StageName = "happy-path-tested";
  // @ts-expect-error -- "tested" is no stage of the table
  const unknown: StageName = "tested";
  assert.deepEqual([known, unknown], ["happy-path-tested", "tested"]);
});
