import assert from "node:assert/strict";
import { join } from "node:path";
import { buildSummary } from "../../lib/context_builder/summary.ts";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import { IgnoreRules } from "../../lib/guard/ignore_rules.ts";
import { CodeCommitIgnore } from "../../lib/guard/codecommit_ignore.ts";
import { git, runGit, withProject, writeFiles } from "../support/project.ts";

const GITIGNORE = "/agent-config\n/logs\nnode_modules/\n/target/\n*.tmp\n";

const PROJECT: Record<string, string> = {
  ".gitignore": GITIGNORE,
  "build.sh": "#!/bin/sh\ncargo build\n",
  "Cargo.toml": '[package]\nname = "demo"\n',
  "package.json": "{}",
  "LLMInstructions.md": "Be brief.\n",
  "UserSpecification.md": "# Demo\n",
  "ModuleDependencies.md": "# Module Dependencies\n",
  "README.md": "# Readme\n",
  "codeRollup.sh": "#!/bin/sh\n",
  "notes.tmp": "ignored\n",
  "tests/a_test.rs": "",
  "target/debug/demo": "binary",
  "node_modules/x/index.js": "",
  "agent-config/query.txt": "query\n",
  "agent-state/cache.json": "{}",
  "app-data/db.sqlite": "",
  "src/main.rs": "fn main() {}\n",
  "src/APISignatures.md": "the root API\n",
  "src/cache.tmp": "",
  "src/llm/ModuleDependencies.md": "# Module Dependencies\n\nsrc/logger\n",
  "src/llm/APISignatures.md": "pub fn ask()\n",
  "src/llm/UserSpecification.md": "# LLM\n",
  "src/llm/mod.rs": "pub fn ask() {}\n",
  "src/llm/gemini/mod.rs": "",
  "src/llm/gemini/PublicAPI.md": "gemini API",
  "src/llm/gemini/InternalDependencies.md": "",
  "src/logger/mod.rs": "",
  "src/logger/target/kept.rs": "",
  "src/app-data/kept.rs": "",
};

/** The summary of PROJECT, exactly. */
const EXPECTED = `=== Project Root ===
--- .gitignore ---
${GITIGNORE}--- build.sh ---
#!/bin/sh
cargo build
--- Cargo.toml ---
[package]
name = "demo"
--- package.json ---
{}
--- LLMInstructions.md ---
Be brief.
--- UserSpecification.md ---
# Demo
--- ModuleDependencies.md ---
# Module Dependencies
--- src/APISignatures.md ---
the root API
--- FILENAMES ---
.gitignore
Cargo.toml
LLMInstructions.md
ModuleDependencies.md
README.md
UserSpecification.md
build.sh
codeRollup.sh
package.json
src/APISignatures.md
src/main.rs
--- END FILENAMES ---

=== src/app-data ===
--- FILENAMES ---
src/app-data/kept.rs
--- END FILENAMES ---

=== src/empty ===
--- FILENAMES ---
--- END FILENAMES ---

=== src/llm ===
--- src/llm/ModuleDependencies.md ---
# Module Dependencies

src/logger
--- src/llm/APISignatures.md ---
pub fn ask()
--- FILENAMES ---
src/llm/APISignatures.md
src/llm/ModuleDependencies.md
src/llm/UserSpecification.md
src/llm/mod.rs
--- END FILENAMES ---

=== src/llm/gemini ===
--- src/llm/gemini/InternalDependencies.md ---
--- src/llm/gemini/PublicAPI.md ---
gemini API
--- FILENAMES ---
src/llm/gemini/InternalDependencies.md
src/llm/gemini/PublicAPI.md
src/llm/gemini/mod.rs
--- END FILENAMES ---

=== src/logger ===
--- FILENAMES ---
src/logger/mod.rs
--- END FILENAMES ---

=== src/logger/target ===
--- FILENAMES ---
src/logger/target/kept.rs
--- END FILENAMES ---

=== src/only-folders ===
--- FILENAMES ---
--- END FILENAMES ---

=== src/only-folders/inner ===
--- FILENAMES ---
src/only-folders/inner/x.rs
--- END FILENAMES ---
`;

