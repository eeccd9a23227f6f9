/**
 * The sandbox plan, found in real temporary projects: the protected-path
 * table's `build` column decides, the walk finds nested entries the way git
 * sees the project, and links out of agent-config/ are followed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PROTECTED_PATHS } from "../../lib/guard/protected_paths.ts";
import { RUN_FLAGS } from "../../lib/permissions/permissions.ts";
import { isInside, planSandbox, type SandboxPlan } from "../../lib/sandbox/sandbox_plan.ts";
import { tempProject } from "../support/project.ts";

const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The plan of the project at `root` as the tool makes it: in a subprocess
 * with the tool's own permissions (the tests' own can read everywhere).
 */
async function planAsTool(root: string): Promise<SandboxPlan | { error: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--cached-only",
      "--config",
      `${TOOL_ROOT}deno.json`,
      ...RUN_FLAGS,
      `${TOOL_ROOT}tests/support/sandbox_plan_as_tool.ts`,
    ],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(output.success, new TextDecoder().decode(output.stderr));
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

/** A folder outside the project (and outside /tmp, which a build has a private copy of). */
async function outsideFolder(): Promise<string> {
  return await Deno.realPath(
    await Deno.makeTempDir({ dir: "/var/tmp", prefix: "code-commit-plan-outside-" }),
  );
}

/** A temporary project holding `files` (a path ending in `/` is an empty folder), removed by the test. */
async function planProject(files: Record<string, string>): Promise<string> {
  const folders = Object.keys(files).filter((path) => path.endsWith("/"));
  const written = Object.entries(files).filter(([path]) => !path.endsWith("/"));
  return (await tempProject(Object.fromEntries(written), { folders })).root;
}

Deno.test("the build column: which protected entries the build cannot see, may read, may write", () => {
  const access = Object.fromEntries(PROTECTED_PATHS.map((entry) => [entry.name, entry.build]));
  assert.deepEqual(access, {
    "Cargo.lock": "writable",
    "build.sh": "read-only",
    "codeRollup.sh": "read-only",
    "LLMInstructions.md": "read-only",
    ".codecommitignore": "read-only",
    ".gitignore": "read-only",
    ".gitattributes": "read-only",
    "UserSpecification.md": "read-only",
    ".git": "read-only",
    "agent-config": "hidden",
    "agent-state": "read-only",
    "app-data": "writable",
    "logs": "hidden",
    "target": "writable",
  });
});

