/**
 * The layering of the tool, held true: every import of every module of
 * `lib/` and of `main.ts` (type-only imports included), as Deno itself reads
 * them, goes to the module's own folder or to a lower layer of the table in
 * `tests/support/layers.ts`.
 */
import assert from "node:assert/strict";
import { type Import, importsOf, toolModules } from "./support/imports.ts";
import { folderOf, layerOf, LAYERS, layerViolations, SIDEWAYS } from "./support/layers.ts";

const modules = await toolModules();
const imports = await importsOf(modules);

Deno.test("no module imports from a layer above it, nor sideways unless the table says why", () => {
  const problems = layerViolations(imports);
  assert.deepEqual(problems, [], `\n${problems.join("\n")}`);
});

Deno.test("every module of the tool is in a layer, and every import was read", () => {
  for (const module of modules) {
    const folder = folderOf(module);
    assert.ok(folder !== undefined && layerOf(folder) !== undefined, `${module} is in no layer`);
  }
  // Deno's own reading of the imports, checked against a few known ones.
  const has = (from: string, to: string, typeOnly: boolean) =>
    imports.some((i) => i.from === from && i.to === to && i.typeOnly === typeOnly);
  assert.ok(has("main.ts", "lib/workflows/auto_workflow/workflow.ts", false));
  assert.ok(has("lib/guard/guard.ts", "lib/reply/operations.ts", true), "a type-only import");
  assert.ok(has("lib/session/session.ts", "lib/cli/args.ts", true), "a type-only import");
  assert.ok(imports.length > 200, `only ${imports.length} imports read`);
  for (const module of modules) {
    if (
      module === "main.ts" || module.startsWith("lib/errors/") || module.startsWith("lib/text/")
    ) {
      continue;
    }
    const source = Deno.readTextFileSync(new URL(`../${module}`, import.meta.url));
    // Two imports of one module (a type and a value import, say) are one dependency to Deno;
    // a module loaded when it is first needed (`await import("./x.ts")`) is one too.
    const written = new Set([
      ...[...source.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*"(\.[^"]*)"/gms)].map((m) => m[1]),
      ...[...source.matchAll(/\bimport\(\s*"(\.[^"]*)"\s*\)/g)].map((m) => m[1]),
    ]).size;
    const read = imports.filter((i) => i.from === module && !/^(node|npm):/.test(i.to)).length;
    assert.equal(read, written, `${module}: ${written} relative imports written, ${read} read`);
  }
});

Deno.test("each sideways import the table allows is one the code makes", () => {
  for (const { from, to } of SIDEWAYS) {
    assert.ok(
      imports.some((i) => folderOf(i.from) === from && folderOf(i.to) === to),
      `${from} no longer imports ${to}: remove the entry from SIDEWAYS`,
    );
    assert.equal(layerOf(from), layerOf(to), `${from} and ${to} are not in one layer`);
  }
});

Deno.test("the check names the importing file, the imported file and both layers", () => {
  const upward: Import = {
    from: "lib/guard/guard.ts",
    to: "lib/workflows/committing_code/loop.ts",
    line: 12,
    typeOnly: true,
    names: ["CommitLoopResult"],
  };
  const sideways: Import = { ...upward, from: "lib/llm/ask.ts", to: "lib/build/run_build.ts" };
  const consistencyToAuto: Import = {
    ...upward,
    from: "lib/workflows/consistency_report/workflow.ts",
    to: "lib/workflows/auto_workflow/task.ts",
  };
  const newFolder: Import = { ...upward, from: "lib/journal/journal.ts", to: "lib/text/plural.ts" };
  const fixture: Import = { ...upward, from: "lib/reply/parse.ts", to: "tests/support/project.ts" };
  assert.deepEqual(layerViolations([upward, sideways, consistencyToAuto, newFolder, fixture]), [
    "lib/guard/guard.ts:12 (layer 5, path guard) imports lib/workflows/committing_code/loop.ts " +
    "(layer 11, workflows): a module may import only from its own folder and from lower layers",
    "lib/llm/ask.ts:12 (layer 6, capabilities) imports lib/build/run_build.ts (layer 6, " +
    "capabilities): a folder may import another folder of its own layer only where SIDEWAYS names it",
    "lib/workflows/consistency_report/workflow.ts:12 (layer 11, workflows) imports " +
    "lib/workflows/auto_workflow/task.ts (layer 11, workflows): a folder may import another " +
    "folder of its own layer only where SIDEWAYS names it",
    "lib/journal/journal.ts is in no layer: add its folder to LAYERS in tests/support/layers.ts " +
    "(and to the layer table of docs/architecture.md)",
    "lib/reply/parse.ts:12 (layer 3, leaves) imports tests/support/project.ts, which is outside " +
    "the tool's layers",
  ]);
  assert.deepEqual(
    layerViolations([
      { ...upward, from: "lib/workflows/auto_workflow/task.ts" },
      { ...upward, from: "main.ts", to: "lib/errors/errors.ts" },
      { ...upward, from: "lib/cli/help.ts", to: "deno.json" },
      { ...upward, from: "lib/llm/gemini.ts", to: "npm:zod@3.25.76" },
    ]),
    [],
  );
  assert.equal(LAYERS[0].folders.includes("lib/errors"), true);
});
