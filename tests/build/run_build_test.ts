import assert from "node:assert/strict";
import { join } from "node:path";
import {
  buildPassed,
  formatBuildForPrompt,
  formatBuildLog,
  runBuild,
} from "../../lib/build/run_build.ts";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import { BUILD_RECORD_FILE, trackBuilds } from "../../lib/project_lock/running_build.ts";
import { Redactor } from "../../lib/secrets/redact.ts";
import { withProject } from "../support/project.ts";

/** A temporary project holding an executable `build.sh` with `script` as its body. */
function withBuild(
  script: string,
  test: (root: string) => Promise<void>,
  shebang = "#!/bin/sh\n",
): Promise<void> {
  return withProject({ "build.sh": { content: shebang + script, mode: 0o755 } }, test);
}

/** Whether a process is alive, polled until it is gone or `ms` have passed. */
async function aliveAfter(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const probe = await new Deno.Command("kill", { args: ["-0", String(pid)], stderr: "null" })
      .output();
    if (!probe.success) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

const LONG = 60_000;

Deno.test("exit 0 passes, whatever goes to stderr", async () => {
  await withBuild("echo 'note: informational' >&2\nexit 0\n", async (root) => {
    const result = await runBuild(root, { timeoutMs: LONG });
    assert.equal(result.exitCode, 0);
    assert(buildPassed(result));
    assert.equal(result.output, "note: informational\n");
  });
});

Deno.test("a non-zero exit fails and keeps its code", async () => {
  await withBuild("echo failing\nexit 3\n", async (root) => {
    const result = await runBuild(root, { timeoutMs: LONG });
    assert.equal(result.exitCode, 3);
    assert(!buildPassed(result));
    assert.match(
      formatBuildLog(result),
      /^\$ \.\/build\.sh\nfailing\n\[exit code 3, after [\d.]+s\]\n$/,
    );
  });
});

Deno.test("stdout and stderr are interleaved in the order they arrive", async () => {
  const script =
    "echo out1\nsleep 0.1\necho err1 >&2\nsleep 0.1\necho out2\nsleep 0.1\necho err2 >&2\n";
  await withBuild(script, async (root) => {
    const result = await runBuild(root, { timeoutMs: LONG });
    assert.equal(result.output, "out1\nerr1\nout2\nerr2\n");
  });
});

Deno.test("a build killed by a signal fails and names the signal", async () => {
  await withBuild("kill -TERM $$\n", async (root) => {
    const result = await runBuild(root, { timeoutMs: LONG });
    assert.equal(result.exitCode, null);
    assert.equal(result.signal, "SIGTERM");
    assert(!buildPassed(result));
    assert.match(formatBuildLog(result), /\[killed by SIGTERM after/);
  });
});

Deno.test("the time limit stops the build and every process it started", async () => {
  const script = "sh -c 'echo $$ > grandchild.pid; exec sleep 60' &\nsleep 60\n";
  await withBuild(script, async (root) => {
    const result = await runBuild(root, { timeoutMs: 500, killGraceMs: 500 });
    assert(result.timedOut);
    assert(!buildPassed(result));
    assert.match(formatBuildLog(result), /stopped at the --build-timeout limit of 0\.5s, after /);
    const pid = Number(await Deno.readTextFile(join(root, "grandchild.pid")));
    assert(pid > 0);
    assert.equal(await aliveAfter(pid, 5_000), false, "the grandchild outlived the build");
  });
});

Deno.test("a build that ignores SIGTERM is killed after the grace period", async () => {
  await withBuild("trap '' TERM\nwhile :; do sleep 0.05; done\n", async (root) => {
    const result = await runBuild(root, { timeoutMs: 300, killGraceMs: 300 });
    assert(result.timedOut);
    assert.equal(result.signal, "SIGKILL");
  });
});

Deno.test("Ctrl-C (the run's signal) stops the build as interrupted", async () => {
  await withBuild("echo started\nsleep 60\n", async (root) => {
    const controller = new AbortController();
    // Interrupted once it is running, however slowly it starts.
    const onOutput = (text: string) => text.includes("started") && controller.abort();
    const result = await runBuild(root, { timeoutMs: LONG, signal: controller.signal, onOutput });
    assert(result.interrupted);
    assert(!result.timedOut);
    assert(!buildPassed(result));
    assert.equal(result.output, "started\n");
  });
});

Deno.test("a signal already aborted stops the build at once", async () => {
  await withBuild("sleep 60\n", async (root) => {
    const controller = new AbortController();
    controller.abort();
    const result = await runBuild(root, { timeoutMs: LONG, signal: controller.signal });
    assert(result.interrupted);
  });
});

Deno.test("a process left holding the output does not hang the run, and is stopped", async () => {
  const script = "echo done\nsh -c 'echo $$ > leftover.pid; exec sleep 60' &\nsleep 0.2\nexit 0\n";
  await withBuild(script, async (root) => {
    const result = await runBuild(root, { timeoutMs: LONG });
    assert.equal(result.exitCode, 0);
    assert(buildPassed(result));
    assert.match(result.output, /^done\n/);
    assert.match(result.output, /still held its output open; it was stopped/);
    const pid = Number(await Deno.readTextFile(join(root, "leftover.pid")));
    assert.equal(await aliveAfter(pid, 5_000), false, "the left-over process still runs");
  });
});

Deno.test("a background process that closed its output is stopped when the build ends", async () => {
  const script =
    "sh -c 'echo $$ > quiet.pid; exec sleep 60' </dev/null >/dev/null 2>&1 &\nsleep 0.2\necho done\n";
  await withBuild(script, async (root) => {
    const result = await runBuild(root, { timeoutMs: LONG });
    assert.equal(result.exitCode, 0);
    assert.equal(result.output, "done\n");
    const pid = Number(await Deno.readTextFile(join(root, "quiet.pid")));
    assert.equal(await aliveAfter(pid, 5_000), false, "the background process outlived the build");
  });
});

Deno.test("a background job in a process group of its own is stopped when the build ends", async () => {
  // A job in a process group of its own (as a shell's job control makes one): killing the
  // build's group leaves it; the run's tracker ends the rest of the build's session.
  const script = "python3 -c 'import os, time; os.setpgid(0, 0); " +
    'open("job.pid", "w").write(str(os.getpid())); time.sleep(60)\' ' +
    "</dev/null >/dev/null 2>&1 &\n" +
    // Wait until the job has written its PID (and so left the build's group), however slow.
    "for i in $(seq 600); do [ -s job.pid ] && break; sleep 0.05; done\necho done\n";
  await withBuild(script, async (root) => {
    await Deno.mkdir(join(root, "agent-config"));
    const result = await runBuild(root, { timeoutMs: LONG, tracker: trackBuilds(root) });
    assert.equal(result.exitCode, 0);
    const pid = Number(await Deno.readTextFile(join(root, "job.pid")));
    assert.equal(await aliveAfter(pid, 2_000), false, "the background job outlived the build");
    assert.equal(await Deno.lstat(join(root, BUILD_RECORD_FILE)).catch(() => undefined), undefined);
  });
});

Deno.test("a UTF-8 character split across writes comes out whole", async () => {
  await withBuild("printf '\\303'\nsleep 0.1\nprintf '\\251\\n'\n", async (root) => {
    const result = await runBuild(root, { timeoutMs: LONG });
    assert.equal(result.output, "é\n");
  });
});

Deno.test("keys printed by the build are masked", async () => {
  const key = "AIzaSyTEST-build-0123456789abcdefghijk42";
  await withBuild(`echo "key=${key}"\necho "${key}" >&2\nexit 1\n`, async (root) => {
    const result = await runBuild(root, { timeoutMs: LONG, redactor: new Redactor([key]) });
    assert(!result.output.includes(key));
    assert.equal(result.output, "key=********42\n********42\n");
  });
});

Deno.test("a key cut into short pieces by colour codes is masked: the output loses its colours", async () => {
  const key = "AIzaSyTEST-build-0123456789abcdefghijk42";
  // Reverse video around every tenth character, as a test runner's diff marks changes.
  const coloured = [...key].map((c, i) => i % 10 === 5 ? `\\033[7m${c}\\033[0m` : c).join("");
  await withBuild(`printf '\\033[32mok\\033[0m ${coloured}\\n'\n`, async (root) => {
    const result = await runBuild(root, { timeoutMs: LONG, redactor: new Redactor([key]) });
    assert.equal(result.output, "ok ********42\n");
  });
});

Deno.test("endless output keeps a bounded head and tail and says what it dropped", async () => {
  const script = 'i=0\nwhile [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done\n';
  await withBuild(script, async (root) => {
    const result = await runBuild(root, {
      timeoutMs: LONG,
      keepHeadBytes: 1000,
      keepTailBytes: 1000,
    });
    assert(result.droppedBytes > 0);
    assert.match(result.output, /^line 0\n/);
    assert.match(result.output, /line 1999\n$/);
    assert.match(result.output, /bytes of output dropped here to bound memory/);
  });
});

Deno.test("the prompt shows a long build's head, failure and tail, and where the rest is", async () => {
  await withBuild(
    'i=0\nwhile [ $i -lt 5000 ]; do echo "line $i"; [ $i = 2500 ] && echo "Error: in the middle"; i=$((i+1)); done\nexit 2\n',
    async (root) => {
      const result = await runBuild(root, { timeoutMs: LONG });
      const prompt = formatBuildForPrompt(result, "logs/run/1-initial-query-build.txt", 2_000);
      assert.match(prompt, /^\$ \.\/build\.sh\n\[code-commit: the build printed 5,001 lines/);
      assert.match(
        prompt,
        /The whole output is in logs\/run\/1-initial-query-build\.txt\]\nline 0\n/,
      );
      assert.match(prompt, /\nError: in the middle\n/);
      assert.match(prompt, /line 4999\n\[exit code 2, after/);
      assert(prompt.length < 10_000);
      // The log keeps everything.
      assert.match(formatBuildLog(result), /line 250\n/);
      // Output that fits is not cut.
      assert.equal(formatBuildForPrompt(result, "x"), formatBuildLog(result));
    },
  );
});

Deno.test("the build runs in the project root with no input", async () => {
  await withBuild("pwd\ncat\necho end\n", async (root) => {
    const result = await runBuild(root, { timeoutMs: LONG });
    assert.equal(result.output, `${await Deno.realPath(root)}\nend\n`);
  });
});

Deno.test("a missing build script cannot start, and the error says what to do", async () => {
  await withProject({}, async (root) => {
    await assert.rejects(
      () => runBuild(root, { timeoutMs: LONG }),
      (error: unknown) => {
        assert(error instanceof CodeCommitError);
        assert.match(error.message, /cannot run \.\/build\.sh: .*chmod \+x build\.sh/);
        return true;
      },
    );
  });
});

Deno.test("a launch starts the build through its program, and the log says how it was contained", async () => {
  await withBuild("echo inside\nexit 0\n", async (root) => {
    const result = await runBuild(root, {
      timeoutMs: LONG,
      launch: {
        program: "sh",
        args: ["-c", 'echo "via the launcher"; exec ./build.sh'],
        description: "contained by a test launcher, network on",
      },
    });
    assert(buildPassed(result));
    assert.equal(result.containment, "contained by a test launcher, network on");
    assert.match(
      formatBuildLog(result),
      /^\$ \.\/build\.sh\n\[contained by a test launcher, network on\]\nvia the launcher\ninside\n\[exit code 0, /,
    );
    // The repair prompt shows the build as before.
    assert.match(formatBuildForPrompt(result, "x"), /^\$ \.\/build\.sh\nvia the launcher\n/);
  });
});

Deno.test("a launch that could not start build.sh is an error, not a failed build", async () => {
  await withBuild("exit 0\n", async (root) => {
    const launch = {
      program: "sh",
      args: ["-c", "echo 'fake: cannot exec ./build.sh' >&2; exit 1"],
      description: "contained by a test launcher, network on",
      startFailure: (output: string, code: number | null) =>
        code === 1 && output.startsWith("fake: ") ? output.trim() : undefined,
    };
    await assert.rejects(
      runBuild(root, { timeoutMs: LONG, launch }),
      (error: unknown) => {
        assert(error instanceof CodeCommitError);
        assert.match(
          error.message,
          /^cannot run \.\/build\.sh \(contained by a test launcher, network on\): fake: cannot exec \.\/build\.sh; /,
        );
        return true;
      },
    );
    const missing = { ...launch, program: "code-commit-no-such-program" };
    await assert.rejects(
      runBuild(root, { timeoutMs: LONG, launch: missing }),
      /cannot start code-commit-no-such-program to run \.\/build\.sh/,
    );
  });
});

Deno.test("output printed in one write larger than the tail is still bounded", async () => {
  // One printf of 50,000 bytes arrives in few large chunks: the tail must be cut inside a chunk.
  const script = "printf 'start\\n'; head -c 50000 /dev/zero | tr '\\0' x; printf '\\nend\\n'\n";
  await withBuild(script, async (root) => {
    const result = await runBuild(root, {
      timeoutMs: LONG,
      keepHeadBytes: 100,
      keepTailBytes: 100,
    });
    assert(result.droppedBytes > 0);
    assert.match(result.output, /^start\n/);
    assert.match(result.output, /x\nend\n$/);
    assert(result.output.length < 400, `kept ${result.output.length} characters`);
  });
});

Deno.test("onOutput is told the output as it arrives, before the build ends", async () => {
  await withBuild("echo first\nsleep 0.3\necho second >&2\n", async (root) => {
    const seen: { text: string; at: number }[] = [];
    const started = performance.now();
    const result = await runBuild(root, {
      timeoutMs: LONG,
      onOutput: (text) => seen.push({ text, at: performance.now() - started }),
    });
    assert.equal(seen.map((s) => s.text).join(""), "first\nsecond\n");
    assert.equal(seen[0].text, "first\n");
    assert.ok(seen[0].at < result.elapsedMs - 200, "the first line came before the end");
  });
});
