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
import type { HostView } from "../../lib/sandbox/bubblewrap.ts";
import { scanProject } from "../../lib/sandbox/project_scan.ts";
import { tempProject } from "../support/project.ts";

/** A probe that found nothing to hide. */
const NO_HOST: HostView = { hidden: [], boundBack: [], varRunIsFolder: false };

/** A prober that answers `result` and records what it was asked. */
function prober(result: Partial<ProbeResult>): Prober & { calls: string[] } {
  const calls: string[] = [];
  const probe = (program: string) => {
    calls.push(program);
    return Promise.resolve({ started: true, code: 0, stdout: "", stderr: "", ...result });
  };
  return Object.assign(probe, { calls });
}

const MISSING = { started: false, missing: true, stderr: "No such file or directory" };

Deno.test("--sandbox off: never contained, nothing probed, no warning", async () => {
  const probe = prober({});
  const decision = await decideContainment({ mode: "off", network: "on", os: "linux", probe });
  assert.deepEqual(decision, { containment: { kind: "none", why: "--sandbox off" } });
  assert.deepEqual(probe.calls, []);
});

Deno.test("Linux with bubblewrap: contained by /usr/bin/bwrap, with what the probe found", async () => {
  for (const mode of ["auto", "on"] as const) {
    const probe = prober({ stdout: "f /var/lib/lxd/unix.socket\0r /run/resolvconf/resolv.conf\0" });
    const decision = await decideContainment({ mode, network: "off", os: "linux", probe });
    assert.deepEqual(decision, {
      containment: {
        kind: "bubblewrap",
        network: "off",
        program: "/usr/bin/bwrap",
        host: {
          hidden: [{ path: "/var/lib/lxd/unix.socket", isDirectory: false }],
          boundBack: [],
          resolvConf: "/run/resolvconf/resolv.conf",
          varRunIsFolder: false,
          secrets: [],
          homeOverlay: false,
        },
      },
    });
    assert.deepEqual(probe.calls, ["/usr/bin/bwrap"]);
  }
});

Deno.test("Linux with bubblewrap: an overlay over the home folder when a second probe makes one", async () => {
  for (const overlay of [true, false]) {
    const calls: string[][] = [];
    const probe: Prober = (program, args) => {
      calls.push([program, ...args]);
      const overlayProbe = args.includes("--tmp-overlay");
      return Promise.resolve({
        started: true,
        code: overlayProbe && !overlay ? 1 : 0,
        stdout: overlayProbe ? "" : "h /home/u\0e /home/u/.cache\0D /home/u/.ssh\0",
        stderr: overlayProbe && !overlay ? "bwrap: Unknown option --overlay-src" : "",
      });
    };
    const decision = await decideContainment({ mode: "on", network: "on", os: "linux", probe });
    assert.equal(decision.containment.kind, "bubblewrap");
    if (decision.containment.kind !== "bubblewrap") continue;
    assert.equal(decision.containment.host.homeOverlay, overlay);
    assert.equal(decision.containment.host.home, "/home/u");
    assert.deepEqual(decision.containment.host.homeEntries, ["/home/u/.cache"]);
    assert.deepEqual(decision.containment.host.secrets, [{
      path: "/home/u/.ssh",
      isDirectory: true,
    }]);
    assert.equal(calls.length, 2);
    assert.deepEqual(calls[1].slice(-6), [
      "--overlay-src",
      "/home/u",
      "--tmp-overlay",
      "/home/u",
      "--",
      "/bin/true",
    ]);
  }
});

Deno.test("bubblewrap is looked for at /usr/bin/bwrap, then /bin/bwrap, never on PATH", async () => {
  const calls: string[] = [];
  const probe: Prober = (program) => {
    calls.push(program);
    return Promise.resolve(
      program === "/bin/bwrap"
        ? { started: true, code: 0, stdout: "", stderr: "" }
        : { started: false, missing: true, code: -1, stdout: "", stderr: "not found" },
    );
  };
  const decision = await decideContainment({ mode: "on", network: "on", os: "linux", probe });
  assert.equal(decision.containment.kind, "bubblewrap");
  assert.equal((decision.containment as { program: string }).program, "/bin/bwrap");
  assert.deepEqual(calls, ["/usr/bin/bwrap", "/bin/bwrap"]);
});

Deno.test("a project that holds the system folders: no program inside it is started", async () => {
  const probe = prober({});
  const decision = await decideContainment({
    mode: "auto",
    network: "on",
    os: "linux",
    probe,
    root: "/usr",
  });
  assert.deepEqual(probe.calls, ["/bin/bwrap"]);
  assert.equal(decision.containment.kind, "bubblewrap");
  const none = await decideContainment({
    mode: "auto",
    network: "on",
    os: "linux",
    probe: prober({}),
    root: "/",
  });
  assert.deepEqual(none.containment, {
    kind: "none",
    why: "bubblewrap cannot be used: the project holds /usr/bin/bwrap and /bin/bwrap",
  });
});

