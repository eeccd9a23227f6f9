/**
 * The bubblewrap command line: its order and flags (logic), and the same
 * arguments run for real by a user without privileges (unprivileged user
 * namespaces), which is how most users run code-commit.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  bubblewrapArgs,
  bubblewrapCommand,
  bubblewrapOverlayProbeArgs,
  bubblewrapProbeArgs,
  BUILD_WRAPPER,
  type HostView,
  parseProbeOutput,
} from "../../lib/sandbox/bubblewrap.ts";
import { HOME_SECRETS } from "../../lib/sandbox/home_secrets.ts";
import { planSandbox, type SandboxPlan } from "../../lib/sandbox/sandbox_plan.ts";
import { BWRAP, BWRAP_MISSING, bwrapTest } from "../support/sandbox.ts";

/** A probe that found nothing to hide. */
const NO_HOST: HostView = { hidden: [], boundBack: [], varRunIsFolder: false, secrets: [] };

const PLAN: SandboxPlan = {
  root: "/tmp/project",
  mountPoints: ["/tmp/project/src"],
  readOnly: [
    "/tmp/project/.git",
    "/tmp/project/.gitignore",
    "/tmp/project/build.sh",
    "/tmp/project/src/.gitignore",
  ],
  hidden: [
    { path: "/home/u/keys/gemini", isDirectory: false },
    { path: "/tmp/project/agent-config", isDirectory: true },
  ],
};

const HOST: HostView = {
  hidden: [
    { path: "/home/u/.ssh", isDirectory: true },
    { path: "/var/lib/lxd/unix.socket", isDirectory: false },
  ],
  boundBack: ["/home/u/.ssh/config", "/home/u/.ssh/known_hosts"],
  resolvConf: "/run/systemd/resolve/stub-resolv.conf",
  varRunIsFolder: false,
};

/** The index of the first `[flag, ...values]` run in `args`, or -1. */
function indexOf(args: readonly string[], ...run: string[]): number {
  for (let i = 0; i + run.length <= args.length; i++) {
    if (run.every((word, k) => args[i + k] === word)) return i;
  }
  return -1;
}

Deno.test("bubblewrapArgs: read-only system, fresh /proc, minimal /dev, private /tmp, empty /run", () => {
  const args = bubblewrapArgs(PLAN, "on");
  assert.equal(indexOf(args, "--ro-bind", "/", "/"), 0);
  for (
    const run of [["--dev", "/dev"], ["--proc", "/proc"], ["--tmpfs", "/tmp"], ["--tmpfs", "/run"]]
  ) {
    assert(indexOf(args, ...run) > 0, run.join(" "));
  }
  assert(indexOf(args, "--ro-bind-try", "/run/current-system", "/run/current-system") > 0, "NixOS");
  assert.equal(indexOf(args, "--tmpfs", "/var/run"), -1, "/var/run is a link to /run here");
  const separate = bubblewrapArgs(PLAN, "on", { ...HOST, varRunIsFolder: true });
  assert(indexOf(separate, "--tmpfs", "/var/run") > indexOf(separate, "--tmpfs", "/run"));
});

Deno.test("bubblewrapArgs: DNS's resolv.conf bound back into /run only with the network on", () => {
  const conf = "/run/systemd/resolve/stub-resolv.conf";
  const on = bubblewrapArgs(PLAN, "on", HOST);
  assert(indexOf(on, "--ro-bind-try", conf, conf) > indexOf(on, "--tmpfs", "/run"));
  assert.equal(indexOf(bubblewrapArgs(PLAN, "off", HOST), "--ro-bind-try", conf, conf), -1);
});

