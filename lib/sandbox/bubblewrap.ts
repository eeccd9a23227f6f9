/**
 * The bubblewrap (`bwrap`) command line of a contained build on Linux, and
 * the probe that tells whether bubblewrap works here. Pure functions: the
 * argument lists are covered by logic tests, the sandbox itself by real
 * builds (tests/e2e/sandbox_test.ts).
 *
 * The arguments work for a user without privileges (bubblewrap then makes
 * an unprivileged user namespace) and for root (where `--cap-drop ALL`
 * matters: root keeping its capabilities could remount `/` read-write, or
 * unmount the empty folder over `agent-config/`).
 *
 * @module
 */
import { BUILD_SCRIPT } from "../build/run_build.ts";
import type { HiddenPath, SandboxPlan } from "./plan.ts";

/** The program, looked up on `PATH` (Deno's `--allow-run=bwrap` resolves it when the tool starts). */
export const BWRAP = "bwrap";

/** Whether a contained build reaches the network. */
export type BuildNetwork = "on" | "off";

/**
 * Services of the machine a build must not reach, hidden when they exist:
 * through them a build could start a process outside the sandbox that
 * outlives it (`systemd-run --user`, Docker), use the user's SSH or GPG
 * agent, or type into a `screen` session. Private `/tmp` hides the ones
 * kept there (tmux, X11, most ssh-agent sockets).
 */
const HOST_SERVICE_PATHS: readonly string[] = [
  "/run/user", // each user's D-Bus session bus, systemd --user, ssh-agent, gpg-agent, keyrings
  "/run/dbus", // the system D-Bus
  "/run/systemd/private", // systemd's own socket
  "/run/docker.sock",
  "/run/docker",
  "/run/containerd",
  "/run/podman",
  "/run/screen",
  "/run/snapd.socket",
  "/run/snapd-snap.socket",
];

/** The file system and process set-up every contained build shares (and the probe tests). */
function baseArgs(network: BuildNetwork): string[] {
  return [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--unshare-pid",
    ...(network === "off" ? ["--unshare-net"] : []),
    "--die-with-parent",
    "--cap-drop",
    "ALL",
  ];
}

/** Hides each path: an empty read-only folder over a folder, an empty file over anything else. */
function hideArgs(paths: readonly HiddenPath[]): string[] {
  return paths.flatMap((hidden) =>
    hidden.isDirectory
      ? ["--tmpfs", hidden.path, "--remount-ro", hidden.path]
      : ["--ro-bind", "/dev/null", hidden.path]
  );
}

/**
 * The arguments of `bwrap` that run `./build.sh` contained by `plan`:
 * - the whole file system read-only, with a fresh `/proc`, a minimal `/dev`,
 *   a private `/tmp`, and the machine's services (`hostServices`, those of
 *   {@link HOST_SERVICE_PATHS} that exist) hidden;
 * - the project root read-write at its own path, then its read-only entries
 *   bound read-only over themselves, then its hidden ones hidden;
 * - its own PID namespace (when `./build.sh` ends, every process it started
 *   ends with it, daemons included), ended when code-commit ends
 *   (`--die-with-parent`), no capabilities, and with `network` off its own
 *   network namespace (no network at all, not even loopback);
 * - the environment as it is (bubblewrap passes it on).
 *
 * Never throws.
 */
export function bubblewrapArgs(
  plan: SandboxPlan,
  network: BuildNetwork,
  hostServices: readonly HiddenPath[] = [],
): string[] {
  return [
    ...baseArgs(network),
    ...hideArgs(hostServices),
    "--bind",
    plan.root,
    plan.root,
    ...plan.readOnly.flatMap((path) => ["--ro-bind", path, path]),
    ...hideArgs(plan.hidden),
    "--chdir",
    plan.root,
    "--",
    BUILD_SCRIPT,
  ];
}

/** Marks each line of the probe's answer: a folder or another kind of entry. */
const PROBE_SCRIPT =
  'for p do if [ -d "$p" ]; then echo "d $p"; elif [ -e "$p" ] || [ -S "$p" ]; ' +
  'then echo "f $p"; fi; done';

/**
 * The arguments of `bwrap` for the probe run before the first build: the
 * same sandbox as a build's (so it fails where a build would), running `sh`
 * to report which of {@link HOST_SERVICE_PATHS} exist. Never throws.
 */
export function bubblewrapProbeArgs(network: BuildNetwork): string[] {
  return [...baseArgs(network), "--", "sh", "-c", PROBE_SCRIPT, "sh", ...HOST_SERVICE_PATHS];
}

/**
 * Reads the probe's output: the service paths that exist, each at most
 * once, without those inside another one listed (hiding `/run/user` hides
 * what is in it). Lines that are not the probe's are ignored. Never throws.
 */
export function parseProbeOutput(output: string): HiddenPath[] {
  const found: HiddenPath[] = [];
  for (const line of output.split("\n")) {
    const match = /^([df]) (\/.*)$/.exec(line);
    if (match === null || !HOST_SERVICE_PATHS.includes(match[2])) continue;
    found.push({ path: match[2], isDirectory: match[1] === "d" });
  }
  return found.filter((entry) =>
    !found.some((other) =>
      other.isDirectory && other !== entry && entry.path.startsWith(`${other.path}/`)
    )
  );
}
