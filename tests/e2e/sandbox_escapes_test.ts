/**
 * Ways out of a contained build, each shown closed with the real tool, its
 * production permissions and a real `build.sh` in a real project: keys
 * reached through links, helper programs planted on `PATH`, files
 * hard-linked out of the project (in folders whose names are not UTF-8
 * too), new or renamed protected entries, and a `build.sh` that is a link.
 * What of the machine a build can reach (sockets, IPC, file descriptors) is
 * tested in `sandbox_host_test.ts`. Where the probe could prove nothing by
 * itself, it is also seen open with `--sandbox off`.
 */
import assert from "node:assert/strict";
import { EXIT } from "../../lib/errors/errors.ts";
import { join } from "node:path";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import { GEMINI_KEY, git, makeProject, type Project } from "../support/project.ts";
import { runTool, type RunToolOptions, type ToolRun } from "../support/run_tool.ts";
import { bwrapTest } from "../support/sandbox.ts";

/** A folder outside the project and outside /tmp (a contained build has a /tmp of its own). */
async function outsideFolder(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "code-commit-outside-" });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true });
    },
  };
}

/** Runs the tool once in `project` with `args`, the fake server answering `replies`. */
async function runOnce(
  project: Project,
  args: string[],
  options: Omit<RunToolOptions, "server"> & { replies?: string[] } = {},
): Promise<{ run: ToolRun; requests: number; buildLog: string }> {
  const replies = options.replies ?? ["Nothing to change."];
  const server = await startFakeLlmServer(replies.map((reply) => geminiReply(reply)));
  try {
    const run = await runTool(project.root, args, { ...options, server });
    const folder = (await project.logRuns()).at(-1);
    const buildLog = folder === undefined
      ? ""
      : await project.read(`logs/${folder}/1-initial-query-build.txt`).catch(() => "");
    await assertNoKeyLeak(project.root, [run], server);
    return { run, requests: server.requests.length, buildLog };
  } finally {
    await server.close();
  }
}

const REVERSED_KEY = [...GEMINI_KEY].reverse().join("");

// 1. Keys reached through links.

