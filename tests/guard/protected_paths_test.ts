import assert from "node:assert/strict";
import {
  describeProtectedPaths,
  PROTECTED_PATHS,
  protectedRulesFor,
} from "../../lib/guard/protected_paths.ts";

/** The outermost rule that covers `path`. */
const outermost = (path: string) => protectedRulesFor(path)[0];

Deno.test("the table holds every protected entry, with scope and readability", () => {
  const summary = PROTECTED_PATHS.map((e) => `${e.name} ${e.scope} ${e.readable}`);
  assert.deepEqual(summary.sort(), [
    ".codecommitignore root-file true",
    ".git any-depth-name false",
    ".gitattributes any-depth-name true",
    ".gitignore any-depth-name true",
    "Cargo.lock root-file true",
    "LLMInstructions.md root-file true",
    "UserSpecification.md any-depth-name true",
    "agent-config root-folder false",
    "agent-state root-folder false",
    "app-data root-folder false",
    "build.sh root-file true",
    "codeRollup.sh root-file true",
    "logs root-folder false",
    "target root-folder true",
  ]);
  assert.ok(Object.isFrozen(PROTECTED_PATHS));
  assert.ok(PROTECTED_PATHS.every((e) => Object.isFrozen(e) && e.description.length > 0));
});

Deno.test("protectedRulesFor finds root files only in the root", () => {
  assert.equal(outermost("build.sh")?.name, "build.sh");
  assert.equal(outermost("./build.sh")?.name, "build.sh");
  assert.equal(outermost("build.sh/x")?.name, "build.sh");
  assert.equal(outermost("docs/build.sh"), undefined);
  assert.equal(outermost("src/Cargo.lock"), undefined);
  assert.equal(outermost("build.sh.txt"), undefined);
});

Deno.test("protectedRulesFor finds any-depth names at any depth", () => {
  for (const path of [".gitignore", "src/.gitignore", "a/b/c/.gitignore"]) {
    assert.equal(outermost(path)?.name, ".gitignore", path);
  }
  for (const path of ["UserSpecification.md", "src/llm/UserSpecification.md"]) {
    assert.equal(outermost(path)?.name, "UserSpecification.md", path);
  }
  for (const path of [".git", ".git/config", "vendor/x/.git/hooks/pre-commit", "a/.git"]) {
    assert.equal(outermost(path)?.name, ".git", path);
  }
  assert.equal(outermost(".github/x"), undefined);
  for (const path of [".gitattributes", "src/.gitattributes", "a/b/.GitAttributes"]) {
    assert.equal(outermost(path)?.name, ".gitattributes", path);
  }
  assert.equal(outermost(".gitattributes.bak"), undefined);
  assert.equal(outermost(".codecommitignore")?.name, ".codecommitignore");
  assert.equal(outermost("src/.codecommitignore"), undefined);
});

Deno.test("protectedRulesFor finds root folders and what is inside them, only at the root", () => {
  assert.equal(outermost("agent-config/gemini-key.txt")?.name, "agent-config");
  assert.equal(outermost("agent-config")?.name, "agent-config");
  assert.equal(outermost("logs/2025/x.txt")?.name, "logs");
  assert.equal(outermost("target/debug/x")?.name, "target");
  assert.equal(outermost("src/target/x.rs"), undefined);
  assert.equal(outermost("src/logs/x"), undefined);
  assert.equal(outermost("targets/x"), undefined);
});

Deno.test("protectedRulesFor compares names the way case-insensitive file systems fold them", () => {
  const cases: [string, string][] = [
    ["BUILD.SH", "build.sh"],
    ["Build.Sh", "build.sh"],
    ["codeRollup.\u017fh", "codeRollup.sh"],
    ["Cargo.loc\u212a", "Cargo.lock"],
    ["LLM\u0131nstructions.md", "LLMInstructions.md"],
    [".GITIGNORE", ".gitignore"],
    ["src/deep/.GitIgnore", ".gitignore"],
    ["src/userspecification.md", "UserSpecification.md"],
    [".GIT/config", ".git"],
    ["src/.GiT/x", ".git"],
    [".g\u200cit/x", ".git"],
    ["Agent-Config/gemini-key.txt", "agent-config"],
    ["agent-\u017ftate/x", "agent-state"],
    ["LOGS/x", "logs"],
    ["TARGET/x", "target"],
  ];
  for (const [path, name] of cases) {
    assert.equal(outermost(path)?.name, name, JSON.stringify(path));
  }
});

Deno.test("protectedRulesFor returns every rule that covers a path, the outermost first", () => {
  assert.deepEqual(protectedRulesFor("target/.git/config").map((rule) => rule.name), [
    "target",
    ".git",
  ]);
  assert.deepEqual(protectedRulesFor("src/main.ts"), []);
  assert.equal(outermost("logs/.git/x")?.name, "logs");
  assert.equal(outermost("src/.git/.gitignore")?.name, ".git");
});

Deno.test("describeProtectedPaths gives one line per entry, for the prompt", () => {
  const lines = describeProtectedPaths();
  assert.equal(lines.length, PROTECTED_PATHS.length);
  assert.ok(lines.includes("`build.sh` in the project root — the project's build script"));
  assert.ok(lines.every((line) => !line.includes("\n")));
  const gitignore = lines.find((line) => line.startsWith("`.gitignore` in any folder"));
  assert.ok(gitignore?.includes("git status"));
  assert.ok(lines.some((line) => line.startsWith("`logs/` in the project root, and everything")));
});