Deno.test("bubblewrapArgs: home sockets hidden, the rest of their folder bound back, then read-only", () => {
  const args = bubblewrapArgs(PLAN, "off", HOST);
  const tmpfs = indexOf(args, "--tmpfs", "/home/u/.ssh");
  const config = indexOf(args, "--ro-bind-try", "/home/u/.ssh/config", "/home/u/.ssh/config");
  const readOnly = indexOf(args, "--remount-ro", "/home/u/.ssh");
  assert(tmpfs > 0 && tmpfs < config && config < readOnly, args.join(" "));
  assert(indexOf(args, "--ro-bind", "/dev/null", "/var/lib/lxd/unix.socket") > 0);
  // A hidden folder that holds the project is left alone: the project could not be bound into it.
  const holding = bubblewrapArgs(PLAN, "off", {
    ...HOST,
    hidden: [{ path: "/tmp", isDirectory: true }],
  });
  assert.equal(indexOf(holding, "--remount-ro", "/tmp"), -1);
});

Deno.test("bubblewrapArgs: the project read-write after /tmp, mount points, read-only entries, hidden", () => {
  const args = bubblewrapArgs(PLAN, "on", HOST);
  const root = indexOf(args, "--bind", "/tmp/project", "/tmp/project");
  // A project under /tmp must be bound after the private /tmp, or it would vanish under it.
  assert(indexOf(args, "--tmpfs", "/tmp") < root);
  // The machine's hidden paths come last, over the project when it holds one (a project at ~).
  assert(
    indexOf(args, "--tmpfs", "/home/u/.ssh") >
      indexOf(args, "--tmpfs", "/tmp/project/agent-config"),
  );
  const mount = indexOf(args, "--bind", "/tmp/project/src", "/tmp/project/src");
  assert(mount > root);
  for (const path of PLAN.readOnly) {
    assert(indexOf(args, "--ro-bind", path, path) > mount, path);
  }
  const hiddenDir = indexOf(
    args,
    "--tmpfs",
    "/tmp/project/agent-config",
    "--remount-ro",
    "/tmp/project/agent-config",
  );
  assert(
    hiddenDir >
      indexOf(args, "--ro-bind", "/tmp/project/src/.gitignore", "/tmp/project/src/.gitignore"),
  );
  assert(indexOf(args, "--ro-bind", "/dev/null", "/home/u/keys/gemini") > root);
  assert.deepEqual(args.slice(-2), ["--chdir", "/tmp/project"]);
});

Deno.test("bubblewrapArgs: own PID, IPC, UTS and cgroup namespaces, dies with code-commit, no capabilities", () => {
  const args = bubblewrapArgs(PLAN, "on");
  for (
    const flag of [
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
      "--die-with-parent",
    ]
  ) {
    assert(args.includes(flag), flag);
  }
  assert(indexOf(args, "--cap-drop", "ALL") > 0);
  assert(!args.includes("--unshare-net"), "network on: the machine's network");
  assert(!args.includes("--new-session"), "the build stays in code-commit's process group");
  assert(!args.some((arg) => /^--(setenv|unsetenv|clearenv)$/.test(arg)), "the environment as is");
});

Deno.test("bubblewrapArgs: --build-network off adds its own network namespace", () => {
  const args = bubblewrapArgs(PLAN, "off");
  assert(args.includes("--unshare-net"));
  assert.equal(args.filter((arg) => arg === "--unshare-net").length, 1);
});

Deno.test("bubblewrapCommand: the arguments on stdin, then the shell that starts ./build.sh", () => {
  const args = bubblewrapArgs(PLAN, "on");
  const command = bubblewrapCommand(args);
  assert.deepEqual(command.args, ["--args", "0", "--", "/bin/sh", "-c", BUILD_WRAPPER, "sh"]);
  assert.equal(new TextDecoder().decode(command.stdin), args.map((arg) => `${arg}\0`).join(""));
});

