/**
 * Contained builds end to end: the real tool runs a real `build.sh` in a
 * real temporary project, and the build probes what it can do — read the
 * keys, write outside the project, plant a git hook, write `/tmp`, leave a
 * `setsid` daemon behind, reach a loopback server of the test. Each probe is
 * seen open with `--sandbox off` (so the probes prove something) and blocked
 * with `--sandbox on`; what happened is checked on the host, not only
 * trusted from the probe's own report.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { geminiReply, geminiText, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { LAST_RUN_FILE } from "../../lib/cli/last_run.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import { stopChild, stopPid } from "../support/child.ts";
import { git, listFiles, makeProject, type Project, STATUS_BUILD } from "../support/project.ts";
import { runTool, type ToolRun } from "../support/run_tool.ts";
import { bwrapTest, noBwrapTest, withSwappedProgram } from "../support/sandbox.ts";
import { fixtureFiles } from "../workflows/auto_workflow/helpers.ts";

/** The probes, each reporting `NAME open` or `NAME blocked` in probe-result.txt. */
const PROBE_BUILD = `#!/usr/bin/env bash
out=probe-result.txt
: > "$out"
report() { if [ "$2" = 0 ]; then echo "$1 open" >> "$out"; else echo "$1 blocked" >> "$out"; fi; }
umount agent-config 2>/dev/null
cat agent-config/gemini-key.txt > /dev/null 2>&1; report read-gemini-key $?
cat agent-config/openai-key.txt > /dev/null 2>&1; report read-openai-key $?
echo escaped 2>/dev/null > "$PROBE_OUTSIDE/escaped.txt"; report write-outside $?
printf '#!/bin/sh\\necho hooked\\n' 2>/dev/null > .git/hooks/post-commit; report git-hook $?
echo tmp 2>/dev/null > "$PROBE_TMP"; report write-tmp $?
setsid sleep "$PROBE_SLEEP" </dev/null >/dev/null 2>&1 &
daemon=$!
# Wait until the daemon has left the build's session, so the end of the build races nothing.
for _ in $(seq 200); do
  read -r -a stat < "/proc/$daemon/stat" 2>/dev/null || break
  [ "\${stat[5]}" = "$daemon" ] && break
  sleep 0.02
done
(exec 3<>"/dev/tcp/127.0.0.1/$PROBE_PORT") 2>/dev/null; report loopback $?
echo "the probes ran"
exit 0
`;

const PROBES = [
  "read-gemini-key",
  "read-openai-key",
  "write-outside",
  "git-hook",
  "write-tmp",
  "loopback",
] as const;

/** What a probe run showed, from the probe's report and from the host. */
interface ProbeRun {
  readonly run: ToolRun;
  readonly project: Project;
  /** Each probe's own report. */
  readonly reported: ReadonlyMap<string, "open" | "blocked">;
  /** Seen on the host after the run. */
  readonly host: {
    readonly outsideWritten: boolean;
    readonly hookWritten: boolean;
    readonly tmpWritten: boolean;
    readonly daemonAlive: boolean;
    readonly loopbackConnections: number;
  };
  /** The build log. */
  readonly buildLog: string;
}

