/**
 * The bubblewrap (`bwrap`) command line of a contained build on Linux, and
 * the probe that tells whether bubblewrap works here and what of the
 * machine a build must not reach. Pure functions: the argument lists are
 * covered by logic tests, the sandbox itself by real builds
 * (tests/e2e/sandbox_test.ts).
 *
 * The arguments work for a user without privileges (bubblewrap then makes
 * an unprivileged user namespace) and for root (where `--cap-drop ALL`
 * matters: root keeping its capabilities could remount `/` read-write, or
 * unmount the empty folder over `agent-config/`).
 *
 * @module
 */
import { BUILD_SCRIPT } from "../build/run_build.ts";
import type { BuildNetwork } from "./modes.ts";
import { HOME_SECRETS } from "./home_secrets.ts";
import { type HiddenPath, isInside, type SandboxPlan } from "./sandbox_plan.ts";

export type { BuildNetwork } from "./modes.ts";

/**
 * Sockets of the machine outside `/run`, `/var/run` and `/tmp` (which get
 * empty folders of their own) that a build must not reach, hidden when
 * they exist: through them a build could start a container or a process
 * outside the sandbox.
 */
const HOST_SERVICE_PATHS: readonly string[] = [
  "/var/snap/lxd/common/lxd/unix.socket",
  "/var/lib/lxd/unix.socket",
  "/var/lib/incus/unix.socket",
];

/**
 * Folders of the home folder where programs keep sockets a build must not
 * reach: Docker Desktop's socket. When one holds a socket, it gets an empty
 * folder, and what in it is not a socket (nor a folder holding one) is
 * bound back, read-only. (`~/.ssh` and `~/.gnupg`, with ssh's and
 * gpg-agent's sockets, are hidden whole: see `home_secrets.ts`.)
 */
const HOME_SOCKET_FOLDERS: readonly string[] = [".docker"];

/**
 * At most this many entries of the home folder are bound back into a fresh
 * one when bubblewrap cannot lay an overlay over it (each is a mount, and
 * bubblewrap's setup time grows with them); with more, the home folder
 * stays as it is, read-only.
 */
const MAX_HOME_ENTRIES = 200;

/**
 * What of `/run` a build gets back in its empty `/run`: NixOS keeps the
 * system's programs there (`/run/current-system/sw/bin` is on `PATH`). Each
 * is bound read-only when it exists.
 */
const RUN_KEPT: readonly string[] = [
  "/run/current-system",
  "/run/booted-system",
  "/run/wrappers",
  "/run/opengl-driver",
  "/run/opengl-driver-32",
];

/** What the probe found on this machine. */
export interface HostView {
  /** Paths to hide: a folder gets an empty folder, anything else an empty file. */
  readonly hidden: readonly HiddenPath[];
  /** Entries of hidden home folders to bind back read-only (no socket in them). */
  readonly boundBack: readonly string[];
  /** Where `/etc/resolv.conf` leads, when that is under `/run` (bound back with the network on). */
  readonly resolvConf?: string;
  /** Whether `/var/run` is a folder of its own rather than a link to `/run`. */
  readonly varRunIsFolder: boolean;
  /**
   * The credential stores of the home folder that exist (`home_secrets.ts`),
   * where they lead: hidden after every other mount.
   */
  readonly secrets?: readonly HiddenPath[];
  /** The home folder, links resolved, when `HOME` names one other than `/`. */
  readonly home?: string;
  /**
   * Its entries (absolute paths), to bind back read-only into a fresh home
   * folder when bubblewrap has no overlay; undefined when there are more
   * than {@link MAX_HOME_ENTRIES}.
   */
  readonly homeEntries?: readonly string[];
  /** Whether bubblewrap can lay a throwaway overlay over the home folder (0.9 and later). */
  readonly homeOverlay?: boolean;
}

/** A host view with nothing found (no probe ran, or nothing there). */
const EMPTY_HOST_VIEW: HostView = { hidden: [], boundBack: [], varRunIsFolder: false };

/** Namespaces and limits every contained build shares with the probe (so it fails where a build would). */
function namespaceArgs(network: BuildNetwork): string[] {
  return [
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(network === "off" ? ["--unshare-net"] : []),
    "--die-with-parent",
    "--cap-drop",
    "ALL",
  ];
}

/** The file system every contained build starts from, and the probe too. */
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
    ...namespaceArgs(network),
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
 * Hides what the probe found (`host`): empty folders and files, what is
 * bound back into them, then the folders made read-only; last the home
 * folder's credential stores, over anything bound before (a store inside
 * the project too, when the project is the home folder). A folder that
 * holds the project is left alone (the project could not be bound into it).
 * Nothing is bound back that holds the project, or holds or lies in what
 * the plan hides (`planHidden`): coming after them, it would lay the host's
 * copy over them, the keys of `agent-config/` included.
 */
