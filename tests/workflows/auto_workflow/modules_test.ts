/**
 * Tests of module discovery and loading on real folders: nesting, symbolic
 * links, ignored folders, the root module's documents, and every problem
 * reported at once.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  discoverModules,
  loadModules,
  StructureError,
} from "../../../lib/workflows/auto_workflow/modules.ts";
import { dependencies, fixtureFiles, withFiles } from "./helpers.ts";

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
  await withFiles(await fixtureFiles("five_modules"), async (root) => {
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

Deno.test("discoverModules: folders at any depth; folders without a specification are walked through", async () => {
  await withFiles({
    "UserSpecification.md": SPEC,
    "src/a/b/c/d/UserSpecification.md": SPEC,
    "src/a/x.ts": "",
    "src/e/UserSpecification.md": SPEC,
    "src/e/f/UserSpecification.md": SPEC,
    "lib/g/UserSpecification.md": SPEC, // not under src/: not a module
    "src/h/userspecification.md": SPEC, // another name
  }, async (root) => {
    const { modules, problems } = await discoverModules(root);
    assert.deepEqual(problems, []);
    assert.deepEqual(modules.map((m) => m.path), ["", "src/a/b/c/d", "src/e", "src/e/f"]);
  });
});

Deno.test("discoverModules: never follows a symbolic link, never enters an ignored folder or .git", async () => {
  await withFiles({
    "UserSpecification.md": SPEC,
    ".gitignore": "/src/generated/\n",
    "src/generated/UserSpecification.md": SPEC,
    "src/real/UserSpecification.md": SPEC,
    "src/vendor/.git/UserSpecification.md": SPEC,
    "outside/mod/UserSpecification.md": SPEC,
  }, async (root) => {
    await Deno.symlink(join(root, "outside"), join(root, "src/linked"));
    await Deno.symlink(join(root, "src/real"), join(root, "src/alias"));
    const { modules, problems } = await discoverModules(root);
    assert.deepEqual(problems, []);
    assert.deepEqual(modules.map((m) => m.path), ["", "src/real"]);
  });
});

Deno.test("discoverModules: never enters a folder ignored only once case is folded, nor one whose name the guard refuses", async () => {
  await withFiles({
    "UserSpecification.md": SPEC,
    ".gitignore": "/src/Generated/\n",
    "src/generated/UserSpecification.md": SPEC,
    "src/bad\nname/UserSpecification.md": SPEC,
    "src/bad\nname/inner/UserSpecification.md": SPEC,
    "src/real/UserSpecification.md": SPEC,
    "src/real/note.": "",
  }, async (root) => {
    const { modules, problems, warnings } = await discoverModules(root);
    assert.deepEqual(problems, []);
    assert.deepEqual(modules.map((m) => m.path), ["", "src/real"]);
    // A file whose name is refused (src/real/note.) hides no module: the codebase reports it.
    assert.deepEqual(warnings, [
      '"src/bad\\nname": left out of the search for modules: contains the control character U+000A',
    ]);
  });
});

Deno.test("discoverModules: a specification git ignores makes no module, with a warning", async () => {
  await withFiles({
    "UserSpecification.md": SPEC,
    ".gitignore": "/src/a/UserSpecification.md\n",
    "src/a/UserSpecification.md": SPEC,
    "src/a/b/UserSpecification.md": SPEC,
  }, async (root) => {
    const { modules, problems, warnings } = await discoverModules(root);
    assert.deepEqual(problems, []);
    assert.deepEqual(modules.map((m) => m.path), ["", "src/a/b"]);
    assert.deepEqual(warnings, [
      "src/a/UserSpecification.md is ignored by .gitignore: the rule `/src/a/UserSpecification.md` " +
      "in .gitignore, so src/a is not taken as a module: the auto workflow sees only what git sees",
    ]);
  });
});

Deno.test("loadModules: the warnings of the search travel with a StructureError", async () => {
  await withFiles({
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

Deno.test("discoverModules: a specification that is a symbolic link is a problem naming it", async () => {
  await withFiles({ "UserSpecification.md": SPEC, "spec.md": SPEC }, async (root) => {
    await Deno.mkdir(join(root, "src/a"), { recursive: true });
    await Deno.symlink(join(root, "spec.md"), join(root, "src/a/UserSpecification.md"));
    const { modules, problems } = await discoverModules(root);
    assert.deepEqual(modules.map((m) => m.path), [""]);
    assert.equal(problems.length, 1);
    assert.match(problems[0], /^src\/a\/UserSpecification\.md is a symbolic link: /);
  });
});

Deno.test("discoverModules: src itself holding a specification is a problem", async () => {
  await withFiles(
    { "UserSpecification.md": SPEC, "src/UserSpecification.md": SPEC },
    async (root) => {
      const { problems } = await discoverModules(root);
      assert.equal(problems.length, 1);
      assert.match(problems[0], /^src\/UserSpecification\.md: src\/ itself cannot be a module/);
    },
  );
});

Deno.test("discoverModules: src as a symbolic link is a problem", async () => {
  await withFiles(
    { "UserSpecification.md": SPEC, "code/a/UserSpecification.md": SPEC },
    async (root) => {
      await Deno.symlink(join(root, "code"), join(root, "src"));
      const { modules, problems } = await discoverModules(root);
      assert.deepEqual(modules.map((m) => m.path), [""]);
      assert.match(problems[0], /^src is a symbolic link: /);
    },
  );
});

Deno.test("discoverModules: where the root module's documents are read", async () => {
  const cases: [Record<string, string>, string, string][] = [
    [{}, "ModuleDependencies.md", "APISignatures.md"], // no src/
    [{ "src/x.ts": "" }, "src/ModuleDependencies.md", "src/APISignatures.md"], // src/, neither yet
    [
      { "src/x.ts": "", "ModuleDependencies.md": "" },
      "ModuleDependencies.md",
      "src/APISignatures.md",
    ],
    [
      { "src/ModuleDependencies.md": "", "APISignatures.md": "" },
      "src/ModuleDependencies.md",
      "APISignatures.md",
    ],
  ];
  for (const [files, dependenciesFile, apiFile] of cases) {
    await withFiles({ "UserSpecification.md": SPEC, ...files }, async (root) => {
      const { modules, problems } = await discoverModules(root);
      assert.deepEqual(problems, [], JSON.stringify(files));
      assert.deepEqual([modules[0].dependenciesFile, modules[0].apiFile], [
        dependenciesFile,
        apiFile,
      ]);
    });
  }
});

Deno.test("discoverModules: a root document both in src/ and the root is read from src/, with a warning", async () => {
  await withFiles({
    "UserSpecification.md": SPEC,
    "ModuleDependencies.md": dependencies(),
    "src/ModuleDependencies.md": dependencies(),
    "APISignatures.md": "",
    "src/APISignatures.md": "",
  }, async (root) => {
    const { modules, problems, warnings } = await discoverModules(root);
    assert.deepEqual(problems, []);
    assert.deepEqual([modules[0].dependenciesFile, modules[0].apiFile], [
      "src/ModuleDependencies.md",
      "src/APISignatures.md",
    ]);
    assert.deepEqual(warnings, [
      "ModuleDependencies.md in the project root is ignored: the root module's " +
      "ModuleDependencies.md is read from src/ModuleDependencies.md, which exists too; " +
      "delete the root copy",
      "APISignatures.md in the project root is ignored: the root module's APISignatures.md " +
      "is read from src/APISignatures.md, which exists too; delete the root copy",
    ]);
  });
});

Deno.test("discoverModules: modules whose specification caches collide are a problem naming both", async () => {
  await withFiles({
    "UserSpecification.md": SPEC,
    "src/a/UserSpecification.md": SPEC,
    "src/a/self-consistent/UserSpecification.md": SPEC,
    "src/b/UserSpecification.md": SPEC,
    "src/b/implemented/x/UserSpecification.md": SPEC,
    "src/implemented/UserSpecification.md": SPEC, // the root module's files collide with nothing
  }, async (root) => {
    const { modules, problems } = await discoverModules(root);
    assert.equal(modules.length, 6);
    assert.deepEqual(problems, [
      "src/a (src/a/UserSpecification.md) and src/a/self-consistent " +
      "(src/a/self-consistent/UserSpecification.md) cannot both be modules: src/a's cached " +
      "specification for the stage self-consistent, agent-state/specifications/src/a/self-consistent, " +
      "stands where src/a/self-consistent's cache folder must go; rename the folder " +
      "src/a/self-consistent (a folder directly in a module cannot be named like a stage when it " +
      "is or holds a module)",
      "src/b (src/b/UserSpecification.md) and src/b/implemented/x " +
      "(src/b/implemented/x/UserSpecification.md) cannot both be modules: src/b's cached " +
      "specification for the stage implemented, agent-state/specifications/src/b/implemented, " +
      "stands where src/b/implemented/x's cache folder must go; rename the folder " +
      "src/b/implemented (a folder directly in a module cannot be named like a stage when it " +
      "is or holds a module)",
    ]);
  });
});

Deno.test("loadModules: a missing ModuleDependencies.md names the module and the file to create", async () => {
  await withFiles({
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
  await withFiles({ "src/ModuleDependencies.md": dependencies() }, async (root) => {
    const problems = await problemsOf(root);
    assert.deepEqual(problems.length, 1);
    assert.match(problems[0], /^UserSpecification\.md not found in the project root/);
  });
});

Deno.test("loadModules: every problem of every module is reported at once", async () => {
  await withFiles({
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
      "the modules have 5 problems (listed above); fix them, then run again",
    );
  });
});

Deno.test("loadModules: ModuleDependencies.md that is a symbolic link or not UTF-8", async () => {
  await withFiles({
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