Deno.test("the probe runs in the same namespaces as a build, and asks what exists", () => {
  for (const network of ["on", "off"] as const) {
    const probe = bubblewrapProbeArgs(network);
    const build = bubblewrapArgs(PLAN, network);
    const base = probe.slice(0, probe.indexOf("--"));
    assert.deepEqual(build.slice(0, base.length), base, network);
    assert.deepEqual(probe.slice(probe.indexOf("--"), probe.indexOf("--") + 3), [
      "--",
      "/bin/sh",
      "-c",
    ]);
    const secrets = HOME_SECRETS.map((secret) => secret.path);
    assert.deepEqual(probe.slice(-(secrets.length + 3)), ["--", ".docker", "--", ...secrets]);
    const overlay = bubblewrapOverlayProbeArgs(network, "/home/u");
    assert.deepEqual(overlay.slice(0, base.length), base, network);
    assert.deepEqual(overlay.slice(base.length), [
      "--overlay-src",
      "/home/u",
      "--tmp-overlay",
      "/home/u",
      "--",
      "/bin/true",
    ]);
  }
});

const HOME_PLAN: SandboxPlan = {
  root: "/home/u/src/project",
  mountPoints: [],
  readOnly: ["/home/u/src/project/.git"],
  hidden: [{ path: "/home/u/src/project/agent-config", isDirectory: true }],
};

Deno.test("bubblewrapArgs: the home folder throwaway before the project in it, credentials hidden last", () => {
  const host: HostView = {
    ...NO_HOST,
    home: "/home/u",
    homeEntries: ["/home/u/.cache", "/home/u/src", "/home/u/.aws"],
    secrets: [
      { path: "/home/u/.aws", isDirectory: true },
      { path: "/home/u/.netrc", isDirectory: false },
      { path: "/home/u/src/project/.ssh", isDirectory: true }, // the project holds a store
      { path: "/home/u/src", isDirectory: true }, // a store that holds the project: left alone
    ],
  };
  for (const overlay of [true, false]) {
    const args = bubblewrapArgs(HOME_PLAN, "on", { ...host, homeOverlay: overlay });
    const home = overlay
      ? indexOf(args, "--overlay-src", "/home/u", "--tmp-overlay", "/home/u")
      : indexOf(args, "--tmpfs", "/home/u");
    assert(home > indexOf(args, "--tmpfs", "/tmp"), `${overlay}`);
    if (!overlay) {
      assert(indexOf(args, "--ro-bind-try", "/home/u/.cache", "/home/u/.cache") > home);
      assert(indexOf(args, "--ro-bind-try", "/home/u/src", "/home/u/src") > home);
    } else assert.equal(indexOf(args, "--ro-bind-try", "/home/u/.cache", "/home/u/.cache"), -1);
    const root = indexOf(args, "--bind", HOME_PLAN.root, HOME_PLAN.root);
    assert(root > home && root > indexOf(args, "--ro-bind-try", "/home/u/src", "/home/u/src"));
    const hidden = indexOf(args, "--tmpfs", "/home/u/src/project/agent-config");
    const aws = indexOf(args, "--tmpfs", "/home/u/.aws", "--remount-ro", "/home/u/.aws");
    assert(aws > hidden, args.join(" "));
    assert(indexOf(args, "--ro-bind", "/dev/null", "/home/u/.netrc") > hidden);
    assert(indexOf(args, "--tmpfs", "/home/u/src/project/.ssh") > hidden);
    assert.equal(indexOf(args, "--tmpfs", "/home/u/src"), -1);
  }
  // Too many entries and no overlay: the home folder as it is (read-only), stores still hidden.
  const plain = bubblewrapArgs(HOME_PLAN, "on", { ...host, homeEntries: undefined });
  assert.equal(indexOf(plain, "--tmpfs", "/home/u"), -1);
  assert(indexOf(plain, "--tmpfs", "/home/u/.aws") > 0);
  // No home folder: nothing of it.
  assert.equal(indexOf(bubblewrapArgs(HOME_PLAN, "on", NO_HOST), "--tmpfs", "/home/u"), -1);
});

