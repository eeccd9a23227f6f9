/**
 * Tests of module discovery on real folders: nesting, symbolic links,
 * ignored folders, the root module's documents, and colliding caches.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { discoverModules } from "../../../lib/workflows/auto_workflow/discovery.ts";
import { withProject } from "../../support/project.ts";
import { dependencies } from "./helpers.ts";

const SPEC = "# spec\n";

Deno.test("discoverModules: folders at any depth; folders without a specification are walked through", async () => {
  await withProject({
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
  await withProject({
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
  await withProject({
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
  await withProject({
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

Deno.test("discoverModules: a specification that is a symbolic link is a problem naming it", async () => {
  await withProject({ "UserSpecification.md": SPEC, "spec.md": SPEC }, async (root) => {
    await Deno.mkdir(join(root, "src/a"), { recursive: true });
    await Deno.symlink(join(root, "spec.md"), join(root, "src/a/UserSpecification.md"));
    const { modules, problems } = await discoverModules(root);
    assert.deepEqual(modules.map((m) => m.path), [""]);
    assert.equal(problems.length, 1);
    assert.match(problems[0], /^src\/a\/UserSpecification\.md is a symbolic link: /);
  });
});

Deno.test("discoverModules: src itself holding a specification is a problem", async () => {
  await withProject(
    { "UserSpecification.md": SPEC, "src/UserSpecification.md": SPEC },
    async (root) => {
      const { problems } = await discoverModules(root);
      assert.equal(problems.length, 1);
      assert.match(problems[0], /^src\/UserSpecification\.md: src\/ itself cannot be a module/);
    },
  );
});

Deno.test("discoverModules: src as a symbolic link is a problem", async () => {
  await withProject(
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
    await withProject({ "UserSpecification.md": SPEC, ...files }, async (root) => {
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
  await withProject({
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
  await withProject({
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
