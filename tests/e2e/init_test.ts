/**
 * `code-commit --init` end to end: the real tool as a subprocess, with its
 * production permissions, in real temporary git repositories of each kind.
 */
import assert from "node:assert/strict";
import { EXIT } from "../../lib/errors/errors.ts";
import { join } from "node:path";
/** What --init writes above its .gitignore lines, and where it puts the starter build (stated apart). */
const INIT_COMMENT = "# code-commit: API keys, query and rollup; run logs";
const STARTER_BUILD_FILE = "agent-config/starter-build.sh";
const FOLDERS_COMMENT = "# code-commit --init: dependencies and build output";
import { git, makeProject, type ProjectOptions, runGit } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";

/** A repository with nothing code-commit needs yet. */
const BARE: ProjectOptions = {
  gitignore: null,
  buildScript: null,
  query: null,
  rollup: null,
  keys: { gemini: null, openai: null },
};

/** Every file under `root` except `.git/`, with its content and mode, for comparing two states. */
async function state(root: string, prefix = ""): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for await (const entry of Deno.readDir(join(root, prefix))) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (path === ".git") continue;
    const info = await Deno.lstat(join(root, path));
    if (entry.isDirectory) {
      files.set(`${path}/`, (info.mode! & 0o777).toString(8));
      for (const [inner, value] of await state(root, path)) files.set(inner, value);
    } else {
      files.set(
        path,
        `${(info.mode! & 0o777).toString(8)} ${
          entry.isSymlink
            ? `-> ${await Deno.readLink(join(root, path))}`
            : await Deno.readTextFile(join(root, path))
        }`,
      );
    }
  }
  return files;
}

/**
 * Each kind of project, its marker files, the commands its starter build
 * runs, the folders --init adds to .gitignore, and the lock files its
 * .codecommitignore leaves out.
 */
const KINDS: [string, Record<string, string>, string[], string[], string[]][] = [
  [
    "npm",
    { "package.json": '{"name":"x","scripts":{"test":"node test.js"}}\n' },
    ["npm test"],
    ["node_modules/"],
    ["package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock"],
  ],
  ["deno", { "deno.json": "{}\n" }, ["deno test"], [], ["deno.lock"]],
  [
    "cargo",
    { "Cargo.toml": '[package]\nname = "x"\n' },
    ["cargo build", "cargo test"],
    ["/target/"],
    ["Cargo.lock"],
  ],
  ["go", { "go.mod": "module x\n" }, ["go build ./...", "go test ./..."], [], ["go.sum"]],
  [
    "python",
    { "pyproject.toml": '[project]\nname = "x"\n' },
    ["python3 -m pytest"],
    ["__pycache__/", ".venv/"],
    ["poetry.lock", "uv.lock", "Pipfile.lock", "pdm.lock"],
  ],
  [
    "npm without a test script",
    { "package.json": '{"name":"x"}\n' },
    [],
    ["node_modules/"],
    ["package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock"],
  ],
  ["nothing recognised", { "Makefile": "all:\n" }, [], [], []],
];