Deno.test("parseProbeOutput: what to hide, to bind back, and where resolv.conf leads", () => {
  assert.deepEqual(
    parseProbeOutput(
      [
        "f /var/lib/lxd/unix.socket",
        "noise",
        "r /run/systemd/resolve/stub-resolv.conf",
        "d /home/u/.ssh",
        "b /home/u/.ssh/config",
        "b /home/u/.ssh/cm/x", // not directly in a hidden folder
        "b /etc/passwd", // not in a hidden folder at all
        "d /home/u/.ssh/agent", // inside a hidden folder already
        "f /home/u/../etc/shadow", // no `..`
        "v",
        "",
      ].join("\0"),
    ),
    {
      hidden: [
        { path: "/var/lib/lxd/unix.socket", isDirectory: false },
        { path: "/home/u/.ssh", isDirectory: true },
      ],
      boundBack: ["/home/u/.ssh/config"],
      resolvConf: "/run/systemd/resolve/stub-resolv.conf",
      varRunIsFolder: true,
      secrets: [],
    },
  );
  assert.deepEqual(parseProbeOutput(""), NO_HOST);
  const home = parseProbeOutput(
    [
      "h /home/u",
      "e /home/u/.cache",
      "e /home/u/a/b", // not directly in the home folder
      "e /etc", // not in it at all
      "D /home/u/.ssh",
      "F /home/u/.docker/config.json",
      "F /home/u/.ssh/id_ed25519", // inside a hidden store already
      "D /", // never the whole machine
      "D /dev", // nor what every build needs
      "F /dev/null",
      "",
    ].join("\0"),
  );
  assert.equal(home.home, "/home/u");
  assert.deepEqual(home.homeEntries, ["/home/u/.cache"]);
  assert.deepEqual(home.secrets, [
    { path: "/home/u/.ssh", isDirectory: true },
    { path: "/home/u/.docker/config.json", isDirectory: false },
  ]);
  assert.equal(parseProbeOutput("h /home/u\0e /home/u/x\0E\0").homeEntries, undefined);
  assert.equal(parseProbeOutput("h /\0").home, undefined);
});

/** Leaves a Unix socket at each path (the file stays when the program that made it ends). */
export async function makeSockets(...paths: string[]): Promise<void> {
  const made = await new Deno.Command("python3", {
    args: [
      "-c",
      "import socket, sys\nfor p in sys.argv[1:]: socket.socket(socket.AF_UNIX).bind(p)",
      ...paths,
    ],
  }).output();
  assert(made.success, new TextDecoder().decode(made.stderr));
}