Deno.test("buildSummary lays the project out by module, every folder under src/ included", async () => {
  await withProject(
    { ...PROJECT, "src/only-folders/inner/x.rs": "" },
    async (root) => {
      await Deno.mkdir(join(root, "src/empty"));
      const summary = await buildSummary(root, await IgnoreRules.load(root));
      assert.equal(summary.text, EXPECTED);
      assert.deepEqual(summary.warnings, []);
      assert.equal(summary.modules, 8);
      assert.equal(summary.files, 11 + 1 + 4 + 3 + 1 + 1 + 1);
    },
  );
});

Deno.test("buildSummary without src/ and without folders has the Project Root section only", async () => {
  await withProject({ ".gitignore": "/agent-config\n", "a.txt": "" }, async (root) => {
    const summary = await buildSummary(root, await IgnoreRules.load(root));
    assert.equal(
      summary.text,
      "=== Project Root ===\n--- .gitignore ---\n/agent-config\n--- FILENAMES ---\n.gitignore\na.txt\n--- END FILENAMES ---\n",
    );
  });
});

Deno.test("buildSummary without src/ covers every folder of the project as git sees it", async () => {
  await withProject({
    ".gitignore": "/agent-config\nnode_modules/\n",
    "package.json": "{}",
    "functions/parse.js": "",
    "lib/util.js": "",
    "lib/deep/ModuleDependencies.md": "lib/util.js\n",
    "test/a.js": "",
    "node_modules/x/index.js": "",
  }, async (root) => {
    const summary = await buildSummary(root, await IgnoreRules.load(root));
    assert.equal(summary.modules, 4);
    assert.equal(summary.where, "in the project");
    assert.match(summary.text, /\n=== functions ===\n--- FILENAMES ---\nfunctions\/parse\.js\n/);
    assert.match(
      summary.text,
      /\n=== lib\/deep ===\n--- lib\/deep\/ModuleDependencies\.md ---\nlib\/util\.js\n/,
    );
    assert.match(summary.text, /\n=== test ===\n/);
    assert(!summary.text.includes("node_modules/x"), "git ignores node_modules/");
  });
});

Deno.test("buildSummary leaves out what .codecommitignore matches (given as exclude)", async () => {
  await withProject({
    ".gitignore": "/agent-config\n",
    "package-lock.json": "{}",
    "vendor/x.js": "",
    "src/a.ts": "",
    "src/gen/big.ts": "",
  }, async (root) => {
    const exclude = CodeCommitIgnore.parse("package-lock.json\nvendor/\n/src/gen/\n");
    const summary = await buildSummary(root, await IgnoreRules.load(root), { exclude });
    assert(!summary.text.includes("package-lock.json"), summary.text);
    assert(!summary.text.includes("vendor"), summary.text);
    assert(!summary.text.includes("src/gen"), summary.text);
    assert.match(summary.text, /src\/a\.ts/);
  });
});

/** The top-level files the summary shows in full (the manifests of Deno and npm among them). */
const SUMMARY_FILES = [
  ".gitignore",
  "build.sh",
  "Cargo.toml",
  "deno.json",
  "package.json",
  "LLMInstructions.md",
  "UserSpecification.md",
];