Deno.test("--init in a repository of each kind: .gitignore, agent-config/, an empty query, a fitted starter build", async () => {
  for (const [kind, files, commands, folders, locks] of KINDS) {
    await using project = await makeProject({ ...BARE, files });
    const run = await runTool(project.root, ["--init"]);
    assert.equal(run.code, 0, `${kind}: ${run.stderr}`);
    assert.equal(run.stderr, "", kind);
    assert.equal(
      await project.read(".gitignore"),
      `${INIT_COMMENT}\n/agent-config\n/logs\n` +
        (folders.length === 0 ? "" : `\n${FOLDERS_COMMENT}\n${folders.join("\n")}\n`),
      kind,
    );
    for (const folder of folders) {
      assert.match(
        run.stdout,
        new RegExp(`^\\.gitignore: added ${folder.replaceAll(".", "\\.")} \\(`, "m"),
      );
      // git agrees: the folder is ignored.
      const name = folder.replaceAll("/", "");
      assert.equal(
        (await runGit(project.root, ["check-ignore", "-q", "--no-index", `${name}/x`])).code,
        0,
        `${kind}: git ignores ${name}/`,
      );
    }
    const ignoreFile = await project.read(".codecommitignore");
    const ruleLines = ignoreFile.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
    assert.deepEqual(ruleLines, locks, kind);
    assert.match(run.stdout, /^\.codecommitignore: made; /m);
    if (locks.length > 0) {
      assert.match(run.stdout, new RegExp(`out of every prompt \\(git still tracks them\\)$`, "m"));
    }
    assert.equal(await project.read("agent-config/query.txt"), "");
    assert.equal(await project.exists("build.sh"), false, "code-commit never writes build.sh");
    const starter = await project.read(STARTER_BUILD_FILE);
    const info = await Deno.stat(join(project.root, STARTER_BUILD_FILE));
    assert.equal(info.mode! & 0o111, 0o111, `${kind}: executable`);
    const lines = starter.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
    if (commands.length > 0) {
      assert.deepEqual(lines.slice(2), commands, kind);
    } else {
      assert.match(starter, /put your project's build and test commands/, kind);
      assert.equal(lines.at(-1), "exit 1", kind);
    }
    assert.match(run.stdout, /^\.gitignore: made, with \/agent-config and \/logs$/m);
    assert.match(run.stdout, /^agent-config\/query\.txt: made \(empty\)$/m);
    assert.match(run.stdout, new RegExp(`mv ${STARTER_BUILD_FILE} build\\.sh`));
    // The next steps name where the keys and the query go, and --rollup or --build-context.
    assert.match(run.stdout, /^Next steps:$/m);
    assert.match(
      run.stdout,
      /^Optional: agent-config\/settings\.json can hold the model, .*see docs\/cli\.md in code-commit's own folder\. --init does not create it\.$/m,
    );
    assert.match(run.stdout, /agent-config\/gemini-key\.txt/);
    assert.match(run.stdout, /agent-config\/openai-key\.txt/);
    assert.match(run.stdout, /code-commit --rollup/);
    assert.match(run.stdout, /--build-context/);
    assert.match(
      run.stdout,
      /review the change with git status \(new files\) and git diff; code-commit --undo takes the run back/,
    );
    // git agrees: nothing code-commit keeps is shown to git.
    const status = await git(project.root, "status", "--porcelain", "--untracked-files=all");
    assert.equal(status, "?? .codecommitignore\n?? .gitignore\n", kind);
  }
});

Deno.test("--init twice changes nothing", async () => {
  await using project = await makeProject({
    ...BARE,
    files: { "package.json": '{"scripts":{"test":"true"}}\n' },
  });
  const first = await runTool(project.root, ["--init"]);
  assert.equal(first.code, 0, first.stderr);
  const before = await state(project.root);
  const second = await runTool(project.root, ["--init"]);
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(await state(project.root), before);
  assert.match(
    second.stdout,
    /^\.gitignore: kept \(it already ignores \/agent-config and \/logs\)$/m,
  );
  assert.match(second.stdout, /^agent-config\/: kept$/m);
  assert.match(second.stdout, /^agent-config\/query\.txt: kept$/m);
  assert.match(second.stdout, /agent-config\/starter-build\.sh is kept/);
});

Deno.test("--init over a user's own files keeps every one of them", async () => {
  await using project = await makeProject({
    ...BARE,
    gitignore: "# mine\nnode_modules/\n/logs/",
    buildScript: "#!/bin/sh\nmake test\n",
    query: "Add a --verbose flag.\n",
    keys: { gemini: "AIzaSyTEST-gemini-0123456789abcdefghijkXY", openai: null },
    files: { "Cargo.toml": "[package]\n" },
  });
  const run = await runTool(project.root, ["--init"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(
    await project.read(".gitignore"),
    `# mine\nnode_modules/\n/logs/\n\n${INIT_COMMENT}\n/agent-config\n\n${FOLDERS_COMMENT}\n/target/\n`,
    "the user's lines first, a final newline added, /logs not added twice",
  );
  assert.equal(await project.read("build.sh"), "#!/bin/sh\nmake test\n");
  assert.equal(await project.read("agent-config/query.txt"), "Add a --verbose flag.\n");
  assert.equal(
    await project.read("agent-config/gemini-key.txt"),
    "AIzaSyTEST-gemini-0123456789abcdefghijkXY\n",
  );
  assert.equal(await project.exists(STARTER_BUILD_FILE), false, "no starter beside a build.sh");
  assert.match(run.stdout, /^\.gitignore: added \/agent-config; your lines are kept$/m);
  assert.match(run.stdout, /^build\.sh: kept$/m);
  assert.match(run.stdout, /gemini-key\.txt.* \(done\)\.$/m);
  assert.match(run.stdout, /query\.txt \(done\)\.$/m);
  assert(!run.stdout.includes("AIzaSy"), "the key is never printed");
});

Deno.test("--init writes nothing through a symbolic link", async () => {
  await using outside = await makeProject({ ...BARE, git: false });
  await Deno.writeTextFile(join(outside.root, "theirs.txt"), "theirs\n");
  for (
    const [what, link, target, message] of [
      [".gitignore", ".gitignore", "theirs.txt", /\.gitignore is a symbolic link/],
      ["agent-config", "agent-config", ".", /agent-config is a symbolic link/],
    ] as const
  ) {
    await using project = await makeProject(BARE);
    await Deno.symlink(join(outside.root, target), join(project.root, link));
    const before = await state(outside.root);
    const run = await runTool(project.root, ["--init"]);
    assert.equal(run.code, EXIT.setup, what);
    assert.match(run.stderr, message, what);
    assert.deepEqual(await state(outside.root), before, `${what}: nothing written outside`);
  }
});

Deno.test("--init outside a git repository says git is needed, from a subfolder says where to run", async () => {
  await using plain = await makeProject({ ...BARE, git: false });
  const run = await runTool(plain.root, ["--init"]);
  assert.equal(run.code, EXIT.setup);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /is not a git repository: code-commit needs git/);
  assert.match(run.stderr, /run git init here first/);
  assert.deepEqual([...(await state(plain.root)).keys()], [], "nothing written");

  await using project = await makeProject(BARE);
  await Deno.mkdir(join(project.root, "packages/app"), { recursive: true });
  const sub = await runTool(join(project.root, "packages/app"), ["--init"]);
  assert.equal(sub.code, EXIT.setup);
  assert.equal(
    sub.stderr,
    `code-commit: ${project.root}/packages/app is inside the git repository ${project.root}, ` +
      `not at its root: run code-commit from ${project.root}\n`,
  );
  assert.equal(await project.exists("packages/app/.gitignore"), false);
  assert.equal(await project.exists("packages/app/agent-config"), false);
});

Deno.test("--init in a worktree (where .git is a file) works", async () => {
  await using project = await makeProject({ ...BARE, files: { "go.mod": "module x\n" } });
  const worktree = `${project.root}-worktree`;
  await git(project.root, "worktree", "add", "-q", worktree);
  try {
    const run = await runTool(worktree, ["--init"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(await Deno.readTextFile(join(worktree, STARTER_BUILD_FILE)), /go test \.\/\.\.\./);
  } finally {
    await Deno.remove(worktree, { recursive: true });
  }
});

Deno.test("--init reads a key and a query behind a symbolic link as a run does: the steps are done", async () => {
  await using outside = await makeProject({ ...BARE, git: false });
  await Deno.writeTextFile(
    join(outside.root, "gemini.txt"),
    "AIzaSyTEST-gemini-0123456789abcdefghijkXY\n",
  );
  await Deno.writeTextFile(join(outside.root, "query.txt"), "Add a --verbose flag.\n");
  await using project = await makeProject(BARE);
  await Deno.mkdir(join(project.root, "agent-config"));
  await Deno.symlink(
    join(outside.root, "gemini.txt"),
    join(project.root, "agent-config/gemini-key.txt"),
  );
  await Deno.symlink(join(outside.root, "query.txt"), join(project.root, "agent-config/query.txt"));
  const run = await runTool(project.root, ["--init"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /gemini-key\.txt.* \(done\)\.$/m);
  assert.match(run.stdout, /query\.txt \(done\)\.$/m);
  assert(!run.stdout.includes("AIzaSy"), "the key is never printed");
});

Deno.test("--init refuses a fifo as .gitignore at once, naming it, and never opens it", async () => {
  await using project = await makeProject(BARE);
  const fifo = new Deno.Command("mkfifo", { args: [join(project.root, ".gitignore")] });
  assert.equal((await fifo.output()).code, 0);
  const run = await runTool(project.root, ["--init"]);
  assert.equal(run.code, EXIT.setup);
  assert.match(
    run.stderr,
    /^code-commit: \.gitignore is a fifo \(named pipe\); code-commit reads /m,
  );
});

Deno.test("--init after a `/*` rule adds !/build.sh and !/.codecommitignore: the moved starter is not ignored", async () => {
  await using project = await makeProject({
    ...BARE,
    gitignore: "/*\n!/.gitignore\n!/package.json\n!/lib/\n",
    files: { "package.json": '{"name":"x","scripts":{"test":"node test.js"}}\n', "lib/a.js": "" },
  });
  const run = await runTool(project.root, ["--init"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stdout,
    /^\.gitignore: added !\/build\.sh \(the rule `\/\*` in \.gitignore would hide build\.sh from git\)$/m,
  );
  assert.match(run.stdout, /^\.gitignore: added !\/\.codecommitignore \(/m);
  assert.doesNotMatch(run.stdout, /node_modules/, "`/*` already ignores node_modules");
  await Deno.rename(join(project.root, STARTER_BUILD_FILE), join(project.root, "build.sh"));
  for (const name of ["build.sh", ".codecommitignore"]) {
    const check = await runGit(project.root, ["check-ignore", "-q", name]);
    assert.equal(check.code, 1, `git does not ignore ${name}`);
  }
  for (const path of ["agent-config/query.txt", "logs/x", "node_modules/x/index.js"]) {
    assert.equal((await runGit(project.root, ["check-ignore", "-q", path])).code, 0, path);
  }
  const second = await runTool(project.root, ["--init"]);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /^\.gitignore: kept /m, "a second --init adds nothing");
});

Deno.test("--init in a package.json project without .gitignore ignores node_modules/ before npm install", async () => {
  await using project = await makeProject({
    ...BARE,
    files: { "package.json": '{"name":"minimist-like"}\n', "index.js": "" },
  });
  const run = await runTool(project.root, ["--init"]);
  assert.equal(run.code, 0, run.stderr);
  await project.write("node_modules/dep/index.js", "module.exports = 1;\n");
  await project.write("package-lock.json", "{}\n");
  const status = await git(project.root, "status", "--porcelain", "--untracked-files=all");
  assert.doesNotMatch(status, /node_modules/);
  const rollup = await runTool(project.root, ["--rollup"]);
  assert.equal(rollup.code, 0, rollup.stderr);
  const text = await project.read("agent-config/codeRollup.txt");
  assert.doesNotMatch(text, /^--- (node_modules\/dep\/index\.js|package-lock\.json) ---$/m);
  assert.match(text, /^--- index\.js ---$/m);
});

/** Whether pytest runs here. */
async function hasPytest(): Promise<boolean> {
  try {
    const out = await new Deno.Command("python3", { args: ["-m", "pytest", "--version"] }).output();
    return out.success;
  } catch {
    return false;
  }
}

Deno.test("--init's Python starter runs the tests of a src-layout project", async (t) => {
  if (!await hasPytest()) {
    if (Deno.env.get("CI")) throw new Error("python3 -m pytest is needed for this test in CI");
    console.log("skipped: python3 -m pytest is not available here");
    return;
  }
  await using project = await makeProject({
    ...BARE,
    files: {
      "pyproject.toml": '[project]\nname = "demo"\nversion = "0.1"\n',
      "src/demo/__init__.py": "def answer():\n    return 42\n",
      "tests/test_demo.py":
        "from demo import answer\n\ndef test_answer():\n    assert answer() == 42\n",
    },
  });
  const run = await runTool(project.root, ["--init"]);
  assert.equal(run.code, 0, run.stderr);
  const starter = await project.read(STARTER_BUILD_FILE);
  assert.match(starter, /^PYTHONPATH="src\$\{PYTHONPATH:\+:\$PYTHONPATH\}" python3 -m pytest$/m);
  await Deno.rename(join(project.root, STARTER_BUILD_FILE), join(project.root, "build.sh"));
  const build = await new Deno.Command("./build.sh", {
    cwd: project.root,
    env: { PYTHONDONTWRITEBYTECODE: "1" },
  }).output();
  const output = new TextDecoder().decode(build.stdout) + new TextDecoder().decode(build.stderr);
  assert.equal(build.code, 0, output);
  assert.match(output, /1 passed/);
  await t.step("the __pycache__/ pytest may leave is ignored", async () => {
    assert.equal(
      (await runGit(project.root, ["check-ignore", "-q", "tests/__pycache__/x.pyc"])).code,
      0,
    );
  });
});

Deno.test("--init with node_modules/ committed already says how to untrack it", async () => {
  await using project = await makeProject({
    ...BARE,
    files: { "package.json": '{"name":"x"}\n', "node_modules/dep/index.js": "1;\n" },
  });
  const run = await runTool(project.root, ["--init"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stdout,
    /^\.gitignore: added node_modules\/ \(installed npm packages\), which git would otherwise track; git tracks files in node_modules\/ already: untrack them with git rm -r --cached node_modules, then commit$/m,
  );
  await git(project.root, "rm", "-rq", "--cached", "node_modules");
  const status = await git(project.root, "status", "--porcelain", "--untracked-files=all");
  assert.doesNotMatch(status, /^\?\? node_modules/m, "ignored once untracked");
});
