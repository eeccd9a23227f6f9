/**
 * No export of the tool exists for its tests alone: every function,
 * constant and class a test imports from `lib/` is imported by the tool
 * itself too. A test goes through the public function, or its helper lives
 * in `tests/support/`. Types are not judged: a function's parameter and
 * result types are part of its interface.
 */
import assert from "node:assert/strict";
import { exportsOf, importsOf, REPOSITORY, toolModules } from "./support/imports.ts";

/** Exports tests may use that the tool does not import, each with the reason. */
const FOR_TESTS_TOO: ReadonlyMap<string, string> = new Map([
  [
    "lib/permissions/permissions.ts#PERMISSION_FLAGS",
    "build.sh runs this module as a script to print the flags; the e2e runner uses the same list",
  ],
  [
    "lib/permissions/permissions.ts#RUN_FLAGS",
    "build.sh runs this module as a script to print the flags; the e2e runner uses the same list",
  ],
  [
    "lib/apply/apply.ts#denoFileSystem",
    "the default of ApplyOptions.fs: the fault-injection tests wrap it to fail one call at a time",
  ],
  [
    "lib/llm/prices.ts#PRICES",
    "the docs test holds docs/models.md's price table to it; the price test states it literally",
  ],
  [
    "lib/cli/json_result.ts#JSON_RESULT",
    "the docs test holds docs/json.md's field table to it; the e2e runner parses every --json object with it",
  ],
  [
    "lib/build/build_output.ts#FAILURE_PATTERNS",
    "the docs test holds docs/build-output.md's table of failure lines to it",
  ],
  [
    "lib/sandbox/containment.ts#runProbe",
    "the default probe of decideContainment: the test support asks the machine with it whether bubblewrap works",
  ],
  // Not done yet: their tests check them as units, and going through Redactor and planSandbox
  // means new tests, not a change of imports.
  ["lib/secrets/redact.ts#encodedForms", "the key forms a redactor masks, listed"],
  ["lib/secrets/redact.ts#unalignedBase64Forms", "the key forms a redactor masks, listed"],
]);

const VALUE_KINDS = new Set(["function", "variable", "class", "enum"]);

async function testModules(): Promise<string[]> {
  const files: string[] = [];
  const visit = async (folder: string) => {
    for await (const entry of Deno.readDir(`${REPOSITORY}${folder}`)) {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory && entry.name !== "fixtures") await visit(path);
      else if (entry.isFile && path.endsWith(".ts")) files.push(path);
    }
  };
  await visit("tests");
  return files.sort();
}

const tool = await toolModules();
const [exports, toolImports, testImports] = await Promise.all([
  exportsOf(tool),
  importsOf(tool),
  testModules().then(importsOf),
]);

function importers(imports: typeof toolImports, file: string, name: string): string[] {
  return imports.filter((i) => i.to === file && (i.names.includes(name) || i.names.includes("*")))
    .map((i) => i.from);
}

Deno.test("every value a test imports from lib/ is imported by the tool too", () => {
  const testOnly: string[] = [];
  for (const { file, name, kind } of exports) {
    if (!VALUE_KINDS.has(kind) || FOR_TESTS_TOO.has(`${file}#${name}`)) continue;
    if (importers(toolImports, file, name).length > 0) continue;
    const tests = importers(testImports, file, name);
    if (tests.length > 0) testOnly.push(`${file}#${name} (only ${[...new Set(tests)].join(", ")})`);
  }
  assert.deepEqual(
    testOnly,
    [],
    "\nexported for tests alone (test through the public function, or move the helper to " +
      `tests/support/):\n${testOnly.join("\n")}`,
  );
});

Deno.test("each allowed exception is still an export only tests import", () => {
  for (const key of FOR_TESTS_TOO.keys()) {
    const [file, name] = key.split("#");
    assert.ok(exports.some((e) => e.file === file && e.name === name), `${key} is gone`);
    assert.deepEqual(importers(toolImports, file, name), [], `${key} is imported by the tool now`);
  }
});
