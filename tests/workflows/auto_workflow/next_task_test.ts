/**
 * Tests of the planner: the exact order of tasks across phases, depths,
 * paths and stages, and what counts as a matching cache.
 */
import assert from "node:assert/strict";
import type { Module } from "../../../lib/workflows/auto_workflow/graph.ts";
import {
  type ModuleState,
  nextTask,
  phasesComplete,
} from "../../../lib/workflows/auto_workflow/next_task.ts";
import { PHASES, type StageName, STAGES } from "../../../lib/workflows/auto_workflow/stages.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

function module(path: string, depth: number): Module {
  return {
    path,
    specPath: path === "" ? "UserSpecification.md" : `${path}/UserSpecification.md`,
    dependenciesFile: `${path}/ModuleDependencies.md`,
    apiFile: `${path}/APISignatures.md`,
    dependencies: [],
    depth,
  };
}

/** A state whose spec is `spec:<path>` with the given stages cached (with `cachedAs` as their text). */
function state(
  path: string,
  depth: number,
  done: readonly StageName[],
  cachedAs?: string,
): ModuleState {
  const spec = bytes(`spec:${path}`);
  return {
    module: module(path, depth),
    spec,
    cache: new Map(done.map((stage) => [stage, cachedAs === undefined ? spec : bytes(cachedAs)])),
  };
}

/** Runs the planner to the end, marking each task done, and returns `path:stage` in order. */
function schedule(states: ModuleState[], maxPhase: number): string[] {
  const order: string[] = [];
  for (let guard = 0; guard < 1000; guard++) {
    const task = nextTask(states, maxPhase);
    if (task === undefined) return order;
    order.push(`${task.state.module.path || "<root>"}:${task.stage.name}`);
    (task.state.cache as Map<StageName, Uint8Array>).set(task.stage.name, task.state.spec);
  }
  throw new Error("the planner never finished");
}

const PHASE1 = ["self-consistent", "implemented", "documented", "happy-path-tested"];

Deno.test("nextTask: phase 1 runs module by module: depth, then path, then the stages in order", () => {
  const states = [
    state("", 2, []),
    state("src/llm", 1, []),
    state("src/util", 0, []),
    state("src/core", 0, []),
  ];
  const expected = ["src/core", "src/util", "src/llm", "<root>"].flatMap((path) =>
    PHASE1.map((stage) => `${path}:${stage}`)
  );
  assert.deepEqual(schedule(states, 1), expected);
});

Deno.test("nextTask: a module behind on an earlier phase goes first, whatever its depth", () => {
  const all = PHASES[0].stages.map((stage) => stage.name);
  const states = [
    state("src/a", 0, [...all, "dependency-verified"]),
    state("src/b", 3, ["self-consistent", "implemented", "documented"]),
  ];
  const task = nextTask(states, 2);
  assert.equal(task?.state.module.path, "src/b");
  assert.equal(task?.stage.name, "happy-path-tested");
  const order = schedule(states, 2);
  assert.deepEqual(order, [
    "src/b:happy-path-tested",
    "src/a:secure",
    "src/a:complete",
    "src/a:edge-tested",
    "src/b:dependency-verified",
    "src/b:secure",
    "src/b:complete",
    "src/b:edge-tested",
  ]);
});

Deno.test("nextTask: all four phases, 14 stages per module, in the stage table's order", () => {
  const order = schedule([state("", 0, [])], 4);
  assert.deepEqual(order, STAGES.map((stage) => `<root>:${stage.name}`));
  assert.equal(order.length, 14);
});

Deno.test("nextTask: stops at --max-phase", () => {
  assert.equal(schedule([state("src/a", 0, []), state("", 1, [])], 1).length, 8);
  assert.equal(schedule([state("src/a", 0, []), state("", 1, [])], 3).length, 22);
});

Deno.test("nextTask: the first stage whose cache does not match, even after later matching ones", () => {
  const states = [state("src/a", 0, ["implemented", "documented", "happy-path-tested"])];
  assert.equal(nextTask(states, 1)?.stage.name, "self-consistent");
});

Deno.test("nextTask: a cached spec that differs by one byte is not a match, and the task carries it", () => {
  const states = [state("src/a", 0, ["self-consistent"], "spec:src/a\n")];
  const task = nextTask(states, 1);
  assert.equal(task?.stage.name, "self-consistent");
  assert.deepEqual(task?.cached, bytes("spec:src/a\n"));
});

Deno.test("nextTask: nothing left when every stage matches", () => {
  const all = PHASES[0].stages.map((stage) => stage.name);
  const states = [state("src/a", 0, all), state("", 1, all)];
  assert.equal(nextTask(states, 1), undefined);
  assert.notEqual(nextTask(states, 2), undefined);
});

Deno.test("nextTask: a spec edit of one module brings back only that module's stages", () => {
  const all = PHASES[0].stages.map((stage) => stage.name);
  const states = [
    state("src/a", 0, all),
    state("src/b", 1, all, "an older spec"),
    state("", 2, all),
  ];
  assert.deepEqual(schedule(states, 1), PHASE1.map((stage) => `src/b:${stage}`));
});

Deno.test("nextTask: modules in depth order, then code-point order (not locale order)", () => {
  const rest = PHASE1.slice(1) as StageName[];
  const states = [
    state("src/b", 0, rest),
    state("src/B", 0, rest),
    state("", 0, rest),
    state("src/a", 1, rest),
  ];
  assert.deepEqual(
    schedule(states, 1),
    ["<root>", "src/B", "src/b", "src/a"].map((path) => `${path}:self-consistent`),
  );
});

Deno.test("phasesComplete: the highest phase every module has passed", () => {
  const phase1 = PHASES[0].stages.map((stage) => stage.name);
  const phase2 = PHASES[1].stages.map((stage) => stage.name);
  assert.equal(phasesComplete([state("a", 0, [])]), 0);
  assert.equal(phasesComplete([state("a", 0, phase1), state("b", 0, phase1.slice(1))]), 0);
  assert.equal(phasesComplete([state("a", 0, phase1), state("b", 0, phase1)]), 1);
  assert.equal(phasesComplete([state("a", 0, [...phase1, ...phase2])]), 2);
  assert.equal(phasesComplete([state("a", 0, STAGES.map((stage) => stage.name))]), 4);
});

Deno.test("nextTask: byte for byte: one byte changed is no match, an empty spec cached empty is", () => {
  const changed = state("src/a", 0, ["self-consistent"], "spec:src/b");
  assert.equal(nextTask([changed], 1)?.stage.name, "self-consistent");
  const empty: ModuleState = {
    module: module("src/e", 0),
    spec: new Uint8Array(),
    cache: new Map(PHASE1.map((stage) => [stage as StageName, new Uint8Array()])),
  };
  assert.equal(nextTask([empty], 1), undefined);
});
