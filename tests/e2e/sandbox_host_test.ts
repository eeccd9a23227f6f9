/**
 * What of the machine a contained build can still reach, probed with the
 * real tool and a real `build.sh`: Unix sockets under `/run` and in
 * `~/.ssh`, the host's System V IPC, file descriptors code-commit was
 * started with, and protected entries in folders with odd names.
 * Each probe is seen open with `--sandbox off`, so it proves something.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import { stopChild } from "../support/child.ts";
import { makeProject, type Project } from "../support/project.ts";
import { runTool, type RunToolOptions, type ToolRun } from "../support/run_tool.ts";
import { bwrapTest } from "../support/sandbox.ts";

/** Runs the tool once in `project` with `args`; the first build's log. */
async function runOnce(
  project: Project,
  args: string[],
  options: Omit<RunToolOptions, "server"> = {},
): Promise<{ run: ToolRun; buildLog: string }> {
  const server = await startFakeLlmServer([geminiReply("Nothing to change.")]);
  try {
    const run = await runTool(project.root, args, { ...options, server });
    const folder = (await project.logRuns()).at(-1);
    const buildLog = await project.read(`logs/${folder}/1-initial-query-build.txt`);
    await assertNoKeyLeak(project.root, [run], server);
    return { run, buildLog };
  } finally {
    await server.close();
  }
}

/**
 * A Unix socket at `path` that counts the connections it accepts (python3:
 * the tests' own permissions reach loopback TCP only).
 */