Deno.test("a bubblewrap that cannot be started (permission denied) says so", async () => {
  const decision = await decideContainment({
    mode: "auto",
    network: "on",
    os: "linux",
    probe: prober({ started: false, stderr: "Permission denied (os error 13)" }),
  });
  assert.deepEqual(decision.containment, {
    kind: "none",
    why: "bubblewrap at /usr/bin/bwrap cannot be started: Permission denied (os error 13)",
  });
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
    why: "bubblewrap is not installed: there is no /usr/bin/bwrap or /bin/bwrap",
  });
  assert.match(decision.warning!, /^\.\/build\.sh runs without a sandbox, with your rights: /);
  assert.match(
    decision.warning!,
    /bubblewrap is not installed: there is no \/usr\/bin\/bwrap or \/bin\/bwrap; install it with sudo apt-get install bubblewrap/,
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
        assert.equal(error.exitCode, 3);
        assert.match(
          error.message,
          new RegExp(
            `^${flag} needs a sandbox for \\./build\\.sh, and bubblewrap is not installed: there is no /usr/bin/bwrap or /bin/bwrap; install it with sudo apt-get install bubblewrap`,
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
      "bubblewrap at /usr/bin/bwrap cannot make a sandbox here: bwrap: No permissions to create new namespace",
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
    /contains builds on Linux with bubblewrap and on macOS with sandbox-exec, not on windows/,
  );
  assert.deepEqual(probe.calls, []);
});

Deno.test("buildLaunch describes the containment as the progress line and the log say it", async () => {
  const cases: [Containment, string][] = [
    [
      { kind: "bubblewrap", network: "on", program: "/usr/bin/bwrap", host: NO_HOST },
      "contained by bubblewrap, network on",
    ],
    [
      { kind: "bubblewrap", network: "off", program: "/usr/bin/bwrap", host: NO_HOST },
      "contained by bubblewrap, no network",
    ],
    [{ kind: "seatbelt", network: "off" }, "contained by sandbox-exec, no network"],
    [{ kind: "none", why: "--sandbox off" }, "not contained: --sandbox off"],
  ];
  await using project = await tempProject();
  const root = project.root;
  for (const [containment, text] of cases) {
    assert.equal((await buildLaunch(containment, await scanProject(root))).description, text);
  }
});

Deno.test("buildLaunch: ./build.sh itself unconfined, bwrap around it when contained", async () => {
  await using project = await tempProject();
  const root = project.root;
  await Deno.writeTextFile(join(root, "build.sh"), "#!/bin/sh\n");
  await Deno.mkdir(join(root, "agent-config"));
  const scan = await scanProject(root, { hardLinks: true });
  const none = await buildLaunch({ kind: "none", why: "--sandbox off" }, scan);
  assert.deepEqual({ ...none }, {
    program: "./build.sh",
    args: [],
    description: "not contained: --sandbox off",
  });
  const bwrap = await buildLaunch(
    { kind: "bubblewrap", network: "on", program: "/bin/bwrap", host: NO_HOST },
    scan,
  );
  assert.equal(bwrap.program, "/bin/bwrap");
  // The sandbox's arguments come on stdin; the command line runs the shell that starts the build.
  assert.deepEqual(bwrap.args.slice(0, 6), ["--args", "0", "--", "/bin/sh", "-c", bwrap.args[5]]);
  assert.match(bwrap.args[5], /exec \.\/build\.sh$/);
  const stdin = new TextDecoder().decode(bwrap.stdin).split("\0");
  assert(stdin.includes(join(root, "build.sh")), "build.sh read-only");
  assert(stdin.includes(join(root, "agent-config")), "agent-config hidden");
  for (
    const [output, code, expected] of [
      [
        "bwrap: Can't mount tmpfs on /x: No such file\n",
        1,
        "bwrap: Can't mount tmpfs on /x: No such file",
      ],
      [
        "sh: 1: exec: ./build.sh: Permission denied\n",
        126,
        "sh: 1: exec: ./build.sh: Permission denied",
      ],
      ["sh: 1: exec: ./build.sh: not found\n", 127, "sh: 1: exec: ./build.sh: not found"],
      [
        "code-commit: cannot close the file descriptors 12 before ./build.sh\n",
        126,
        "cannot close the file descriptors 12 before ./build.sh: start code-commit from a shell that leaves no file descriptors open above 2",
      ],
      ["bwrap: said the build\nthen failed\n", 1, undefined],
      ["bwrap: x\n", 2, undefined],
      ["./build.sh: my own message\n", 1, undefined],
    ] as const
  ) {
    assert.equal(bwrap.startFailure?.(output, code), expected, output);
  }
  const seatbelt = await buildLaunch({ kind: "seatbelt", network: "off" }, scan);
  assert.equal(seatbelt.program, "/usr/bin/sandbox-exec");
  assert.deepEqual(seatbelt.args.slice(-4, -2), ["/bin/sh", "-c"]);
  assert.match(seatbelt.args.at(-2)!, /exec \.\/build\.sh$/);
});
