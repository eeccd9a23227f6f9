/**
 * The bubblewrap command line: its order and flags (logic), and the same
 * arguments run for real by a user without privileges (unprivileged user
 * namespaces), which is how most users run code-commit.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  bubblewrapArgs,
  bubblewrapProbeArgs,
  parseProbeOutput,
} from "../../lib/sandbox/bubblewrap.ts";
import { planSandbox, type SandboxPlan } from "../../lib/sandbox/plan.ts";
import { BWRAP_MISSING, bwrapTest } from "../support/sandbox.ts";

/** The host services a build must not reach, which the probe asks about. */
const HOST_SERVICES = [
  "/run/user",
  "/run/dbus",
  "/run/systemd/private",
  "/run/docker.sock",
  "/run/docker",
  "/run/containerd",
  "/run/podman",
  "/run/screen",
  "/run/snapd.socket",
  "/run/snapd-snap.socket",
];

const PLAN: SandboxPlan = {
  root: "/tmp/project",
  readOnly: ["/tmp/project/.git", "/tmp/project/.gitignore", "/tmp/project/build.sh"],
  hidden: [
    { path: "/home/u/keys/gemini", isDirectory: false },
    { path: "/tmp/project/agent-config", isDirectory: true },
  ],
};

/** The index of the first `[flag, ...values]` run in `args`, or -1. */
function indexOf(args: readonly string[], ...run: string[]): number {
  for (let i = 0; i + run.length <= args.length; i++) {
    if (run.every((word, k) => args[i + k] === word)) return i;
  }
  return -1;
}

Deno.test("bubblewrapArgs: read-only system, fresh /proc, minimal /dev, private /tmp", () => {
  const args = bubblewrapArgs(PLAN, "on");
  assert.equal(indexOf(args, "--ro-bind", "/", "/"), 0);
  for (const run of [["--dev", "/dev"], ["--proc", "/proc"], ["--tmpfs", "/tmp"]]) {
    assert(indexOf(args, ...run) > 0, run.join(" "));
  }
});

Deno.test("bubblewrapArgs: the project read-write after /tmp, then read-only entries, then hidden", () => {
  const args = bubblewrapArgs(PLAN, "on", [{ path: "/run/user", isDirectory: true }]);
  const root = indexOf(args, "--bind", "/tmp/project", "/tmp/project");
  // A project under /tmp must be bound after the private /tmp, or it would vanish under it.
  assert(indexOf(args, "--tmpfs", "/tmp") < root);
  assert(indexOf(args, "--tmpfs", "/run/user") < root);
  for (const path of PLAN.readOnly) {
    assert(indexOf(args, "--ro-bind", path, path) > root, path);
  }
  const hiddenDir = indexOf(
    args,
    "--tmpfs",
    "/tmp/project/agent-config",
    "--remount-ro",
    "/tmp/project/agent-config",
  );
  assert(hiddenDir > indexOf(args, "--ro-bind", "/tmp/project/build.sh", "/tmp/project/build.sh"));
  assert(indexOf(args, "--ro-bind", "/dev/null", "/home/u/keys/gemini") > root);
});

Deno.test("bubblewrapArgs: own PID namespace, dies with code-commit, no capabilities, runs ./build.sh", () => {
  const args = bubblewrapArgs(PLAN, "on");
  for (const flag of ["--unshare-pid", "--die-with-parent"]) assert(args.includes(flag), flag);
  assert(indexOf(args, "--cap-drop", "ALL") > 0);
  assert(!args.includes("--unshare-net"), "network on: the machine's network");
  assert(!args.includes("--new-session"), "the build stays in code-commit's process group");
  assert.deepEqual(args.slice(-4), ["--chdir", "/tmp/project", "--", "./build.sh"]);
  assert(!args.some((arg) => /^--(setenv|unsetenv|clearenv)$/.test(arg)), "the environment as is");
});

Deno.test("bubblewrapArgs: --build-network off adds its own network namespace", () => {
  const args = bubblewrapArgs(PLAN, "off");
  assert(args.includes("--unshare-net"));
  assert.equal(args.filter((arg) => arg === "--unshare-net").length, 1);
});

