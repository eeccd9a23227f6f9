/**
 * The sandbox plan, found in real temporary projects: the protected-path
 * table's `build` column decides, the walk finds nested entries the way git
 * sees the project, and links out of agent-config/ are followed.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { PROTECTED_PATHS } from "../../lib/guard/protected_paths.ts";
import { isInside, planSandbox } from "../../lib/sandbox/plan.ts";

async function tempProject(files: Record<string, string>): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "code-commit-plan-" }));
  for (const [path, content] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(root, path)), { recursive: true });
    if (path.endsWith("/")) await Deno.mkdir(join(root, path), { recursive: true });
    else await Deno.writeTextFile(join(root, path), content);
  }
  return root;
}

Deno.test("the build column: hidden, read-only and writable entries as the issue lists them", () => {
  const access = Object.fromEntries(PROTECTED_PATHS.map((entry) => [entry.name, entry.build]));
  assert.deepEqual(access, {
    "Cargo.lock": "writable",
    "build.sh": "read-only",
    "codeRollup.sh": "read-only",
    "LLMInstructions.md": "read-only",
    ".gitignore": "read-only",
    "UserSpecification.md": "read-only",
    ".git": "read-only",
    "agent-config": "hidden",
    "agent-state": "read-only",
    "app-data": "writable",
    "logs": "read-only",
    "target": "writable",
  });
});

Deno.test("planSandbox: every protected entry that exists, at the root and at any depth", async () => {
  const root = await tempProject({
    ".gitignore": "/agent-config\n/logs\nnode_modules/\n*.log\n",
    "build.sh": "#!/bin/sh\n",
    "codeRollup.sh": "",
    "LLMInstructions.md": "",
    "Cargo.lock": "",
    "UserSpecification.md": "",
    ".git/": "",
    "agent-config/gemini-key.txt": "AIza-key\n",
    "agent-state/cache.json": "{}",
    "app-data/db": "",
    "logs/run/x.txt": "",
    "target/debug/x": "",
    "src/.gitignore": "*.tmp\n",
    "src/core/UserSpecification.md": "",
    "src/core/.git/": "",
    "src/notes.log/UserSpecification.md": "", // an ignored folder: git reads nothing in it
    "node_modules/pkg/.gitignore": "",
    "vendor/lib/.git": "gitdir: ../../.git/modules/lib\n",
  });
  try {
    const plan = await planSandbox(root);
    assert.equal(plan.root, root);
    assert.deepEqual(
      plan.readOnly,
      [
        ".git",
        ".gitignore",
        "LLMInstructions.md",
        "UserSpecification.md",
        "agent-state",
        "build.sh",
        "codeRollup.sh",
        "logs",
        "src/.gitignore",
        "src/core/.git",
        "src/core/UserSpecification.md",
        "vendor/lib/.git",
      ].map((path) => join(root, path)),
    );
    assert.deepEqual(plan.hidden, [{ path: join(root, "agent-config"), isDirectory: true }]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("planSandbox: a key file that is a link out of the project is hidden where it leads", async () => {
  const root = await tempProject({ ".gitignore": "/agent-config\n", "agent-config/": "" });
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "code-commit-keys-" }));
  try {
    await Deno.writeTextFile(join(outside, "gemini"), "AIza-key\n");
    await Deno.mkdir(join(outside, "more"));
    await Deno.symlink(join(outside, "gemini"), join(root, "agent-config/gemini-key.txt"));
    await Deno.symlink(join(outside, "more"), join(root, "agent-config/more"));
    await Deno.symlink(join(outside, "missing"), join(root, "agent-config/dangling"));
    const plan = await planSandbox(root);
    assert.deepEqual(
      plan.hidden,
      [
        { path: join(root, "agent-config"), isDirectory: true },
        { path: join(outside, "gemini"), isDirectory: false },
        { path: join(outside, "more"), isDirectory: true },
      ].sort((a, b) => (a.path < b.path ? -1 : 1)),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("planSandbox: agent-config/ itself a link: hidden where it leads", async () => {
  const root = await tempProject({ ".gitignore": "/agent-config\n" });
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "code-commit-config-" }));
  try {
    await Deno.symlink(outside, join(root, "agent-config"));
    const plan = await planSandbox(root);
    assert.deepEqual(plan.hidden, [{ path: outside, isDirectory: true }]);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("planSandbox: a read-only entry that is a link is followed inside the project only", async () => {
  const root = await tempProject({
    ".gitignore": "/agent-config\n",
    "scripts/build.sh": "#!/bin/sh\n",
  });
  try {
    await Deno.symlink("scripts/build.sh", join(root, "build.sh"));
    await Deno.symlink("/etc/hostname", join(root, "codeRollup.sh"));
    const plan = await planSandbox(root);
    assert.deepEqual(plan.readOnly, [join(root, ".gitignore"), join(root, "scripts/build.sh")]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("isInside: the folder itself and what is under it, not a sibling with the same prefix", () => {
  assert(isInside("/a/b", "/a/b"));
  assert(isInside("/a/b/c", "/a/b"));
  assert(isInside("/a/b/..c", "/a/b"));
  assert(!isInside("/a/bc", "/a/b"));
  assert(!isInside("/a", "/a/b"));
  assert(!isInside("/x/y", "/a/b"));
});