bwrapTest(
  "the real probe: sockets in ~/.docker hidden with the rest kept, ~/.ssh hidden whole",
  async () => {
    // Not under /tmp: the probe, like a build, has a /tmp of its own.
    const home = await Deno.realPath(
      await Deno.makeTempDir({ dir: "/var/tmp", prefix: "code-commit-home-" }),
    );
    try {
      await Deno.mkdir(join(home, ".docker/cm"), { recursive: true });
      await Deno.mkdir(join(home, ".docker/keys"), { recursive: true });
      await Deno.writeTextFile(join(home, ".docker/daemon.json"), "{}\n");
      await makeSockets(join(home, ".docker/master-x"), join(home, ".docker/cm/y"));
      await Deno.mkdir(join(home, ".ssh"));
      await Deno.writeTextFile(join(home, ".ssh/id_ed25519"), "KEY\n");
      await Deno.mkdir(join(home, "dotfiles/aws"), { recursive: true });
      await Deno.symlink(join(home, "dotfiles/aws"), join(home, ".aws"));
      await Deno.writeTextFile(join(home, ".netrc"), "machine x\n");
      const output = await new Deno.Command(BWRAP!, {
        args: bubblewrapProbeArgs("on"),
        env: { HOME: home, PATH: "/usr/bin:/bin" },
        clearEnv: true,
        stdout: "piped",
      }).output();
      assert(output.success);
      const view = parseProbeOutput(new TextDecoder().decode(output.stdout));
      assert.deepEqual(view.hidden.filter((entry) => entry.path.startsWith(home)), [
        { path: join(home, ".docker"), isDirectory: true },
      ]);
      assert.deepEqual([...view.boundBack].sort(), [
        join(home, ".docker/daemon.json"),
        join(home, ".docker/keys"),
      ]);
      // The credential stores where they lead, each that exists; `.aws` is a link: at its home
      // path too, where a build sees it when the home entry is bound back from its target.
      assert.deepEqual(view.secrets, [
        { path: join(home, ".ssh"), isDirectory: true },
        { path: join(home, "dotfiles/aws"), isDirectory: true },
        { path: join(home, ".aws"), isDirectory: true },
        { path: join(home, ".netrc"), isDirectory: false },
      ]);
      assert.equal(view.home, home);
      assert.deepEqual(
        [...view.homeEntries!].sort(),
        [
          ".aws",
          ".docker",
          ".netrc",
          ".ssh",
          "dotfiles",
        ].map((name) => join(home, name)),
      );
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
);

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
      const output = await asNobody(
        [...bubblewrapArgs(plan, "off"), "--", "/bin/sh", "-c", BUILD_WRAPPER, "sh"],
        root,
      );
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

/**
 * Runs {@link BUILD_WRAPPER} in a bubblewrap sandbox started from bash with
 * descriptors 4 and 12 open on files outside, `./build.sh` writing to both;
 * `hideBash` binds an empty file over bash.
 */
async function wrapperRun(
  hideBash: boolean,
): Promise<{ code: number; text: string; outside: string }> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "code-commit-wrapper-" }));
  try {
    await Deno.writeTextFile(
      join(dir, "build.sh"),
      "#!/bin/sh\n(echo low >&4) 2>/dev/null && echo 'fd 4 open' || echo 'fd 4 closed'\n" +
        "read line && echo \"stdin: $line\" || echo 'stdin: empty'\n",
    );
    await Deno.chmod(join(dir, "build.sh"), 0o755);
    const bash = hideBash ? ["--ro-bind", "/dev/null", "/usr/bin/bash"] : [];
    const output = await new Deno.Command("/bin/bash", {
      args: [
        "-c",
        'exec 4>>"$1/outside4" 12>>"$1/outside12"; shift; echo "on stdin" | exec "$@"',
        "bash",
        dir,
        BWRAP!,
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--bind",
        dir,
        dir,
        ...bash,
        "--chdir",
        dir,
        "--",
        "/bin/sh",
        "-c",
        BUILD_WRAPPER,
        "sh",
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    const outside = await Deno.readTextFile(join(dir, "outside4")).catch(() => "");
    return {
      code: output.code,
      text: decoder.decode(output.stdout) + decoder.decode(output.stderr),
      outside,
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

bwrapTest(
  "the wrapper closes inherited descriptors (above 9 through bash) and empties stdin",
  async () => {
    const run = await wrapperRun(false);
    assert.equal(run.code, 0, run.text);
    assert.equal(run.text, "fd 4 closed\nstdin: empty\n");
    assert.equal(run.outside, "");
  },
);

bwrapTest(
  "the wrapper without bash and with a descriptor above 9 open: the build does not start",
  async () => {
    const run = await wrapperRun(true);
    assert.equal(run.code, 126, run.text);
    // 12, and whatever else the test runner itself left open above 9.
    assert.match(
      run.text,
      /^code-commit: cannot close the file descriptors( \d+)* 12( \d+)* before \.\/build\.sh \(no \/bin\/bash in the sandbox\)\n$/,
    );
  },
);

bwrapTest("the real probe: HOME=/ gives no home folder; HOME unset, the account's", async () => {
  const probe = async (env: Record<string, string>) => {
    const output = await new Deno.Command(BWRAP!, {
      args: bubblewrapProbeArgs("on"),
      env: { PATH: "/usr/bin:/bin", ...env },
      clearEnv: true,
      stdout: "piped",
    }).output();
    assert(output.success);
    return parseProbeOutput(new TextDecoder().decode(output.stdout));
  };
  const root = await probe({ HOME: "/" });
  assert.equal(root.home, undefined);
  assert.deepEqual(bubblewrapArgs(PLAN, "on", root).filter((arg) => arg.includes("overlay")), []);
  const account = await new Deno.Command("sh", {
    args: ["-c", 'getent passwd "$(id -u)" | cut -d: -f6'],
    stdout: "piped",
  }).output();
  const home = new TextDecoder().decode(account.stdout).trim();
  const unset = await probe({});
  if (home !== "" && home !== "/") {
    assert.equal(unset.home, await Deno.realPath(home));
  } else assert.equal(unset.home, undefined);
});

bwrapTest(
  "the real probe: a name in the home folder cannot add lines (escapes, new lines)",
  async () => {
    const home = await Deno.realPath(
      await Deno.makeTempDir({ dir: "/var/tmp", prefix: "code-commit-home-" }),
    );
    try {
      // What a build would like to read: a project's key, hidden from it by the plan.
      const victim = join(home, "project/agent-config");
      await Deno.mkdir(victim, { recursive: true });
      await Deno.writeTextFile(join(victim, "gemini-key.txt"), "KEY\n");
      // A home entry whose name dash's `echo` would turn into new lines and slashes.
      const octal = (text: string) => text.replaceAll("/", "\\057");
      await Deno.writeTextFile(
        join(home, `x\\nd ${octal(victim)}\\nb ${octal(`${victim}/gemini-key.txt`)}`),
        "",
      );
      // A credential store leading into folders whose names hold real new lines.
      const path = `${home}/a\nd /${victim.slice(1)}\nb /${victim.slice(1)}/gemini-key.txt`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(path, "");
      await Deno.symlink(path, join(home, ".netrc"));
      const output = await new Deno.Command(BWRAP!, {
        args: bubblewrapProbeArgs("on"),
        env: { HOME: home, PATH: "/usr/bin:/bin" },
        clearEnv: true,
        stdout: "piped",
      }).output();
      assert(output.success);
      const view = parseProbeOutput(new TextDecoder().decode(output.stdout));
      assert.deepEqual(view.boundBack, []);
      assert.deepEqual(view.hidden.filter((entry) => entry.path.startsWith(home)), []);
      assert.deepEqual(view.secrets, [
        { path, isDirectory: false },
        { path: join(home, ".netrc"), isDirectory: false },
      ]);
      assert.equal(view.home, home);
      assert.equal(view.homeEntries?.length, 4);
      assert.equal(
        bubblewrapArgs(PLAN, "on", view).some((arg) => arg.startsWith(victim)),
        false,
      );
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
);

Deno.test("bubblewrapArgs: nothing of the host bound back over what the plan hides", () => {
  const host: HostView = {
    ...NO_HOST,
    hidden: [
      { path: "/tmp/project/agent-config", isDirectory: true },
      { path: "/home/u/keys", isDirectory: true },
      { path: "/home/u/.docker", isDirectory: true },
    ],
    boundBack: [
      "/tmp/project/agent-config/gemini-key.txt",
      "/home/u/keys/gemini",
      "/home/u/.docker/config.json",
    ],
  };
  const args = bubblewrapArgs(PLAN, "on", host);
  const bound = args.flatMap((arg, i) => arg === "--ro-bind-try" ? [args[i + 1]] : []);
  assert.deepEqual(bound.filter((path) => !path.startsWith("/run/") && path !== "/proc/sys"), [
    "/home/u/.docker/config.json",
  ]);
});

// The home folder's credential stores: the table docs/sandbox.md prints is the code's, row for
// row, and so is its protected-path table's build column.