Deno.test("the probe runs the same sandbox as a build, and asks which services exist", () => {
  for (const network of ["on", "off"] as const) {
    const probe = bubblewrapProbeArgs(network);
    const build = bubblewrapArgs(PLAN, network);
    const base = probe.slice(0, probe.indexOf("--"));
    assert.deepEqual(build.slice(0, base.length), base, network);
    assert.deepEqual(probe.slice(-HOST_SERVICES.length), HOST_SERVICES);
  }
});

Deno.test("parseProbeOutput: the services that exist, nothing inside a hidden folder twice", () => {
  assert.deepEqual(
    parseProbeOutput("d /run/user\nf /run/docker.sock\nnoise\nf /etc/passwd\nd /run/dbus\n"),
    [
      { path: "/run/user", isDirectory: true },
      { path: "/run/docker.sock", isDirectory: false },
      { path: "/run/dbus", isDirectory: true },
    ],
  );
  assert.deepEqual(parseProbeOutput(""), []);
});

// Most users are not root: bubblewrap then makes an unprivileged user namespace. Run the real
// arguments as `nobody` (this needs root to switch to it, which CI has).
const ROOT = await new Deno.Command("id", { args: ["-u"], stdout: "piped" }).output()
  .then((output) => new TextDecoder().decode(output.stdout).trim() === "0", () => false);
const SETPRIV = await new Deno.Command("setpriv", { args: ["--version"], stdout: "null" })
  .output().then((output) => output.success, () => false);

function asNobody(args: string[], cwd: string): Promise<Deno.CommandOutput> {
  return new Deno.Command("setpriv", {
    args: ["--reuid=65534", "--regid=65534", "--clear-groups", "bwrap", ...args],
    cwd,
    env: { HOME: "/tmp" },
    stdout: "piped",
    stderr: "piped",
  }).output();
}

const UNPRIVILEGED_NAMESPACES = !ROOT || !SETPRIV || BWRAP_MISSING !== undefined ? false : await (
  async () => {
    const dir = await Deno.makeTempDir();
    try {
      return (await asNobody(["--ro-bind", "/", "/", "--unshare-pid", "--", "true"], dir)).success;
    } finally {
      await Deno.remove(dir);
    }
  }
)();

if (ROOT && SETPRIV && (UNPRIVILEGED_NAMESPACES || BWRAP_MISSING !== undefined)) {
  bwrapTest("the same arguments work for a user without privileges", async () => {
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "code-commit-nobody-" }));
    try {
      await Deno.mkdir(join(root, "agent-config"));
      await Deno.mkdir(join(root, ".git/hooks"), { recursive: true });
      await Deno.writeTextFile(join(root, "agent-config/gemini-key.txt"), "AIzaSy-secret-key\n");
      await Deno.writeTextFile(join(root, ".gitignore"), "/agent-config\n");
      await Deno.writeTextFile(
        join(root, "build.sh"),
        `#!/bin/sh
id -u
cat agent-config/gemini-key.txt 2>/dev/null || echo "key hidden"
(echo x > .git/hooks/pre-commit) 2>/dev/null || echo "git read-only"
(echo x >> build.sh) 2>/dev/null || echo "build.sh read-only"
(echo x > /etc/code-commit-probe) 2>/dev/null || echo "system read-only"
echo tmp > /tmp/probe && echo "tmp writable"
echo built > out.txt && echo "project writable"
`,
      );
      await new Deno.Command("chmod", { args: ["-R", "a+rwX", root] }).output();
      await Deno.chmod(join(root, "build.sh"), 0o777);
      const plan = await planSandbox(root);
      const output = await asNobody(bubblewrapArgs(plan, "off"), root);
      const text = new TextDecoder().decode(output.stdout);
      assert(output.success, new TextDecoder().decode(output.stderr));
      assert.deepEqual(text.trim().split("\n"), [
        "65534",
        "key hidden",
        "git read-only",
        "build.sh read-only",
        "system read-only",
        "tmp writable",
        "project writable",
      ]);
      assert.equal(await Deno.readTextFile(join(root, "out.txt")), "built\n");
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
}