function hostArgs(host: HostView, root: string, planHidden: readonly HiddenPath[]): string[] {
  const hidden = host.hidden.filter((entry) => !isInside(root, entry.path));
  const folders = hidden.filter((entry) => entry.isDirectory).map((entry) => entry.path);
  const secrets = (host.secrets ?? []).filter((entry) => !isInside(root, entry.path));
  const boundBack = host.boundBack.filter((path) =>
    folders.some((folder) => path.startsWith(`${folder}/`)) && !isInside(root, path) &&
    !planHidden.some((entry) => isInside(path, entry.path) || isInside(entry.path, path))
  );
  return [
    ...hidden.flatMap((entry) =>
      entry.isDirectory ? ["--tmpfs", entry.path] : ["--ro-bind", "/dev/null", entry.path]
    ),
    ...boundBack.flatMap((path) => ["--ro-bind-try", path, path]),
    ...folders.flatMap((folder) => ["--remount-ro", folder]),
    ...hideArgs(secrets),
  ];
}

/**
 * The home folder as a build sees it: the user's own seen through a
 * throwaway overlay (writes land in memory and vanish when the build ends)
 * where bubblewrap can make one; else a fresh, writable folder with every
 * entry of the user's bound back read-only (new files and folders can be
 * written, and vanish; the existing ones cannot); with too many entries, or
 * no home folder (`HOME` unset, or `/`), nothing: it stays read-only like
 * the rest of the machine. The project, which may live in the home folder,
 * is bound over it afterwards.
 */
function homeArgs(host: HostView): string[] {
  if (host.home === undefined) return [];
  if (host.homeOverlay) return ["--overlay-src", host.home, "--tmp-overlay", host.home];
  if (host.homeEntries === undefined) return [];
  return [
    "--tmpfs",
    host.home,
    ...host.homeEntries.flatMap((path) => ["--ro-bind-try", path, path]),
  ];
}

/** `/run` (and a separate `/var/run`) empty, with what builds need from them bound back. */
function runArgs(host: HostView, network: BuildNetwork): string[] {
  const args = ["--tmpfs", "/run", "--symlink", "/dev/shm", "/run/shm"];
  if (host.varRunIsFolder) args.push("--tmpfs", "/var/run");
  for (const path of RUN_KEPT) args.push("--ro-bind-try", path, path);
  if (network === "on" && host.resolvConf !== undefined) {
    args.push("--ro-bind-try", host.resolvConf, host.resolvConf);
  }
  return args;
}

/**
 * The shell that starts `./build.sh` inside the sandbox: it closes every
 * file descriptor above 2 that code-commit was started with (a wrapper
 * script's `exec 7>>~/somewhere` would otherwise let the build write
 * through it, outside the project), gives the build an empty stdin (the
 * sandbox's own arguments came on it), then runs `./build.sh` in its place.
 * A POSIX `sh` closes descriptors 3 to 9 only; above, bash does it, and
 * without bash the build does not start.
 */
export const BUILD_WRAPPER = [
  "exec </dev/null",
  'd=/proc/self/fd; [ -d "$d" ] || d=/dev/fd',
  "high=",
  'for f in "$d"/*; do n=${f##*/}; case $n in 0|1|2) ;; [3-9]) eval "exec $n>&-" ;; ' +
  '*[!0-9]*) ;; *) [ -e "$f" ] && high="$high $n" ;; esac; done',
  'if [ -n "$high" ]; then',
  "  if [ -x /bin/bash ]; then",
  `    exec /bin/bash -c 'for f in "$0"/*; do n=\${f##*/}; [ "$n" -gt 2 ] 2>/dev/null && ` +
  `eval "exec $n>&-"; done; exec ${BUILD_SCRIPT}' "$d"`,
  "  fi",
  '  echo "code-commit: cannot close the file descriptors$high before ' +
  `${BUILD_SCRIPT} (no /bin/bash in the sandbox)" >&2`,
  "  exit 126",
  "fi",
  `exec ${BUILD_SCRIPT}`,
].join("\n");

