/**
 * Tests of module discovery and loading on real folders: nesting, symbolic
 * links, ignored folders, the root module's documents, and every problem
 * reported at once.
 */
import assert from "node:assert/strict";
import { withProject } from "../../support/project.ts";
import { join } from "node:path";
import { loadModules, StructureError } from "../../../lib/workflows/auto_workflow/modules.ts";
import { dependencies, fixtureFiles } from "./helpers.ts";

const SPEC = "# spec\n";

/** The problems `loadModules` reports for the project at `root`. */
async function problemsOf(root: string): Promise<readonly string[]> {
  try {
    await loadModules(root);
  } catch (error) {
    assert.ok(error instanceof StructureError, String(error));
    return error.problems;
  }
  assert.fail("loadModules accepted the project");
}

Deno.test("loadModules: the five-module fixture, by depth then path, with the root's documents in src/", async () => {
  await withProject(await fixtureFiles("five_modules"), async (root) => {
    const { modules, warnings } = await loadModules(root);
    assert.deepEqual(warnings, []);
    assert.deepEqual(
      modules.map((
        m,
      ) => [m.path, m.depth, m.dependencies, m.specPath, m.dependenciesFile, m.apiFile]),
      [
        [
          "src/core",
          0,
          [],
          "src/core/UserSpecification.md",
          "src/core/ModuleDependencies.md",
          "src/core/APISignatures.md",
        ],
        [
          "src/util",
          0,
          [],
          "src/util/UserSpecification.md",
          "src/util/ModuleDependencies.md",
          "src/util/APISignatures.md",
        ],
        [
          "src/llm/gemini",
          1,
          ["src/core"],
          "src/llm/gemini/UserSpecification.md",
          "src/llm/gemini/ModuleDependencies.md",
          "src/llm/gemini/APISignatures.md",
        ],
        [
          "src/llm",
          2,
          ["src/llm/gemini", "src/util"],
          "src/llm/UserSpecification.md",
          "src/llm/ModuleDependencies.md",
          "src/llm/APISignatures.md",
        ],
        [
          "",
          3,
          ["src/core", "src/llm"],
          "UserSpecification.md",
          "src/ModuleDependencies.md",
          "src/APISignatures.md",
        ],
      ],
    );
  });
});

Deno.test("loadModules: the warnings of the search travel with a StructureError", async () => {
  await withProject({
    "UserSpecification.md": SPEC,
    "src/ModuleDependencies.md": dependencies("src/bad\tname"),
    "src/bad\tname/UserSpecification.md": SPEC,
    "src/bad\tname/ModuleDependencies.md": dependencies(),
  }, async (root) => {
    const error = await loadModules(root).then(() => undefined, (e) => e);
    assert.ok(error instanceof StructureError, String(error));
    assert.equal(error.warnings.length, 1);
    assert.match(error.warnings[0], /^"src\/bad\\tname": left out of the search for modules: /);
  });
});

Deno.test("loadModules: a missing ModuleDependencies.md names the module and the file to create", async () => {
  await withProject({
    "UserSpecification.md": SPEC,
    "src/ModuleDependencies.md": dependencies("src/a"),
    "src/a/UserSpecification.md": SPEC,
  }, async (root) => {
    await assert.rejects(() => loadModules(root), (error: unknown) => {
      assert.ok(error instanceof StructureError);
      assert.match(
        error.message,
        /^src\/a \(src\/a\/UserSpecification\.md\) has no ModuleDependencies\.md: create src\/a\/ModuleDependencies\.md with the line "# Module Dependencies", a blank line/,
      );
      return true;
    });
  });
});

Deno.test("loadModules: a missing top-level specification is a problem", async () => {
  await withProject({ "src/ModuleDependencies.md": dependencies() }, async (root) => {
    const problems = await problemsOf(root);
    assert.deepEqual(problems.length, 1);
    assert.match(problems[0], /^UserSpecification\.md not found in the project root/);
  });
});

Deno.test("loadModules: every problem of every module is reported at once", async () => {
  await withProject({
    "UserSpecification.md": SPEC,
    "src/ModuleDependencies.md": dependencies("src/a", "src/missing"),
    "src/a/UserSpecification.md": SPEC,
    "src/a/ModuleDependencies.md": "# Dependencies\n",
    "src/b/UserSpecification.md": SPEC,
    "src/b/ModuleDependencies.md": dependencies("../escape", "src/c"),
    "src/c/UserSpecification.md": SPEC,
    "src/c/ModuleDependencies.md": dependencies("src/b"),
    "src/d/UserSpecification.md": SPEC,
  }, async (root) => {
    const problems = await problemsOf(root);
    assert.equal(problems.length, 5, problems.join("\n"));
    assert.match(
      problems[0],
      /^src\/a \(src\/a\/UserSpecification\.md\): src\/a\/ModuleDependencies\.md line 1 must be exactly/,
    );
    assert.match(
      problems[1],
      /^src\/b \(src\/b\/UserSpecification\.md\): src\/b\/ModuleDependencies\.md line 3: "\.\.\/escape" contains `\.\.`/,
    );
    assert.match(
      problems[2],
      /^src\/d \(src\/d\/UserSpecification\.md\) has no ModuleDependencies\.md/,
    );
    assert.match(
      problems[3],
      /^the root module \(UserSpecification\.md\): src\/ModuleDependencies\.md line 4: src\/missing names no module/,
    );
    assert.match(problems[4], /^dependency cycle src\/b → src\/c → src\/b: /);
    const error = new StructureError(problems);
    assert.equal(
      error.message,
      "the modules have 5 problems; fix them, then run again:\n" +
        problems.map((problem) => `  - ${problem}`).join("\n"),
    );
  });
});

Deno.test("loadModules: ModuleDependencies.md that is a symbolic link or not UTF-8", async () => {
  await withProject({
    "UserSpecification.md": SPEC,
    "src/ModuleDependencies.md": dependencies(),
    "src/a/UserSpecification.md": SPEC,
    "src/b/UserSpecification.md": SPEC,
    "deps.md": dependencies(),
  }, async (root) => {
    await Deno.symlink(join(root, "deps.md"), join(root, "src/a/ModuleDependencies.md"));
    await Deno.writeFile(
      join(root, "src/b/ModuleDependencies.md"),
      new Uint8Array([0x23, 0xff, 0xfe]),
    );
    const problems = await problemsOf(root);
    assert.deepEqual(problems, [
      "src/a (src/a/UserSpecification.md): src/a/ModuleDependencies.md is a symbolic link; it must be a regular file",
      "src/b (src/b/UserSpecification.md): src/b/ModuleDependencies.md is not valid UTF-8 text",
    ]);
  });
});