Deno.test("planSandbox: every protected entry that exists, at the root and at any depth", async () => {
  const root = await planProject({
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
        "src/.gitignore",
        "src/core/.git",
        "src/core/UserSpecification.md",
        "vendor/lib/.git",
      ].map((path) => join(root, path)),
    );
    assert.deepEqual(plan.hidden, [
      { path: join(root, "agent-config"), isDirectory: true },
      { path: join(root, "logs"), isDirectory: true },
    ]);
    // Every folder between the root and a nested read-only entry: no rename can move it away.
    assert.deepEqual(
      plan.mountPoints,
      ["src", "src/core", "vendor", "vendor/lib"].map((path) => join(root, path)),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("planSandbox: a key file that is a link out of the project is hidden where it leads", async () => {
  const root = await planProject({ ".gitignore": "/agent-config\n", "agent-config/": "" });
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
  const root = await planProject({ ".gitignore": "/agent-config\n" });
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
  const root = await planProject({
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

Deno.test("planSandbox: where a .git file's gitdir leads inside the project is read-only, at any depth", async () => {
  const root = await planProject({
    ".gitignore": "/agent-config\n/.repo\n",
    ".git": "gitdir: .repo\n",
    ".repo/config": "[core]\n",
    ".repo/hooks/": "",
    "sub/.git": `gitdir: ${"/"}nowhere/outside\n`,
    "mod/.git": "gitdir: ../.repo/modules/mod\n",
    ".repo/modules/mod/config": "",
    "wt/.git": "gitdir: ../.repo/worktrees/wt\n",
    ".repo/worktrees/wt/commondir": "../..\n",
    "plain/.git/HEAD": "ref: refs/heads/main\n",
    "broken/.git": "no pointer\n",
  });
  try {
    const plan = await planSandbox(root);
    for (const path of [".repo", ".repo/modules/mod", ".repo/worktrees/wt"]) {
      assert.ok(plan.readOnly.includes(join(root, path)), `${path}: ${plan.readOnly}`);
    }
    assert.ok(!plan.readOnly.some((path) => path.startsWith("/nowhere")));
    assert.ok(!plan.readOnly.includes(root), "never the project itself");
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

Deno.test("planSandbox under the tool's own permissions: links out of agent-config/ followed", async () => {
  const root = await planProject({ ".gitignore": "/agent-config\n", "agent-config/": "" });
  const outside = await outsideFolder();
  try {
    await Deno.writeTextFile(join(outside, "gemini"), "AIza-key\n");
    await Deno.mkdir(join(outside, "keys/sub"), { recursive: true });
    await Deno.writeTextFile(join(outside, "keys/sub/openai"), "sk-key\n");
    await Deno.symlink(join(outside, "gemini"), join(root, "agent-config/gemini-key.txt"));
    await Deno.symlink(join(outside, "keys"), join(root, "agent-config/keys"));
    await Deno.mkdir(join(outside, "more"));
    // A link inside a linked folder, leading elsewhere again.
    await Deno.symlink(join(outside, "more"), join(outside, "keys/sub/more"));
    await Deno.symlink("keys/sub/openai", join(root, "agent-config/openai-key.txt"));
    const plan = await planAsTool(root);
    assert(!("error" in plan), JSON.stringify(plan));
    assert.deepEqual(plan.hidden, [
      { path: join(root, "agent-config"), isDirectory: true },
      { path: join(outside, "gemini"), isDirectory: false },
      { path: join(outside, "keys"), isDirectory: true },
      { path: join(outside, "more"), isDirectory: true },
    ]);
    // agent-config/ itself a link out of the project.
    await Deno.remove(join(root, "agent-config"), { recursive: true });
    await Deno.symlink(join(outside, "keys"), join(root, "agent-config"));
    const linked = await planAsTool(root);
    assert(!("error" in linked), JSON.stringify(linked));
    assert.deepEqual(linked.hidden, [
      { path: join(outside, "keys"), isDirectory: true },
      { path: join(outside, "more"), isDirectory: true },
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("planSandbox fails closed: what must be hidden and cannot be, no plan at all", async () => {
  const root = await planProject({ ".gitignore": "/agent-config\n", "agent-config/": "" });
  try {
    await Deno.symlink("loop", join(root, "agent-config/loop"));
    const looped = await planAsTool(root);
    assert("error" in looped);
    assert.match(
      looped.error,
      /^agent-config\/loop must be hidden from the build, but code-commit cannot find where it leads: .*; keep the keys and what agent-config\/ links to inside the project, or run with --sandbox off$/,
    );
    await Deno.remove(join(root, "agent-config/loop"));
    // A link to a folder that holds the project: hiding it would hide the project.
    await Deno.symlink("..", join(root, "agent-config/up"));
    const up = await planAsTool(root);
    assert("error" in up);
    assert.match(up.error, /^agent-config\/up leads to .*, a folder that holds the project/);
    await Deno.remove(join(root, "agent-config/up"));
    // A dangling link hides nothing, and is fine.
    await Deno.symlink("/nonexistent/key", join(root, "agent-config/dangling"));
    assert(!("error" in await planAsTool(root)));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("planSandbox: files with hard links out of the project read-only; more than the limit refused", async () => {
  const root = await planProject({
    ".gitignore": "/agent-config\n.venv/\n",
    "agent-config/": "",
    ".venv/lib/": "",
    "src/a.txt": "a\n",
  });
  const outside = await outsideFolder();
  try {
    await Deno.writeTextFile(join(outside, "cached.py"), "x\n");
    // In an ignored folder: the scan opens those too.
    await Deno.link(join(outside, "cached.py"), join(root, ".venv/lib/cached.py"));
    // Two names inside the project: nothing leads out.
    await Deno.link(join(root, "src/a.txt"), join(root, "src/b.txt"));
    const plan = await planAsTool(root);
    assert(!("error" in plan), JSON.stringify(plan));
    assert(plan.readOnly.includes(join(root, ".venv/lib/cached.py")));
    assert(!plan.readOnly.some((path) => path.startsWith(join(root, "src/"))));
    // The sandbox binds at most 100 one by one.
    for (let i = 0; i < 100; i++) {
      await Deno.writeTextFile(join(outside, `f${i}`), "x\n");
      await Deno.link(join(outside, `f${i}`), join(root, `.venv/lib/f${i}`));
    }
    const refused = await planAsTool(root);
    assert("error" in refused);
    assert.match(
      refused.error,
      /^101 files in the project \(\.venv\/lib\/\S+, \.\.\.\) have hard links/,
    );
    assert.match(refused.error, /UV_LINK_MODE=copy uv sync --reinstall/);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("planSandbox: every folder git reads, odd names and case-folded ignores included; a fifo too", async () => {
  const root = await planProject({
    ".gitignore": "/agent-config\nsub/\n",
    "v~1/.gitignore": "secret\n",
    "v~1/UserSpecification.md": "spec\n",
    "Sub/.gitignore": "y\n",
    "sub/.gitignore": "ignored: git never reads it\n",
    "fifo/": "",
  });
  try {
    const made = await new Deno.Command("mkfifo", { args: [join(root, "fifo/.gitignore")] })
      .output();
    assert(made.success);
    const plan = await planSandbox(root);
    assert.deepEqual(
      plan.readOnly,
      [
        ".gitignore",
        "Sub/.gitignore",
        "fifo/.gitignore",
        "v~1/.gitignore",
        "v~1/UserSpecification.md",
      ]
        .map((path) => join(root, path)),
    );
    assert.deepEqual(plan.mountPoints, ["Sub", "fifo", "v~1"].map((path) => join(root, path)));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("planSandbox: no mount point inside a read-only entry (a link can lead into .git/)", async () => {
  const root = await planProject({ ".gitignore": "/agent-config\n", ".git/info/x": "" });
  try {
    await Deno.symlink(".git/info/x", join(root, "codeRollup.sh"));
    const plan = await planSandbox(root);
    assert(plan.readOnly.includes(join(root, ".git")));
    assert(plan.readOnly.includes(join(root, ".git/info/x")));
    assert.deepEqual(plan.mountPoints, []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** Makes `folder/<0xff 0xfe>/name`, a name that is not UTF-8 (python3: Deno has no byte paths). */
async function rawFolder(folder: string, name: string): Promise<void> {
  const made = await new Deno.Command("python3", {
    args: [
      "-c",
      "import os, sys\nd = os.fsencode(sys.argv[1]) + b'/\\xff\\xfe'\nos.makedirs(d)\n" +
      "open(d + b'/' + os.fsencode(sys.argv[2]), 'w').close()",
      folder,
      name,
    ],
  }).output();
  assert(made.success);
}

Deno.test("planSandbox: a folder holding a name that is not UTF-8 is read-only whole", async () => {
  const root = await planProject({ ".gitignore": "/agent-config\nnode_modules/\n", "src/a": "" });
  try {
    await rawFolder(join(root, "src/deep"), "x");
    await rawFolder(join(root, "node_modules/pkg"), "y");
    // A name that really holds U+FFFD can be reached: nothing to do for it.
    await Deno.writeTextFile(join(root, "src/\uFFFD.txt"), "");
    const plan = await planSandbox(root);
    assert.deepEqual(
      plan.readOnly,
      [".gitignore", "node_modules/pkg", "src/deep"].map((path) => join(root, path)),
    );
    await rawFolder(root, "z");
    await assert.rejects(
      () => planSandbox(root),
      /^CodeCommitError: the project root holds a file or folder whose name is not UTF-8: .*--sandbox off$/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