async function unixListener(
  path: string,
): Promise<{ connections(): Promise<number> } & AsyncDisposable> {
  const counter = `${path}.count`;
  const child = new Deno.Command("python3", {
    args: [
      "-c",
      [
        "import socket, sys",
        "s = socket.socket(socket.AF_UNIX)",
        "s.bind(sys.argv[1])",
        "s.listen()",
        "print('ready', flush=True)",
        "while True:",
        "    c, _ = s.accept()",
        "    open(sys.argv[2], 'a').write('x')",
        "    c.close()",
      ].join("\n"),
      path,
      counter,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  assert.equal(new TextDecoder().decode(value).trim(), "ready");
  return {
    connections: () => Deno.readTextFile(counter).then((text) => text.length, () => 0),
    async [Symbol.asyncDispose]() {
      stopChild(child);
      await child.status;
      await reader.cancel().catch(() => {});
      await Deno.remove(path).catch(() => {});
      await Deno.remove(counter).catch(() => {});
    },
  };
}

/** A build that tries to connect to the socket `$SOCKET` and says whether it could. */
const CONNECT_BUILD = `#!/bin/sh
if python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' "$SOCKET" 2>/dev/null
then echo "socket: open"; else echo "socket: closed"; fi
if [ -n "$SSH_CONFIG" ]; then grep . "$SSH_CONFIG" 2>/dev/null || echo "ssh config: hidden"; fi
if [ -n "$KEPT" ]; then cat "$KEPT" 2>/dev/null || echo "kept: hidden"; fi
exit 0
`;

bwrapTest("a Unix socket under /run is out of reach, even with the network off", async () => {
  const socket = `/run/code-commit-test-${crypto.randomUUID()}.sock`;
  await using listener = await unixListener(socket);
  await using project = await makeProject({ buildScript: CONNECT_BUILD });
  const off = await runOnce(project, ["--sandbox", "off"], { env: { SOCKET: socket } });
  assert.equal(off.run.code, 0, off.run.stderr);
  assert.match(off.buildLog, /^socket: open$/m, "the probe works");
  assert.equal(await listener.connections(), 1);
  for (const network of ["on", "off"]) {
    const contained = await runOnce(project, ["--build-network", network], {
      env: { SOCKET: socket },
    });
    assert.equal(contained.run.code, 0, contained.run.stderr);
    assert.match(contained.buildLog, /^socket: closed$/m, network);
  }
  assert.equal(await listener.connections(), 1);
});

bwrapTest(
  "sockets in ~/.docker are hidden, the rest of it stays; ~/.ssh is hidden whole",
  async () => {
    const home = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "code-commit-home-" });
    try {
      await Deno.mkdir(join(home, ".docker/run"), { recursive: true });
      await Deno.mkdir(join(home, ".ssh"), { recursive: true });
      await Deno.writeTextFile(join(home, ".ssh/config"), "Host example\n");
      await Deno.writeTextFile(join(home, ".docker/daemon.json"), "daemon settings\n");
      const socket = join(home, ".docker/run/docker.sock");
      await using listener = await unixListener(socket);
      await using project = await makeProject({ buildScript: CONNECT_BUILD });
      // Deno keeps its cache under HOME: point it where it is.
      const info = await new Deno.Command(Deno.execPath(), {
        args: ["info", "--json"],
        stdout: "piped",
      })
        .output();
      const denoDir = JSON.parse(new TextDecoder().decode(info.stdout)).denoDir as string;
      const env = {
        HOME: home,
        DENO_DIR: denoDir,
        SOCKET: socket,
        SSH_CONFIG: join(home, ".ssh/config"),
        KEPT: join(home, ".docker/daemon.json"),
      };
      const off = await runOnce(project, ["--sandbox", "off"], { env });
      assert.match(off.buildLog, /^socket: open$/m, "the probe works");
      const on = await runOnce(project, ["--build-network", "off"], { env });
      assert.equal(on.run.code, 0, on.run.stderr);
      assert.match(on.buildLog, /^socket: closed$/m);
      assert.match(off.buildLog, /^Host example$/m);
      assert.match(on.buildLog, /^ssh config: hidden$/m, "~/.ssh is hidden whole");
      assert.match(on.buildLog, /^daemon settings$/m, "the rest of ~/.docker is still there");
      assert.equal(await listener.connections(), 1);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
);

bwrapTest("/proc/sys is read-only to a contained build, even one run as root", async () => {
  // Writes the value back unchanged: the host is never altered, and a refused write shows.
  await using project = await makeProject({
    buildScript: '#!/bin/sh\necho "uid: $(id -u)"\nv=$(cat /proc/sys/kernel/core_pattern)\n' +
      `if printf '%s\\n' "$v" 2>/dev/null > /proc/sys/kernel/core_pattern; ` +
      `then echo "sysctl: writable"; else echo "sysctl: refused"; fi\nexit 0\n`,
  });
  const off = await runOnce(project, ["--sandbox", "off"]);
  if (/^uid: 0$/m.test(off.buildLog)) {
    assert.match(off.buildLog, /^sysctl: writable$/m, "the probe works (root, no sandbox)");
  }
  const on = await runOnce(project, ["--sandbox", "on"]);
  assert.equal(on.run.code, 0, on.run.stderr);
  assert.match(on.buildLog, /^sysctl: refused$/m);
});

bwrapTest("the host's System V shared memory is out of reach (own IPC namespace)", async () => {
  const made = await new Deno.Command("ipcmk", { args: ["-M", "4096"], stdout: "piped" }).output();
  assert(made.success);
  const id = /(\d+)\s*$/.exec(new TextDecoder().decode(made.stdout).trim())![1];
  try {
    await using project = await makeProject({
      buildScript:
        `#!/bin/sh\nif ipcs -m | awk '{print $2}' | grep -qx "$SHM_ID"; then echo "shm: visible"; else echo "shm: hidden"; fi\nexit 0\n`,
    });
    const env = { SHM_ID: id };
    const off = await runOnce(project, ["--sandbox", "off"], { env });
    assert.match(off.buildLog, /^shm: visible$/m, "the probe works");
    const on = await runOnce(project, ["--sandbox", "on"], { env });
    assert.equal(on.run.code, 0, on.run.stderr);
    assert.match(on.buildLog, /^shm: hidden$/m);
  } finally {
    await new Deno.Command("ipcrm", { args: ["-m", id] }).output();
  }
});

bwrapTest(
  "file descriptors code-commit was started with are closed before ./build.sh",
  async () => {
    const outside = await Deno.makeTempDir({ dir: "/var/tmp", prefix: "code-commit-fds-" });
    try {
      const low = join(outside, "fd7.txt");
      const high = join(outside, "fd12.txt");
      await using project = await makeProject({
        // bash: dash cannot name a descriptor above 9.
        buildScript: `#!/usr/bin/env bash
for fd in 7 12; do
  if (eval "echo written >&$fd") 2>/dev/null; then echo "fd $fd: open"; else echo "fd $fd: closed"; fi
done
exit 0
`,
      });
      // A wrapper script, IDE or CI runner that leaves descriptors open on files elsewhere.
      const wrapper = ["bash", "-c", 'exec 7>>"$FD7" 12>>"$FD12"; exec "$@"', "bash"];
      const env = { FD7: low, FD12: high };
      const off = await runOnce(project, ["--sandbox", "off"], { env, wrapper });
      assert.match(off.buildLog, /^fd 7: open$/m, "the probe works");
      assert.match(off.buildLog, /^fd 12: open$/m, "the probe works");
      await Deno.writeTextFile(low, "");
      await Deno.writeTextFile(high, "");
      const on = await runOnce(project, ["--sandbox", "on"], { env, wrapper });
      assert.equal(on.run.code, 0, on.run.stderr);
      assert.match(on.buildLog, /^fd 7: closed$/m);
      assert.match(on.buildLog, /^fd 12: closed$/m);
      assert.equal(await Deno.readTextFile(low), "");
      assert.equal(await Deno.readTextFile(high), "");
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  },
);

bwrapTest(
  "protected entries in every folder git reads are read-only: odd names, case, a fifo",
  async () => {
    await using project = await makeProject({
      gitignore: "/agent-config\n/logs\nsub/\n",
      files: {
        "v~1/.gitignore": "secret\n",
        "v~1/UserSpecification.md": "spec\n",
        "Sub/.gitignore": "y\n",
      },
      buildScript: `#!/bin/sh
for f in 'v~1/.gitignore' 'v~1/UserSpecification.md' Sub/.gitignore; do
  if (echo x >> "$f") 2>/dev/null; then echo "$f writable"; else echo "$f read-only"; fi
done
if rm -f fifo/.gitignore 2>/dev/null; then echo "fifo removed"; else echo "fifo kept"; fi
exit 0
`,
    });
    await Deno.mkdir(join(project.root, "fifo"));
    const made = await new Deno.Command("mkfifo", { args: [join(project.root, "fifo/.gitignore")] })
      .output();
    assert(made.success);
    // --force: git status would wait on the fifo named .gitignore (the dirty-tree check
    // refuses the run after 20 s, saying so); the build's view is what is tested here.
    const { run, buildLog } = await runOnce(project, ["--sandbox", "on", "--force"]);
    assert.equal(run.code, 0, run.stderr);
    for (const path of ["v~1/.gitignore", "v~1/UserSpecification.md", "Sub/.gitignore"]) {
      assert.match(buildLog, new RegExp(`^${path.replaceAll(".", "\\.")} read-only$`, "m"), path);
    }
    assert.match(buildLog, /^fifo kept$/m);
    assert.equal(await project.read("v~1/.gitignore"), "secret\n");
    assert.equal(await project.read("Sub/.gitignore"), "y\n");
  },
);