bwrapTest("a key file that is a link out of the project is hidden where it leads", async () => {
  await using outside = await outsideFolder();
  const target = join(outside.path, "gemini");
  await Deno.writeTextFile(target, `${GEMINI_KEY}\n`);
  await using project = await makeProject({
    keys: { gemini: null },
    buildScript: `#!/bin/sh
if [ -s agent-config/gemini-key.txt ]; then echo "through the link: READ"; else echo "through the link: hidden"; fi
if [ -s "$KEY_TARGET" ]; then echo "where it leads: READ"; rev "$KEY_TARGET"; else echo "where it leads: hidden"; fi
exit 0
`,
  });
  await Deno.symlink(target, join(project.root, "agent-config/gemini-key.txt"));
  const { run, buildLog } = await runOnce(project, ["--sandbox", "on"], {
    env: { KEY_TARGET: target },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(buildLog, /^through the link: hidden$/m);
  assert.match(buildLog, /^where it leads: hidden$/m);
  assert(!buildLog.includes(REVERSED_KEY));
});

bwrapTest("agent-config/ itself a link out of the project: hidden where it leads", async () => {
  await using outside = await outsideFolder();
  await using project = await makeProject({
    buildScript: `#!/bin/sh
echo "entries: $(ls -A agent-config | wc -l)"
if [ -s "$CONFIG/gemini-key.txt" ]; then echo "where it leads: READ"; rev "$CONFIG/gemini-key.txt"; else echo "where it leads: hidden"; fi
exit 0
`,
  });
  const config = join(outside.path, "config");
  await Deno.rename(join(project.root, "agent-config"), config);
  await Deno.symlink(config, join(project.root, "agent-config"));
  const { run, buildLog } = await runOnce(project, ["--sandbox", "on"], {
    env: { CONFIG: config },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(buildLog, /^entries: 0$/m);
  assert.match(buildLog, /^where it leads: hidden$/m);
  assert(!buildLog.includes(REVERSED_KEY));
});

bwrapTest(
  "a link in agent-config/ that cannot be resolved: no contained build at all",
  async () => {
    await using project = await makeProject();
    await Deno.symlink("loop", join(project.root, "agent-config/loop"));
    for (const args of [["--sandbox", "on"], []]) {
      const { run, requests } = await runOnce(project, args);
      assert.equal(run.code, EXIT.setup, run.stderr);
      assert.equal(requests, 0, "refused before any LLM call");
      const lines = run.stderr.trim().split("\n");
      assert.equal(lines.length, 1, run.stderr);
      assert.match(
        lines[0],
        /agent-config\/loop must be hidden from the build, but code-commit cannot/,
      );
      assert.match(lines[0], /keep the keys .* inside the project, or run with --sandbox off/);
    }
    const off = await runOnce(project, ["--sandbox", "off"]);
    assert.equal(off.run.code, 0, off.run.stderr);
  },
);

// 2. Helper programs planted on PATH.

bwrapTest(
  "kill, bwrap and git are never taken from PATH, even where a build planted them",
  async () => {
    await using outside = await outsideFolder();
    const plant = (name: string) =>
      `cat > .venv/bin/${name} <<'EOF'\n#!/bin/sh\necho ran >> "$MARKERS/${name}"\nexec /usr/bin/${name} "$@"\nEOF\nchmod +x .venv/bin/${name}\n`;
    await using project = await makeProject({
      gitignore: "/agent-config\n/logs\n.venv/\n",
      files: { "sub/notes.txt": "notes\n" },
      buildScript: `#!/bin/sh\nmkdir -p .venv/bin\n${
        ["kill", "bwrap", "git"].map(plant).join("")
      }echo planted\nexit 0\n`,
    });
    await Deno.mkdir(join(project.root, ".venv/bin"), { recursive: true });
    const env = {
      PATH: `${project.root}/.venv/bin:${Deno.env.get("PATH")}`,
      VIRTUAL_ENV: `${project.root}/.venv`,
      MARKERS: outside.path,
    };
    for (const attempt of [1, 2]) {
      const { run, buildLog } = await runOnce(project, ["--sandbox", "on"], { env });
      assert.equal(run.code, 0, `run ${attempt}: ${run.stderr}`);
      assert.match(run.stderr, /contained by bubblewrap/);
      assert.match(buildLog, /^planted$/m);
    }
    assert.equal(await Deno.stat(join(project.root, ".venv/bin/kill")).then((i) => i.isFile), true);
    // Started from a subfolder, the tool asks git where the repository is: not the planted git.
    const server = await startFakeLlmServer([]);
    try {
      const run = await runTool(join(project.root, "sub"), [], { server, env });
      assert.equal(run.code, EXIT.setup, run.stderr);
      assert.match(run.stderr, /is inside the git repository/);
    } finally {
      await server.close();
    }
    assert.deepEqual(
      await Array.fromAsync(Deno.readDir(outside.path)),
      [],
      "a planted program ran",
    );
  },
);

// 3. Files hard-linked out of the project.

bwrapTest(
  "a file hard-linked out of the project (a package cache) is read-only to a contained build",
  async () => {
    await using outside = await outsideFolder();
    const cached = join(outside.path, "__init__.py");
    await Deno.writeTextFile(cached, "# pristine package code\n");
    await using project = await makeProject({
      gitignore: "/agent-config\n/logs\n.venv/\n",
      buildScript: `#!/bin/sh
if (echo 'planted' >> .venv/lib/requests/__init__.py) 2>/dev/null; then echo appended; else echo read-only; fi
echo built > .venv/lib/requests/new.py && echo "the rest writable"
exit 0
`,
    });
    await Deno.mkdir(join(project.root, ".venv/lib/requests"), { recursive: true });
    await Deno.link(cached, join(project.root, ".venv/lib/requests/__init__.py"));
    const { run, buildLog } = await runOnce(project, ["--sandbox", "on"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(buildLog, /^read-only$/m);
    assert.match(buildLog, /^the rest writable$/m);
    assert.equal(await Deno.readTextFile(cached), "# pristine package code\n");
  },
);

/**
 * Makes the folder `folder/<0xff 0xfe>` (a name that is not UTF-8) and, in
 * it, `name` as a hard link to `target` (python3: Deno has no byte paths).
 */
async function linkInRawFolder(folder: string, name: string, target: string): Promise<void> {
  const made = await new Deno.Command("python3", {
    args: [
      "-c",
      "import os, sys\n" +
      "d = os.fsencode(sys.argv[1]) + b'/\\xff\\xfe'\n" +
      "os.makedirs(d, exist_ok=True)\n" +
      "os.link(sys.argv[3], d + b'/' + os.fsencode(sys.argv[2]))",
      folder,
      name,
      target,
    ],
    stderr: "piped",
  }).output();
  assert(made.success, new TextDecoder().decode(made.stderr));
}

bwrapTest(
  "a hard link out of the project in a folder whose name is not UTF-8 is read-only",
  async () => {
    await using outside = await outsideFolder();
    const cached = join(outside.path, "__init__.py");
    await Deno.writeTextFile(cached, "# pristine package code\n");
    const tracked = join(outside.path, "shared.txt");
    await Deno.writeTextFile(tracked, "pristine\n");
    await using project = await makeProject({
      gitignore: "/agent-config\n/logs\n.venv/\n",
      buildScript: `#!/bin/sh
for f in .venv/lib/*/__init__.py src/*/shared.txt; do
  if (echo 'planted' >> "$f") 2>/dev/null; then echo "$f appended"; else echo "$f read-only"; fi
done
echo built > .venv/new.py && echo "the rest writable"
exit 0
`,
      files: { "src/main.txt": "main\n" },
    });
    // One in an ignored folder, one in a folder git reads.
    await linkInRawFolder(join(project.root, ".venv/lib"), "__init__.py", cached);
    await linkInRawFolder(join(project.root, "src"), "shared.txt", tracked);
    await git(project.root, "add", "-A");
    await git(project.root, "commit", "-q", "-m", "a folder whose name is not UTF-8");
    const { run, buildLog } = await runOnce(project, ["--sandbox", "on"]);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(buildLog, /appended/);
    assert.equal((buildLog.match(/ read-only$/gm) ?? []).length, 2, buildLog);
    assert.match(buildLog, /^the rest writable$/m);
    assert.equal(await Deno.readTextFile(cached), "# pristine package code\n");
    assert.equal(await Deno.readTextFile(tracked), "pristine\n");
  },
);

bwrapTest(
  "a name that is not UTF-8 in the project root: no contained build, naming the fix",
  async () => {
    await using outside = await outsideFolder();
    const target = join(outside.path, "shared.txt");
    await Deno.writeTextFile(target, "pristine\n");
    await using project = await makeProject({
      buildScript: "#!/bin/sh\necho planted >> */shared.txt\nexit 0\n",
    });
    await linkInRawFolder(project.root, "shared.txt", target);
    const { run } = await runOnce(project, ["--sandbox", "on"]);
    assert.equal(run.code, EXIT.setup, run.stderr);
    assert.match(run.stderr, /the project root holds a file or folder whose name is not UTF-8/);
    assert.match(run.stderr, /--sandbox off/);
    assert.equal(await Deno.readTextFile(target), "pristine\n");
  },
);

bwrapTest(
  "more hard links out of the project than the sandbox can bind: refused, naming the fix",
  async () => {
    await using outside = await outsideFolder();
    await using project = await makeProject({ gitignore: "/agent-config\n/logs\nnode_modules/\n" });
    await Deno.mkdir(join(project.root, "node_modules/.pnpm/pkg"), { recursive: true });
    for (let i = 0; i < 101; i++) {
      await Deno.writeTextFile(join(outside.path, `f${i}.js`), "x\n");
      await Deno.link(
        join(outside.path, `f${i}.js`),
        join(project.root, `node_modules/.pnpm/pkg/f${i}.js`),
      );
    }
    const { run, requests } = await runOnce(project, ["--sandbox", "on"]);
    assert.equal(run.code, EXIT.setup, run.stderr);
    assert.equal(requests, 0, "refused before any LLM call");
    assert.match(
      run.stderr,
      /101 files in the project \(node_modules\/\.pnpm\/pkg\/f\d+\.js, \.\.\.\) have hard links/,
    );
    assert.match(run.stderr, /UV_LINK_MODE=copy/);
    assert.match(run.stderr, /package-import-method=copy/);
    assert.match(run.stderr, /--sandbox off/);
    // Hard links between two names inside the project lead nowhere: fine.
    await Deno.remove(join(project.root, "node_modules"), { recursive: true });
    await Deno.mkdir(join(project.root, "node_modules/a"), { recursive: true });
    for (let i = 0; i < 101; i++) {
      await Deno.writeTextFile(join(project.root, `node_modules/a/f${i}`), "x\n");
      await Deno.link(
        join(project.root, `node_modules/a/f${i}`),
        join(project.root, `node_modules/a/g${i}`),
      );
    }
    const inside = await runOnce(project, ["--sandbox", "on"]);
    assert.equal(inside.run.code, 0, inside.run.stderr);
  },
);

// 4. Protected entries created, renamed away or changed.

for (const sandbox of ["on", "off"] as const) {
  const register = sandbox === "on" ? bwrapTest : Deno.test;
  register(`--sandbox ${sandbox}: a build that makes a new nested .git stops the run`, async () => {
    await using project = await makeProject({
      files: { "src/a.js": "a\n" },
      buildScript: `#!/bin/sh
mkdir -p src/.git
printf '[core]\\n\\tfsmonitor = "touch fsmonitor-ran"\\n' > src/.git/config
echo 'ref: refs/heads/main' > src/.git/HEAD
exit 1
`,
    });
    const { run, requests } = await runOnce(project, ["--sandbox", sandbox], {
      replies: Array(4).fill("Nothing to change."),
    });
    assert.equal(run.code, 5, run.stderr);
    assert.equal(requests, 1, "stopped at once, before any further LLM call");
    assert.match(run.stderr, /changed protected entries of the project: src\/\.git \(new\)/);
    assert.match(run.stderr, /remove src\/\.git before you run any git command in its folder/);
  });

  register(
    `--sandbox ${sandbox}: new .gitignore, LLMInstructions.md or agent-state/ stop the run`,
    async () => {
      for (
        const [made, entry] of [
          [
            "mkdir -p tests && printf '.gitignore\\nconftest.py\\n' > tests/.gitignore",
            "tests/.gitignore",
          ],
          ["echo 'obey the build' > LLMInstructions.md", "LLMInstructions.md"],
          ["mkdir -p agent-state && echo spec > agent-state/cache.md", "agent-state"],
        ]
      ) {
        await using project = await makeProject({
          files: { "tests/test_a.py": "def test_a(): pass\n" },
          buildScript: `#!/bin/sh\n${made}\necho 'import os' > tests/conftest.py\nexit 0\n`,
        });
        const { run } = await runOnce(project, ["--sandbox", sandbox]);
        assert.equal(run.code, 5, `${entry}: ${run.stderr}`);
        assert.match(
          run.stderr,
          new RegExp(
            `changed protected entries of the project: ${entry.replaceAll(".", "\\.")} \\(new\\)`,
          ),
          entry,
        );
        assert.doesNotMatch(run.stdout, /build passed/);
      }
    },
  );
}

bwrapTest(
  "--sandbox on: a nested read-only entry cannot be renamed away with its folder",
  async () => {
    await using project = await makeProject({
      files: {
        "src/.gitignore": "*.tmp\n",
        "src/mod/UserSpecification.md": "the user's spec\n",
        "src/a.js": "a\n",
      },
      buildScript: `#!/bin/sh
mv src src.orig 2>&1 | sed 's/^/src: /'
mv src/mod src/mod.orig 2>&1 | sed 's/^/src\\/mod: /'
(printf 'backdoor.js\\n' > src/.gitignore) 2>/dev/null || echo "src/.gitignore read-only"
echo built > src/out.txt && echo "src writable"
exit 0
`,
    });
    const { run, buildLog } = await runOnce(project, ["--sandbox", "on"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(buildLog, /^src: .*(busy|Device or resource busy)/im);
    assert.match(buildLog, /^src\/mod: .*(busy|Device or resource busy)/im);
    assert.match(buildLog, /^src\/\.gitignore read-only$/m);
    assert.match(buildLog, /^src writable$/m);
    assert.equal(await project.read("src/.gitignore"), "*.tmp\n");
    assert.equal(await project.read("src/mod/UserSpecification.md"), "the user's spec\n");
  },
);

Deno.test("--sandbox off: a nested .gitignore replaced through a renamed folder stops the run", async () => {
  await using project = await makeProject({
    files: { "src/.gitignore": "*.tmp\n", "src/a.js": "a\n" },
    buildScript: `#!/bin/sh
mv src src.orig && mkdir src && cp src.orig/a.js src/ && printf 'backdoor.js\\n' > src/.gitignore && rm -rf src.orig
exit 0
`,
  });
  const { run } = await runOnce(project, ["--sandbox", "off"]);
  assert.equal(run.code, 5, run.stderr);
  assert.match(
    run.stderr,
    /changed protected entries of the project: src\/\.gitignore \(changed\)/,
  );
});

// 5. build.sh that is a link, or made one.

Deno.test("--sandbox off: a build that swaps build.sh for a link to an identical copy stops the run", async () => {
  await using project = await makeProject({
    buildScript: `#!/bin/sh
if [ ! -L build.sh ]; then cp build.sh tools-build.sh; ln -sf tools-build.sh build.sh.new && mv build.sh.new build.sh; fi
exit 1
`,
  });
  const { run, requests } = await runOnce(project, ["--sandbox", "off"], {
    replies: ["Nothing.", "^^^tools-build.sh\n#!/bin/sh\nexit 0\n^^^end\n"],
  });
  assert.equal(run.code, 5, run.stderr);
  assert.equal(requests, 1);
  assert.match(
    run.stderr,
    /^.*build\.sh changed while \.\/build\.sh ran: it is now a link to tools-build\.sh/m,
  );
});

bwrapTest(
  "--sandbox on: build.sh a link, a reply that writes where it leads never builds",
  async () => {
    await using project = await makeProject({
      buildScript: null,
      files: { "ci/build.sh": "#!/bin/sh\necho failing\nexit 1\n" },
    });
    await Deno.chmod(join(project.root, "ci/build.sh"), 0o755);
    await Deno.symlink("ci/build.sh", join(project.root, "build.sh"));
    await git(project.root, "add", "-A");
    await git(project.root, "commit", "-qm", "build.sh a link");
    const always = "^^^ci/build.sh\n#!/bin/sh\necho always passes\nexit 0\n^^^end\n";
    const server = await startFakeLlmServer(Array(4).fill(geminiReply(always)));
    try {
      const run = await runTool(project.root, ["--sandbox", "on"], { server });
      assert.equal(run.code, 4, run.stderr);
      assert.doesNotMatch(run.stdout, /build passed/);
      for (const folder of await project.logRuns()) {
        for await (const entry of Deno.readDir(join(project.root, "logs", folder))) {
          if (!entry.name.endsWith("-build.txt")) continue;
          const log = await project.read(`logs/${folder}/${entry.name}`);
          assert.doesNotMatch(log, /always passes/, entry.name);
        }
      }
      await assertNoKeyLeak(project.root, [run], server);
    } finally {
      await server.close();
    }
  },
);

Deno.test("a build.sh larger than 1 MiB is refused before any LLM call", async () => {
  await using project = await makeProject({
    buildScript: `#!/bin/sh\nexit 0\n${"#".repeat(1_100_000)}\n`,
  });
  for (const args of [["--sandbox", "off"], ["--sandbox", "auto"]]) {
    const { run, requests } = await runOnce(project, args);
    assert.equal(run.code, EXIT.setup, run.stderr);
    assert.equal(requests, 0);
    assert.match(run.stderr, /build\.sh is 1\.0 MiB, more than the 1 MiB/);
  }
});