/** PIDs of the processes running `sleep <marker>` (Deno reads /proc only with --allow-all). */
async function sleepers(marker: string): Promise<number[]> {
  const output = await new Deno.Command("pgrep", {
    args: ["-x", "-f", `sleep ${marker}`],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(output.stdout).split("\n").filter((line) => /^\d+$/.test(line))
    .map(Number);
}

/** Waits until no `sleep <marker>` is left, up to `ms`; returns whether none is. */
async function allGone(marker: string, ms = 5_000): Promise<boolean> {
  const until = Date.now() + ms;
  while ((await sleepers(marker)).length > 0) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** A loopback TCP server that counts the connections it accepts. */
function loopbackServer(): { port: number; connections: () => number } & Disposable {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let connections = 0;
  (async () => {
    try {
      for await (const conn of listener) {
        connections++;
        conn.close();
      }
    } catch {
      // Closed.
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    connections: () => connections,
    [Symbol.dispose]: () => listener.close(),
  };
}

/** Runs the tool with `args` in a project whose build is {@link PROBE_BUILD}, then `check`s. */
async function probe(args: string[], check: (result: ProbeRun) => void): Promise<void> {
  await using project = await makeProject({ buildScript: PROBE_BUILD });
  const outside = await Deno.makeTempDir({ prefix: "code-commit-outside-" });
  const tmpFile = join("/tmp", `code-commit-probe-${crypto.randomUUID()}`);
  const marker = `${7000 + Math.floor(Math.random() * 1000)}.${Date.now() % 1_000_000}`;
  using loopback = loopbackServer();
  const server = await startFakeLlmServer([geminiReply("Nothing to change.")]);
  try {
    const run = await runTool(project.root, args, {
      server,
      env: {
        PROBE_OUTSIDE: outside,
        PROBE_TMP: tmpFile,
        PROBE_SLEEP: marker,
        PROBE_PORT: String(loopback.port),
      },
    });
    const reported = new Map<string, "open" | "blocked">();
    const result = await project.read("probe-result.txt").catch(() => "");
    for (const line of result.split("\n")) {
      const [name, state] = line.split(" ");
      if (state === "open" || state === "blocked") reported.set(name, state);
    }
    const [folder] = await project.logRuns();
    // Unconfined, the daemon is expected to live on: look once. Contained, give it time to go.
    const unconfined = args.join(" ").includes("--sandbox off");
    const daemonAlive = !(await allGone(marker, unconfined ? 0 : 5_000));
    check({
      run,
      project,
      reported,
      host: {
        outsideWritten: await exists(join(outside, "escaped.txt")),
        hookWritten: await exists(join(project.root, ".git/hooks/post-commit")),
        tmpWritten: await exists(tmpFile),
        daemonAlive,
        loopbackConnections: loopback.connections(),
      },
      buildLog: await project.read(`logs/${folder}/1-initial-query-build.txt`),
    });
    assert((await assertNoKeyLeak(project.root, [run], server)) > 0);
  } finally {
    for (const pid of await sleepers(marker)) stopPid(pid);
    await server.close();
    await Deno.remove(outside, { recursive: true });
    await Deno.remove(tmpFile).catch(() => {});
  }
}

Deno.test("--sandbox off: every probe is open (the probes work), and even a setsid daemon is ended with the run", async () => {
  await probe(["--sandbox", "off"], ({ run, reported, host, buildLog }) => {
    assert.equal(run.code, 0, run.stderr);
    for (const name of PROBES) assert.equal(reported.get(name), "open", name);
    assert.deepEqual(host, {
      outsideWritten: true,
      hookWritten: true,
      tmpWritten: true,
      daemonAlive: false,
      loopbackConnections: 1,
    });
    assert.match(run.stderr, /running \.\/build\.sh \(not contained: --sandbox off\)/);
    assert.match(buildLog, /^\$ \.\/build\.sh\n\[not contained: --sandbox off\]\n/);
  });
});

bwrapTest(
  "--sandbox on: keys, writes outside, git hooks, /tmp and daemons are blocked; loopback is open",
  async () => {
    await probe(["--sandbox", "on"], ({ run, reported, host, buildLog }) => {
      assert.equal(run.code, 0, run.stderr);
      // /tmp is writable inside, but private: nothing lands in the machine's /tmp (tmpWritten).
      for (const name of PROBES) {
        const expected = name === "loopback" || name === "write-tmp" ? "open" : "blocked";
        assert.equal(reported.get(name), expected, name);
      }
      assert.deepEqual(host, {
        outsideWritten: false,
        hookWritten: false,
        tmpWritten: false,
        daemonAlive: false,
        loopbackConnections: 1,
      });
      assert.match(run.stderr, /running \.\/build\.sh \(contained by bubblewrap, network on\)/);
      assert.match(buildLog, /^\$ \.\/build\.sh\n\[contained by bubblewrap, network on\]\n/);
      // The build passed, and what it wrote inside the project landed.
      assert.match(run.stdout, /build passed after 1 attempt/);
      assert.match(buildLog, /the probes ran/);
    });
  },
);

bwrapTest("--build-network off: not even the machine's loopback is reachable", async () => {
  await probe(["--build-network", "off"], ({ run, reported, host, buildLog }) => {
    assert.equal(run.code, 0, run.stderr);
    assert.equal(reported.get("loopback"), "blocked");
    assert.equal(host.loopbackConnections, 0);
    assert.equal(reported.get("read-gemini-key"), "blocked");
    assert.match(buildLog, /^\$ \.\/build\.sh\n\[contained by bubblewrap, no network\]\n/);
  });
});

bwrapTest(
  "the default (--sandbox auto) contains the build where bubblewrap works, without a warning",
  async () => {
    await probe([], ({ run, reported, host }) => {
      assert.equal(run.code, 0, run.stderr);
      assert.equal(reported.get("read-openai-key"), "blocked");
      assert.equal(host.daemonAlive, false);
      assert.doesNotMatch(run.stderr, /warning/i);
      assert.match(run.stderr, /contained by bubblewrap, network on/);
    });
  },
);

bwrapTest(
  "a contained build that passes still passes after a repair, its writes landed",
  async () => {
    const build = `${STATUS_BUILD.replace("exit 0\n", "echo built > out.txt\nexit 0\n")}`;
    await using project = await makeProject({
      buildScript: build,
      files: { "src/status.txt": "broken\n", "src/.gitignore": "*.tmp\n", "Cargo.lock": "" },
    });
    const server = await startFakeLlmServer([
      geminiReply("^^^src/status.txt\nstill broken\n^^^end\n"),
      geminiReply("^^^src/status.txt\nok\n^^^end\n"),
    ]);
    try {
      const run = await runTool(project.root, ["--sandbox", "on"], { server });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(server.requests.length, 2);
      assert.equal(await project.read("out.txt"), "built\n");
      assert.match(geminiText(server.requests[1]), /error: src\/status\.txt is not ok/);
      await assertNoKeyLeak(project.root, [run], server);
    } finally {
      await server.close();
    }
  },
);

bwrapTest(
  "inside the sandbox: protected files read-only, agent-config/ and logs/ hidden, the rest writable",
  async () => {
    const build = `#!/bin/sh
for f in build.sh .gitignore src/.gitignore src/UserSpecification.md codeRollup.sh LLMInstructions.md .git/config logs/x agent-state/x Cargo.lock src/main.rs target/out; do
  if (echo changed >> "$f") 2>/dev/null; then echo "$f writable"; else echo "$f read-only"; fi
done
ls -A agent-config | wc -l | sed 's/^ */agent-config entries: /'
if cat agent-config/last-run.json >/dev/null 2>&1; then echo "last-run.json read"; else echo "last-run.json hidden"; fi
ls -A logs | wc -l | sed 's/^ */logs entries: /'
cat logs/x logs/*/* 2>/dev/null | grep -c . | sed 's/^/logs lines read: /'
exit 0
`;
    await using project = await makeProject({
      buildScript: build,
      files: {
        "src/.gitignore": "*.tmp\n",
        "src/UserSpecification.md": "spec\n",
        "codeRollup.sh": "#!/bin/sh\n",
        "LLMInstructions.md": "be kind\n",
        "agent-state/x": "state\n",
        "logs/x": "an earlier run's reply\n",
        "Cargo.lock": "",
        "src/main.rs": "fn main() {}\n",
        "target/out": "",
      },
    });
    const server = await startFakeLlmServer([geminiReply("Nothing to change.")]);
    try {
      const run = await runTool(project.root, ["--sandbox", "on"], {
        server,
        // An earlier run's object, there while this run's build runs (runTool removes it first).
        onSpawn: () => Deno.writeTextFileSync(join(project.root, LAST_RUN_FILE), "{}\n"),
      });
      assert.equal(run.code, 0, run.stderr);
      const [folder] = await project.logRuns();
      const log = await project.read(`logs/${folder}/1-initial-query-build.txt`);
      for (
        const path of [
          "build.sh",
          ".gitignore",
          "src/.gitignore",
          "src/UserSpecification.md",
          "codeRollup.sh",
          "LLMInstructions.md",
          ".git/config",
          "logs/x",
          "agent-state/x",
        ]
      ) {
        assert.match(log, new RegExp(`^${path.replaceAll(".", "\\.")} read-only$`, "m"), path);
      }
      for (const path of ["Cargo.lock", "src/main.rs", "target/out"]) {
        assert.match(log, new RegExp(`^${path.replaceAll(".", "\\.")} writable$`, "m"), path);
      }
      assert.match(log, /^agent-config entries: 0$/m);
      assert.match(log, /^last-run\.json hidden$/m);
      // The run's own logs are there outside (this log among them), not inside.
      assert.match(log, /^logs entries: 0$/m);
      assert.match(log, /^logs lines read: 0$/m);
      assert.equal(await project.read("logs/x"), "an earlier run's reply\n");
      assert.equal(await project.read("Cargo.lock"), "changed\n");
      assert.equal(await project.read("src/.gitignore"), "*.tmp\n");
      assert.equal(await project.read("LLMInstructions.md"), "be kind\n");
    } finally {
      await server.close();
    }
  },
);

/** A build that leaves a setsid daemon (`sleep <marker>`) and then runs `tail`. */
function daemonBuild(marker: string, tail: string): string {
  return `#!/bin/sh\nsetsid sleep ${marker} </dev/null >/dev/null 2>&1 &\necho started\n${tail}\n`;
}

bwrapTest("a build stopped at --build-timeout takes its setsid daemon with it", async () => {
  const marker = `${8000 + Math.floor(Math.random() * 1000)}.${Date.now() % 1_000_000}`;
  await using project = await makeProject({ buildScript: daemonBuild(marker, "sleep 60") });
  const server = await startFakeLlmServer(Array(4).fill(geminiReply("Nothing to change.")));
  try {
    const run = await runTool(project.root, ["--build-timeout", "1"], { server });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /stopped at the --build-timeout limit of 1s/);
    assert(await allGone(marker), "the daemon outlived the build");
  } finally {
    for (const pid of await sleepers(marker)) stopPid(pid);
    await server.close();
  }
});

bwrapTest("Ctrl-C during a contained build takes its setsid daemon with it", async () => {
  const marker = `${9000 + Math.floor(Math.random() * 1000)}.${Date.now() % 1_000_000}`;
  await using project = await makeProject({ buildScript: daemonBuild(marker, "sleep 60") });
  const server = await startFakeLlmServer([geminiReply("Nothing to change.")]);
  try {
    const run = await runTool(project.root, [], {
      server,
      onSpawn: (child) => {
        // Interrupt once the daemon runs.
        const timer = setInterval(async () => {
          if ((await sleepers(marker)).length > 0) {
            clearInterval(timer);
            stopChild(child, "SIGINT"); // It may have ended meanwhile.
          }
        }, 50);
        child.status.finally(() => clearInterval(timer));
      },
    });
    assert.equal(run.code, 130, run.stderr);
    assert(await allGone(marker), "the daemon outlived the interrupted build");
  } finally {
    for (const pid of await sleepers(marker)) stopPid(pid);
    await server.close();
  }
});

// The tamper check runs after every build, contained or not.
for (const sandbox of ["off", "on"] as const) {
  const register = sandbox === "on" ? bwrapTest : Deno.test;
  register(`--sandbox ${sandbox}: a build that rewrites build.sh or .gitignore`, async () => {
    for (const [file, line] of [["build.sh", "exit 0"], [".gitignore", "!/agent-config"]]) {
      const build = `#!/bin/sh\necho '${line}' >> ${file} 2>/dev/null\nexit 1\n`;
      await using project = await makeProject({ buildScript: build });
      const before = await project.read(file);
      const server = await startFakeLlmServer(Array(4).fill(geminiReply("Nothing to change.")));
      try {
        const run = await runTool(project.root, ["--sandbox", sandbox], { server });
        assert.equal(run.code, sandbox === "off" ? 5 : 1, run.stderr);
        if (sandbox === "off") {
          // Stopped at once, naming the file, before any further LLM call.
          assert.equal(server.requests.length, 1, file);
          const name = file.replace(".", "\\.");
          assert.match(run.stderr, new RegExp(`${name} (changed|no longer protects)`), file);
          assert.match(run.stderr, /before any further LLM call/);
          if (file === ".gitignore") {
            assert.match(run.stderr, /code-commit put \.gitignore back as it was before the build/);
            assert.equal(await project.read(file), before);
          }
        } else {
          // Read-only in the sandbox: the build just fails, and the repairs go on.
          assert.equal(server.requests.length, 4, file);
          assert.match(run.stdout, /build still failing after 4 attempts/);
          assert.equal(await project.read(file), before, file);
        }
      } finally {
        await server.close();
      }
    }
  });
}

Deno.test("--sandbox off: a build that empties .gitignore is stopped, and .gitignore is put back, so git add -A cannot commit the keys", async () => {
  await using project = await makeProject({ buildScript: "#!/bin/sh\n: > .gitignore\nexit 1\n" });
  const before = await project.read(".gitignore");
  const server = await startFakeLlmServer(Array(4).fill(geminiReply("Nothing to change.")));
  try {
    const run = await runTool(project.root, ["--sandbox", "off"], { server });
    assert.equal(run.code, 5, run.stderr);
    assert.equal(server.requests.length, 1);
    assert.match(
      run.stderr,
      /^code-commit: \.gitignore no longer protects the keys after \.\/build\.sh ran: .*git status shows the files it made, git diff what it changed.*code-commit --undo.*; code-commit put \.gitignore back as it was before the build \(what the build wrote there is gone\), so agent-config\/ stays ignored$/m,
    );
    assert.equal(await project.read(".gitignore"), before);
    const status = await git(project.root, "status", "--porcelain", "--untracked-files=all");
    assert.doesNotMatch(status, /agent-config/);
    assert.ok(await assertNoKeyLeak(project.root, [run], server) > 0);
  } finally {
    await server.close();
  }
});

noBwrapTest("without bubblewrap: --sandbox on refuses before any LLM call, naming it", async () => {
  await using noBwrap = await withSwappedProgram("bwrap");
  await using project = await makeProject();
  const server = await startFakeLlmServer([geminiReply("Nothing to change.")]);
  try {
    for (const args of [["--sandbox", "on"], ["--build-network", "off"]]) {
      const run = await runTool(project.root, args, { server, wrapper: noBwrap.wrapper });
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stderr, new RegExp(`${args.join(" ")} needs a sandbox`));
      assert.match(
        run.stderr,
        /bubblewrap is not installed: there is no \/usr\/bin\/bwrap or \/bin\/bwrap/,
      );
      assert.match(run.stderr, /apt-get install bubblewrap/);
      assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
    }
    assert.equal(server.requests.length, 0);
  } finally {
    await server.close();
  }
});

noBwrapTest(
  "without bubblewrap: --sandbox auto warns once per run and builds unconfined",
  async () => {
    await using noBwrap = await withSwappedProgram("bwrap");
    await using project = await makeProject({
      buildScript: STATUS_BUILD,
      files: { "src/status.txt": "broken\n" },
    });
    const server = await startFakeLlmServer([
      geminiReply("^^^src/status.txt\nstill broken\n^^^end\n"),
      geminiReply("^^^src/status.txt\nok\n^^^end\n"),
    ]);
    try {
      const run = await runTool(project.root, [], { server, wrapper: noBwrap.wrapper });
      assert.equal(run.code, 0, run.stderr);
      const warnings = run.stderr.split("\n").filter((line) =>
        /bubblewrap/.test(line) && /warn/i.test(line)
      );
      assert.equal(warnings.length, 1, run.stderr);
      assert.match(
        warnings[0],
        /runs without a sandbox.*bubblewrap is not installed.*apt-get install bubblewrap/,
      );
      assert.match(
        run.stderr,
        /running \.\/build\.sh \(not contained: bubblewrap is not installed: there is no /,
      );
      assert.doesNotMatch(run.stderr, /Failed to resolve/, "Deno's own note stays out");
    } finally {
      await server.close();
    }
  },
);

bwrapTest(
  "a bubblewrap that cannot make namespaces counts as none: --sandbox on names why",
  async () => {
    await using project = await makeProject();
    const bin = await Deno.makeTempDir({ prefix: "code-commit-fake-bwrap-" });
    try {
      await Deno.writeTextFile(
        join(bin, "bwrap"),
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n",
      );
      await Deno.chmod(join(bin, "bwrap"), 0o755);
      await using fake = await withSwappedProgram("bwrap", join(bin, "bwrap"));
      const server = await startFakeLlmServer([geminiReply("Nothing to change.")]);
      try {
        const run = await runTool(project.root, ["--sandbox", "on"], {
          server,
          wrapper: fake.wrapper,
        });
        assert.equal(run.code, 3, run.stderr);
        assert.match(
          run.stderr,
          /bubblewrap at \/usr\/bin\/bwrap cannot make a sandbox here: bwrap: No permissions to create new namespace/,
        );
        assert.equal(server.requests.length, 0);
      } finally {
        await server.close();
      }
    } finally {
      await Deno.remove(bin, { recursive: true });
    }
  },
);

Deno.test("--sandbox off --build-network off is a usage error", async () => {
  await using project = await makeProject();
  const run = await runTool(project.root, ["--sandbox", "off", "--build-network", "off"]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--build-network off needs the sandbox/);
});

bwrapTest("the auto workflow's builds run contained the same way", async () => {
  const build = `#!/bin/sh
if cat agent-config/gemini-key.txt >/dev/null 2>&1; then echo "key READ"; else echo "key hidden"; fi
exit 0
`;
  await using project = await makeProject({
    files: await fixtureFiles("five_modules"),
    query: null,
    rollup: null,
    buildScript: build,
  });
  const success = "Checked.\n@@@@task-success@@@@\n";
  const server = await startFakeLlmServer(Array.from({ length: 20 }, () => geminiReply(success)));
  try {
    const run = await runTool(project.root, ["--aw"], { server });
    assert.equal(run.code, 0, run.stderr);
    const logs = (await listFiles(join(project.root, "logs"))).filter((path) =>
      path.endsWith("-build.txt")
    );
    assert(logs.length >= 10, `${logs.length} builds`);
    for (const path of logs) {
      const log = await project.read(`logs/${path}`);
      assert.match(
        log,
        /^\$ \.\/build\.sh\n\[contained by bubblewrap, network on\]\nkey hidden\n/,
        path,
      );
    }
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
  }
});