for (const name of SUMMARY_FILES) {
  Deno.test(`buildSummary refuses a project whose ${name} is ignored by git`, async () => {
    const files = name === ".gitignore"
      ? { ".gitignore": "/agent-config\n.gitignore\n" }
      : { ".gitignore": `/agent-config\n/${name}\n`, [name]: "content\n" };
    await withProject(files, async (root) => {
      const rules = await IgnoreRules.load(root);
      const error = await buildSummary(root, rules).then(() => undefined, (e) => e);
      assert.ok(error instanceof CodeCommitError, `${name}: ${error}`);
      const escaped = name.replaceAll(".", "\\.");
      assert.match(
        error.message,
        new RegExp(`^${escaped} is ignored by git \\(the rule \`/?${escaped}\` in \\.gitignore\\)`),
      );
      // The line the message gives re-includes the file: git and the summary agree.
      const line = /add the line (\S+) at the end of \.gitignore/.exec(error.message)?.[1];
      assert.equal(line, `!/${name}`);
      await Deno.writeTextFile(join(root, ".gitignore"), `${files[".gitignore"]}${line}\n`);
      await runGit(root, ["init", "-q"]);
      const check = await runGit(root, ["check-ignore", "-q", "--no-index", name]);
      assert.equal(check.code, 1, `${name}: git no longer ignores it`);
      await buildSummary(root, await IgnoreRules.load(root));
    });
  });
}

Deno.test("buildSummary accepts a project where a summary file is absent", async () => {
  await withProject({ ".gitignore": "/agent-config\n/Cargo.toml\n" }, async (root) => {
    const summary = await buildSummary(root, await IgnoreRules.load(root));
    assert.ok(!summary.text.includes("Cargo.toml ---"));
  });
});

Deno.test("buildSummary refuses a top-level file ignored only once case is folded", async () => {
  await withProject({ ".gitignore": "/agent-config\nbuild.SH\n", "build.sh": "" }, async (root) => {
    await assert.rejects(
      () => IgnoreRules.load(root).then((rules) => buildSummary(root, rules)),
      /build\.sh is ignored by git \(the rule `build\.sh` in \.gitignore, once names are compared without regard to case\)/,
    );
  });
});

Deno.test("buildSummary warns about a top-level file or document it cannot show, and goes on", async () => {
  await withProject(
    { ".gitignore": "/agent-config\n", "real-spec.md": "spec\n", "src/m/a.rs": "" },
    async (root) => {
      await Deno.symlink("real-spec.md", join(root, "UserSpecification.md"));
      await Deno.symlink("/etc/passwd", join(root, "src/m/APISignatures.md"));
      await Deno.writeFile(join(root, "src/m/ModuleDependencies.md"), new Uint8Array([0, 1, 2]));
      await Deno.mkdir(join(root, "src/m/PublicAPI.md"));
      await writeFiles(root, { "src/bad\nname.rs": "" });
      const summary = await buildSummary(root, await IgnoreRules.load(root));
      assert.ok(!summary.text.includes("--- UserSpecification.md ---"));
      assert.ok(!summary.text.includes("root:"));
      assert.ok(!summary.text.includes("bad"));
      assert.match(
        summary.text,
        /=== src\/m ===\n--- FILENAMES ---\nsrc\/m\/ModuleDependencies\.md\nsrc\/m\/a\.rs\n--- END FILENAMES ---\n\n=== src\/m\/PublicAPI\.md ===\n/,
      );
      assert.deepEqual(summary.warnings, [
        '"src/bad\\nname.rs": left out of the summary: contains the control character U+000A',
        "UserSpecification.md: is a symbolic link (a link could lead outside the project or to a protected file); left out of the summary",
        "src/m/ModuleDependencies.md: is a binary file (it holds NUL bytes); left out of the summary",
      ]);
    },
  );
});

Deno.test("the summary leaves out git's data behind a .git file, at the root and nested", async () => {
  await withProject({}, async (root) => {
    await git(root, "init", "-q", "--separate-git-dir", ".repo", ".");
    await writeFiles(root, { ".gitignore": GITIGNORE, "lib/a.rs": "", "sub/b.rs": "" });
    await git(join(root, "sub"), "init", "-q", "--separate-git-dir", ".subrepo", ".");
    const summary = await buildSummary(root, await IgnoreRules.load(root));
    assert.doesNotMatch(summary.text, /\.repo|\.subrepo/);
    assert.match(summary.text, /^lib\/a\.rs$/m);
    assert.match(summary.text, /^sub\/b\.rs$/m);
    assert.deepEqual(summary.warnings, []);
  });
});
