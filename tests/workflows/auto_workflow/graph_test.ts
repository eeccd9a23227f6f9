/**
 * Tests of the module graph: depths, order, and every structural problem
 * (unknown module, self-dependency, cycles), from data.
 */
import assert from "node:assert/strict";
import { buildGraph, type DeclaredModule } from "../../../lib/workflows/auto_workflow/graph.ts";

/** Modules from `{ path: [dependencies] }`; `""` is the root module. */
function declare(graph: Record<string, string[]>): DeclaredModule[] {
  return Object.entries(graph).map(([path, dependencies]) => ({
    path,
    specPath: path === "" ? "UserSpecification.md" : `${path}/UserSpecification.md`,
    dependenciesFile: path === "" ? "src/ModuleDependencies.md" : `${path}/ModuleDependencies.md`,
    apiFile: path === "" ? "src/APISignatures.md" : `${path}/APISignatures.md`,
    dependencies: dependencies.map((dependency, index) => ({ path: dependency, line: index + 3 })),
  }));
}

function depths(graph: Record<string, string[]>): [string, number][] {
  const result = buildGraph(declare(graph));
  assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
  return result.modules.map((module) => [module.path, module.depth]);
}

function problems(graph: Record<string, string[]>): readonly string[] {
  const result = buildGraph(declare(graph));
  assert.ok(!result.ok, "expected problems");
  return result.problems;
}

Deno.test("buildGraph: depths and order (depth, then code-point path order)", () => {
  assert.deepEqual(
    depths({
      "": ["src/llm", "src/core"],
      "src/llm": ["src/util", "src/llm/gemini"],
      "src/llm/gemini": ["src/core"],
      "src/util": [],
      "src/core": [],
      "src/Zeta": [],
    }),
    [
      ["src/Zeta", 0], // "Z" < "c" in code-point order
      ["src/core", 0],
      ["src/util", 0],
      ["src/llm/gemini", 1],
      ["src/llm", 2],
      ["", 3],
    ],
  );
});

Deno.test("buildGraph: depth is one more than the DEEPEST dependency", () => {
  assert.deepEqual(
    depths({
      "": [],
      "src/a": [],
      "src/b": ["src/a"],
      "src/c": ["src/b"],
      "src/d": ["src/a", "src/c"],
    }),
    [["", 0], ["src/a", 0], ["src/b", 1], ["src/c", 2], ["src/d", 3]],
  );
});

Deno.test("buildGraph: the root alone is L0", () => {
  assert.deepEqual(depths({ "": [] }), [["", 0]]);
});

Deno.test("buildGraph: dependencies come back sorted", () => {
  const result = buildGraph(declare({ "": ["src/b", "src/a"], "src/a": [], "src/b": [] }));
  assert.ok(result.ok);
  assert.deepEqual(result.modules.find((m) => m.path === "")!.dependencies, ["src/a", "src/b"]);
});

Deno.test("buildGraph: a dependency that names no module names the module, file, line and the modules", () => {
  const found = problems({ "": ["src/nope"], "src/a": [] });
  assert.equal(found.length, 1);
  assert.match(
    found[0],
    /^the root module \(UserSpecification\.md\): src\/ModuleDependencies\.md line 3: src\/nope names no module .*the modules are: src\/a\): fix or remove the line$/,
  );
});

Deno.test("buildGraph: a module depending on itself", () => {
  const found = problems({ "": [], "src/a": ["src/a"] });
  assert.deepEqual(found, [
    "src/a (src/a/UserSpecification.md): src/a/ModuleDependencies.md line 3: src/a is the module " +
    "itself, and a module cannot depend on itself: remove the line",
  ]);
});

Deno.test("buildGraph: a cycle is listed from its first module, closed", () => {
  const found = problems({ "": [], "src/c": ["src/a"], "src/a": ["src/b"], "src/b": ["src/c"] });
  assert.equal(found.length, 1);
  assert.match(found[0], /^dependency cycle src\/a → src\/b → src\/c → src\/a: /);
});

Deno.test("buildGraph: every problem is reported, two cycles and an unknown module included", () => {
  const found = problems({
    "": ["src/x"],
    "src/a": ["src/b"],
    "src/b": ["src/a"],
    "src/c": ["src/d"],
    "src/d": ["src/c", "src/d"],
  });
  assert.equal(found.length, 4, found.join("\n"));
  assert.match(found[0], /src\/x names no module/);
  assert.match(found[1], /src\/d is the module itself/);
  assert.match(found[2], /^dependency cycle src\/a → src\/b → src\/a:/);
  assert.match(found[3], /^dependency cycle src\/c → src\/d → src\/c:/);
});

Deno.test("buildGraph: one cycle per tangle, the shortest through its first module", () => {
  const found = problems({
    "": [],
    "src/a": ["src/b", "src/d"],
    "src/b": ["src/c"],
    "src/c": ["src/a"],
    "src/d": ["src/a"],
    "src/e": [],
  });
  assert.equal(found.length, 1, found.join("\n"));
  assert.match(found[0], /^dependency cycle src\/a → src\/d → src\/a: /);
});