/**
 * The arguments of `bwrap` (before the command) that contain a build of
 * `plan`:
 * - the whole file system read-only, with a fresh `/proc`, a minimal `/dev`,
 *   a private `/tmp`, an empty `/run` (and `/var/run`) with only what DNS
 *   and NixOS need bound back, and the machine's sockets the probe found
 *   (`host`) hidden;
 * - the home folder throwaway (see `homeArgs`), before the project, which
 *   may live in it;
 * - the project root read-write at its own path; the folders above its
 *   read-only entries made mount points (so none can be renamed away);
 *   then its read-only entries bound read-only over themselves, then its
 *   hidden ones hidden;
 * - then the machine's sockets and the home folder's credential stores
 *   (`home_secrets.ts`) hidden, over everything before them;
 * - its own PID, IPC, UTS and (where possible) cgroup namespaces: when
 *   `./build.sh` ends, every process it started ends with it, daemons
 *   included; ended when code-commit ends (`--die-with-parent`); no
 *   capabilities; with `network` off its own network namespace (no network
 *   at all, not even loopback);
 * - the environment as it is (bubblewrap passes it on).
 *
 * They are many for a large project: code-commit passes them on bwrap's
 * stdin (`--args 0`), see {@link bubblewrapCommand}. Never throws.
 */
export function bubblewrapArgs(
  plan: SandboxPlan,
  network: BuildNetwork,
  host: HostView = EMPTY_HOST_VIEW,
): string[] {
  return [
    ...baseArgs(network),
    ...runArgs(host, network),
    ...homeArgs(host),
    "--bind",
    plan.root,
    plan.root,
    ...plan.mountPoints.flatMap((path) => ["--bind", path, path]),
    ...plan.readOnly.flatMap((path) => ["--ro-bind", path, path]),
    ...hideArgs(plan.hidden),
    ...hostArgs(host, plan.root, plan.hidden),
    "--chdir",
    plan.root,
  ];
}

/** A `bwrap` command line: its arguments, and the bytes for its stdin. */
export interface BubblewrapCommand {
  /** The arguments `bwrap` is started with. */
  readonly args: readonly string[];
  /** The sandbox's arguments, NUL-separated, read by bwrap from its stdin (`--args 0`). */
  readonly stdin: Uint8Array;
}

/**
 * The command that runs `./build.sh` in the sandbox `args`
 * ({@link bubblewrapArgs}): the arguments go on stdin, so no command line
 * grows with the project, and the build starts through
 * {@link BUILD_WRAPPER}. Never throws.
 */
export function bubblewrapCommand(args: readonly string[]): BubblewrapCommand {
  return {
    args: ["--args", "0", "--", "/bin/sh", "-c", BUILD_WRAPPER, "sh"],
    stdin: new TextEncoder().encode(args.map((arg) => `${arg}\0`).join("")),
  };
}

/**
 * What the probe reports, one record each, ended by a NUL byte (the one
 * byte no path holds: a name with a new line, or with the backslash
 * escapes dash's `echo` would turn into new lines and slashes, could
 * otherwise add records, such as one binding a hidden key file back):
 * `d PATH` or `f PATH` to hide a
 * folder or anything else, `b PATH` to bind back, `r PATH` where
 * `/etc/resolv.conf` leads, `v` when `/var/run` is a folder of its own,
 * `D PATH` or `F PATH` for a credential store of the home folder (where it
 * leads, and, when a link leads there, at its home path too: a home entry
 * that is a link, bound back from where it leads, would show the store
 * there), `h PATH` for the home folder (links resolved; none for `/`),
 * `e PATH` for each of its entries, and `E` when they are too many.
 * Its arguments: the service paths, `--`, the home's socket folders, `--`,
 * the credential stores. Without `HOME`, the home folder is the account's.
 */
const PROBE_SCRIPT = `
say() { printf '%s\\0' "$*"; }
for p do
  shift
  [ "$p" = -- ] && break
  if [ -d "$p" ]; then say d "$p"; elif [ -e "$p" ] || [ -S "$p" ]; then say f "$p"; fi
done
r=$(readlink -f /etc/resolv.conf 2>/dev/null) && case $r in /run/*|/var/run/*) say r "$r" ;; esac
[ -d /var/run ] && [ ! -L /var/run ] && say v
sockets() { [ -n "$(find "$1" -maxdepth 3 -type s 2>/dev/null | head -n 1)" ]; }
[ -n "$HOME" ] || HOME=$(getent passwd "$(id -u)" 2>/dev/null | cut -d: -f6)
case $HOME in /*) ;; *) exit 0 ;; esac
H=\${HOME%/}
for h do
  shift
  [ "$h" = -- ] && break
  [ -n "$H" ] || continue
  h=$H/$h
  [ -d "$h" ] && [ ! -L "$h" ] && sockets "$h" || continue
  say d "$h"
  for e in "$h"/* "$h"/.[!.]* "$h"/..?*; do
    [ -e "$e" ] || [ -L "$e" ] || continue
    [ -S "$e" ] && continue
    [ -d "$e" ] && sockets "$e" && continue
    say b "$e"
  done
done
for c do
  p=$(readlink -f -- "$H/$c" 2>/dev/null) || continue
  if [ -d "$p" ]; then k=D; elif [ -e "$p" ]; then k=F; else continue; fi
  say $k "$p"
  [ "$H/$c" = "$p" ] || say $k "$H/$c"
done
if [ -n "$H" ] && home=$(readlink -f -- "$H" 2>/dev/null) && [ "$home" != / ] && [ -d "$home" ]; then
  say h "$home"
  n=0
  for e in "$home"/* "$home"/.[!.]* "$home"/..?*; do
    [ -e "$e" ] || [ -L "$e" ] || continue
    n=$((n + 1))
    if [ $n -gt ${MAX_HOME_ENTRIES} ]; then say E; break; fi
    say e "$e"
  done
fi
s=$SSH_AUTH_SOCK
if [ -S "$s" ]; then
  case $s in "$HOME"/*/*) say d "\${s%/*}" ;; "$HOME"/*) say f "$s" ;; esac
fi
`;

