/**
 * Deciding how builds are contained: `--sandbox auto|on|off` and
 * `--build-network` against what the machine has (a scripted prober stands
 * in for the programs; the real ones run in tests/e2e/sandbox_test.ts).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import {
  buildLaunch,
  type Containment,
  decideContainment,
  type Prober,
  type ProbeResult,
} from "../../lib/sandbox/containment.ts";

/** A prober that answers `result` and records what it was asked. */
function prober(result: Partial<ProbeResult>): Prober & { calls: string[] } {
  const calls: string[] = [];
  const probe = (program: string) => {
    calls.push(program);
    return Promise.resolve({ started: true, code: 0, stdout: "", stderr: "", ...result });
  };
  return Object.assign(probe, { calls });
}

const MISSING = { started: false, stderr: "Failed to spawn 'bwrap': entity not found" };

Deno.test("--sandbox off: never contained, nothing probed, no warning", async () => {
  const probe = prober({});
  const decision = await decideContainment({ mode: "off", network: "on", os: "linux", probe });
  assert.deepEqual(decision, { containment: { kind: "none", why: "--sandbox off" } });
  assert.deepEqual(probe.calls, []);
});

Deno.test("Linux with bubblewrap: contained, with the services the probe found", async () => {
  for (const mode of ["auto", "on"] as const) {
    const probe = prober({ stdout: "d /run/user\nf /run/docker.sock\n" });
    const decision = await decideContainment({ mode, network: "off", os: "linux", probe });
    assert.deepEqual(decision, {
      containment: {
        kind: "bubblewrap",
        network: "off",
        hostServices: [
          { path: "/run/user", isDirectory: true },
          { path: "/run/docker.sock", isDirectory: false },
        ],
      },
    });
    assert.deepEqual(probe.calls, ["bwrap"]);
  }
});

Deno.test("Linux without bubblewrap, auto: one warning naming bubblewrap and how to install it", async () => {
  const decision = await decideContainment({
    mode: "auto",
    network: "on",
    os: "linux",
    probe: prober(MISSING),
  });
  assert.deepEqual(decision.containment, {
    kind: "none",
    why: "bubblewrap (bwrap) is not on PATH",
  });
  assert.match(decision.warning!, /^\.\/build\.sh runs without a sandbox, with your rights: /);
  assert.match(
    decision.warning!,
    /bubblewrap \(bwrap\) is not on PATH; install it with sudo apt-get install bubblewrap/,
  );
  assert(!decision.warning!.includes("\n"));
});

Deno.test("Linux without bubblewrap: --sandbox on and --build-network off refuse (exit 1)", async () => {
  for (
    const [mode, network, flag] of [["on", "on", "--sandbox on"], [
      "auto",
      "off",
      "--build-network off",
    ]] as const
  ) {
    await assert.rejects(
      decideContainment({ mode, network, os: "linux", probe: prober(MISSING) }),
      (error: unknown) => {
        assert(error instanceof CodeCommitError);
        assert.equal(error.exitCode, 1);
        assert.match(
          error.message,
          new RegExp(
            `^${flag} needs a sandbox for \\./build\\.sh, and bubblewrap \\(bwrap\\) is not on PATH; install it with sudo apt-get install bubblewrap`,
          ),
        );
        assert(!error.message.includes("\n"));
        return true;
      },
    );
  }
});

Deno.test("a bubblewrap that fails its probe counts as none, with its own first line as the reason", async () => {
  const probe = prober({
    code: 1,
    stderr: "\nbwrap: No permissions to create new namespace\nmore\n",
  });
  const decision = await decideContainment({ mode: "auto", network: "on", os: "linux", probe });
  assert.deepEqual(decision.containment, {
    kind: "none",
    why:
      "bubblewrap (bwrap) cannot make a sandbox here (bwrap: No permissions to create new namespace)",
  });
});

Deno.test("macOS: sandbox-exec; without it auto warns (no apt-get), on refuses", async () => {
  const found = await decideContainment({
    mode: "on",
    network: "on",
    os: "darwin",
    probe: prober({}),
  });
  assert.deepEqual(found, { containment: { kind: "seatbelt", network: "on" } });
  const missing = await decideContainment({
    mode: "auto",
    network: "on",
    os: "darwin",
    probe: prober(MISSING),
  });
  assert.match(missing.warning!, /\/usr\/bin\/sandbox-exec is not there/);
  assert.doesNotMatch(missing.warning!, /apt-get/);
});

Deno.test("elsewhere: auto warns and runs unconfined, naming where builds are contained", async () => {
  const probe = prober({});
  const decision = await decideContainment({ mode: "auto", network: "on", os: "windows", probe });
  assert.equal(decision.containment.kind, "none");
  assert.match(
    decision.warning!,
    /contains builds on Linux \(bubblewrap\) and macOS \(sandbox-exec\), not on windows/,
  );
  assert.deepEqual(probe.calls, []);
});

Deno.test("buildLaunch describes the containment as the progress line and the log say it", async () => {
  const cases: [Containment, string][] = [
    [
      { kind: "bubblewrap", network: "on", hostServices: [] },
      "contained by bubblewrap, network on",
    ],
    [
      { kind: "bubblewrap", network: "off", hostServices: [] },
      "contained by bubblewrap, no network",
    ],
    [{ kind: "seatbelt", network: "off" }, "contained by sandbox-exec, no network"],
    [{ kind: "none", why: "--sandbox off" }, "not contained (--sandbox off)"],
  ];
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "code-commit-launch-" }));
  try {
    for (const [containment, text] of cases) {
      assert.equal((await buildLaunch(containment, root)).description, text);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("buildLaunch: ./build.sh itself unconfined, bwrap around it when contained", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "code-commit-launch-" }));
  try {
    await Deno.writeTextFile(join(root, "build.sh"), "#!/bin/sh\n");
    await Deno.mkdir(join(root, "agent-config"));
    const none = await buildLaunch({ kind: "none", why: "--sandbox off" }, root);
    assert.deepEqual({ ...none }, {
      program: "./build.sh",
      args: [],
      description: "not contained (--sandbox off)",
    });
    const bwrap = await buildLaunch({ kind: "bubblewrap", network: "on", hostServices: [] }, root);
    assert.equal(bwrap.program, "bwrap");
    assert.deepEqual(bwrap.args.slice(-2), ["--", "./build.sh"]);
    assert(bwrap.args.includes(join(root, "build.sh")), "build.sh read-only");
    assert(bwrap.args.includes(join(root, "agent-config")), "agent-config hidden");
    assert.equal(
      bwrap.startFailure?.("bwrap: execvp ./build.sh: Permission denied\n", 1),
      "bwrap: execvp ./build.sh: Permission denied",
    );
    assert.equal(bwrap.startFailure?.("bwrap: said the build\nthen failed\n", 1), undefined);
    assert.equal(bwrap.startFailure?.("bwrap: x\n", 2), undefined);
    const seatbelt = await buildLaunch({ kind: "seatbelt", network: "off" }, root);
    assert.equal(seatbelt.program, "/usr/bin/sandbox-exec");
    assert.equal(seatbelt.args.at(-1), "./build.sh");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
