/**
 * Tests of the codebase assembly on real folders: which files belong to a
 * module, and the exact `full` and `module` codebases.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  assembleCodebase,
  codebasePaths,
  formatFileBlock,
  MAX_FILE_BYTES,
  moduleFiles,
} from "../../lib/auto_workflow/codebase.ts";
import { loadModules } from "../../lib/auto_workflow/modules.ts";
import { dependencies, fixtureFiles, withFiles } from "./helpers.ts";

Deno.test("formatFileBlock: the rollup's block format, a final newline added, binaries noted", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  assert.equal(formatFileBlock("a.ts", bytes("x\n")), "--- a.ts ---\nx\n");
  assert.equal(formatFileBlock("a.ts", bytes("x")), "--- a.ts ---\nx\n");
  assert.equal(formatFileBlock("empty", bytes("")), "--- empty ---\n");
  assert.equal(
    formatFileBlock("img.png", new Uint8Array([0x89, 0x50, 0xff, 0x00])),
    "--- img.png ---\n(a binary file of 4 bytes: not shown)\n",
  );
  assert.equal(
    formatFileBlock("nul.bin", bytes("a\0b")),
    "--- nul.bin ---\n(a binary file of 3 bytes: not shown)\n",
  );
});

Deno.test("moduleFiles: a module's files stop at nested modules, ignored paths, links and protected folders", async () => {
  await withFiles({
    ".gitignore": "/agent-config\n*.log\nsrc/a/build/\n",
    "UserSpecification.md": "root\n",
    "src/ModuleDependencies.md": dependencies("src/a"),
    "src/a/UserSpecification.md": "a\n",
    "src/a/ModuleDependencies.md": dependencies(),
    "src/a/code.ts": "code\n",
    "src/a/deep/more.ts": "more\n",
    "src/a/debug.log": "ignored\n",
    "src/a/build/out.js": "ignored folder\n",
    "src/a/.git/config": "never read\n",
    "src/a/inner/UserSpecification.md": "nested module\n",
    "src/a/inner/inner.ts": "nested module code\n",
    "outside.txt": "linked\n",
  }, async (root) => {
    await Deno.symlink(join(root, "outside.txt"), join(root, "src/a/link.ts"));
    await Deno.symlink(join(root, "src"), join(root, "src/a/loop"));
    const paths = new Set(["src/a", "src/a/inner"]);
    const a = { path: "src/a", specPath: "", dependenciesFile: "", apiFile: "" };
    assert.deepEqual(await moduleFiles(root, a, new Set(["src/a/inner"])), [
      "src/a/ModuleDependencies.md",
      "src/a/UserSpecification.md",
      "src/a/code.ts",
      "src/a/deep/more.ts",
    ]);
    const rootModule = { path: "", specPath: "", dependenciesFile: "", apiFile: "" };
    assert.deepEqual(await moduleFiles(root, rootModule, paths), [
      ".gitignore",
      "UserSpecification.md",
      "outside.txt",
      "src/ModuleDependencies.md",
    ]);
  });
});

Deno.test("moduleFiles: the root module never reads agent-config, agent-state, logs, app-data or .git", async () => {
  await withFiles({
    ".gitignore": "",
    "UserSpecification.md": "root\n",
    "agent-config/gemini-key.txt": "secret\n",
    "agent-state/specifications/implemented": "cache\n",
    "logs/run/query.txt": "log\n",
    "app-data/db.json": "{}\n",
    ".git/HEAD": "ref\n",
    "target/debug/app": "build output\n",
    "src/logs/app.ts": "a src folder named logs is fine\n",
  }, async (root) => {
    const rootModule = { path: "", specPath: "", dependenciesFile: "", apiFile: "" };
    assert.deepEqual(await moduleFiles(root, rootModule, new Set()), [
      ".gitignore",
      "UserSpecification.md",
      "src/logs/app.ts",
      "target/debug/app",
    ]);
  });
});

Deno.test("codebasePaths: full = top spec, the module's files, each dependency's spec and API; module = its files", async () => {
  await withFiles(await fixtureFiles("five_modules"), async (root) => {
    const modules = await loadModules(root);
    const llm = modules.find((m) => m.path === "src/llm")!;
    assert.deepEqual(await codebasePaths(root, llm, modules, "full"), [
      "UserSpecification.md",
      "src/llm/APISignatures.md",
      "src/llm/ModuleDependencies.md",
      "src/llm/UserSpecification.md",
      "src/llm/llm.txt",
      "src/llm/gemini/UserSpecification.md",
      "src/llm/gemini/APISignatures.md",
      "src/util/UserSpecification.md",
      "src/util/APISignatures.md",
    ]);
    assert.deepEqual(await codebasePaths(root, llm, modules, "module"), [
      "src/llm/APISignatures.md",
      "src/llm/ModuleDependencies.md",
      "src/llm/UserSpecification.md",
      "src/llm/llm.txt",
    ]);
    const rootModule = modules.find((m) => m.path === "")!;
    assert.deepEqual(await codebasePaths(root, rootModule, modules, "full"), [
      "UserSpecification.md",
      "docs/usage.md",
      "src/APISignatures.md",
      "src/ModuleDependencies.md",
      "src/main.txt",
      "src/core/UserSpecification.md",
      "src/core/APISignatures.md",
      "src/llm/UserSpecification.md",
      "src/llm/APISignatures.md",
    ]);
  });
});

Deno.test("assembleCodebase: the exact text, a dependency's missing APISignatures.md left out", async () => {
  await withFiles(await fixtureFiles("five_modules"), async (root) => {
    const modules = await loadModules(root);
    const llm = modules.find((m) => m.path === "src/llm")!;
    const codebase = await assembleCodebase(root, llm, modules, "full");
    const read = (path: string) => Deno.readTextFileSync(join(root, path));
    const expected = [
      "UserSpecification.md",
      "src/llm/APISignatures.md",
      "src/llm/ModuleDependencies.md",
      "src/llm/UserSpecification.md",
      "src/llm/llm.txt",
      "src/llm/gemini/UserSpecification.md",
      "src/llm/gemini/APISignatures.md",
      "src/util/UserSpecification.md",
    ].map((path) => `--- ${path} ---\n${read(path)}`).join("");
    assert.equal(codebase, expected);
    assert.ok(!codebase.includes("src/util/APISignatures.md"));
  });
});

Deno.test("assembleCodebase: a file over the size limit is listed with a note, not read", async () => {
  await withFiles({
    "UserSpecification.md": "root\n",
    "src/ModuleDependencies.md": dependencies(),
  }, async (root) => {
    await Deno.writeFile(join(root, "big.txt"), new Uint8Array(MAX_FILE_BYTES + 1).fill(0x61));
    await Deno.writeFile(join(root, "edge.txt"), new Uint8Array(MAX_FILE_BYTES).fill(0x62));
    const modules = await loadModules(root);
    const codebase = await assembleCodebase(root, modules[0], modules, "module");
    assert.ok(
      codebase.startsWith(
        `--- UserSpecification.md ---\nroot\n--- big.txt ---\n(a file of ${
          MAX_FILE_BYTES + 1
        } bytes, over the limit of ${MAX_FILE_BYTES}: not shown)\n--- edge.txt ---\nbbbb`,
      ),
      codebase.slice(0, 300),
    );
  });
});