/**
 * The arguments of `bwrap` for the probe run before the first build: the
 * same namespaces as a build's (so it fails where a build would), running
 * `sh` to report what of the machine a build must not reach (see
 * {@link parseProbeOutput}). Never throws.
 */
export function bubblewrapProbeArgs(network: BuildNetwork): string[] {
  return [
    ...baseArgs(network),
    "--",
    "/bin/sh",
    "-c",
    PROBE_SCRIPT,
    "sh",
    ...HOST_SERVICE_PATHS,
    "--",
    ...HOME_SOCKET_FOLDERS,
    "--",
    ...HOME_SECRETS.map((secret) => secret.path),
  ];
}

/**
 * The arguments of `bwrap` that try, once after the probe, whether it can
 * lay a throwaway overlay over the home folder `home` (bubblewrap 0.9 and
 * later, on a kernel that allows it): the build's namespaces, running
 * `/bin/true`. Never throws.
 */
export function bubblewrapOverlayProbeArgs(network: BuildNetwork, home: string): string[] {
  return [
    ...baseArgs(network),
    "--overlay-src",
    home,
    "--tmp-overlay",
    home,
    "--",
    "/bin/true",
  ];
}

/**
 * Reads the probe's output (see `PROBE_SCRIPT`: NUL-ended records, a path
 * may hold new lines): what to hide, each path
 * at most once and none inside a folder hidden already; what to bind back,
 * only inside a hidden folder; where `/etc/resolv.conf` leads under `/run`.
 * Records that are not the probe's are ignored. Never throws.
 */
export function parseProbeOutput(output: string): HostView {
  const hidden: HiddenPath[] = [];
  const boundBack: string[] = [];
  const secrets: HiddenPath[] = [];
  const homeEntries: string[] = [];
  let resolvConf: string | undefined;
  let varRunIsFolder = false;
  let home: string | undefined;
  let tooManyEntries = false;
  for (const line of output.split("\0")) {
    if (line === "v") varRunIsFolder = true;
    if (line === "E") tooManyEntries = true;
    const match = /^([dfbrDFhe]) (\/[^]*)$/.exec(line);
    if (match === null || match[2].split("/").includes("..")) continue;
    const [, kind, path] = match;
    if (kind === "r") resolvConf = path;
    else if (kind === "b") boundBack.push(path);
    else if (kind === "h") home ??= path;
    else if (kind === "e") homeEntries.push(path);
    else if (kind === "D" || kind === "F") {
      // Never the whole machine, nor what every build needs (a store that is a link to `/dev`).
      const system = path === "/" || /^\/(dev|proc)(\/|$)/.test(path);
      if (!system && !secrets.some((entry) => entry.path === path)) {
        secrets.push({ path, isDirectory: kind === "D" });
      }
    } else if (!hidden.some((entry) => entry.path === path)) {
      hidden.push({ path, isDirectory: kind === "d" });
    }
  }
  const inside = (path: string, folder: HiddenPath) =>
    folder.isDirectory && path.startsWith(`${folder.path}/`);
  return {
    hidden: hidden.filter((entry) => !hidden.some((other) => inside(entry.path, other))),
    boundBack: boundBack.filter((path) =>
      hidden.some((folder) =>
        inside(path, folder) && !path.slice(folder.path.length + 1).includes("/")
      )
    ),
    ...(resolvConf === undefined ? {} : { resolvConf }),
    varRunIsFolder,
    // None inside another: a folder hidden read-only has no room for a mount point.
    secrets: secrets.filter((entry) => !secrets.some((other) => inside(entry.path, other))),
    ...(home === undefined || home === "/" ? {} : {
      home,
      ...(tooManyEntries ? {} : {
        homeEntries: homeEntries.filter((path) =>
          path.startsWith(`${home}/`) && !path.slice(home.length + 1).includes("/")
        ),
      }),
    }),
  };
}
