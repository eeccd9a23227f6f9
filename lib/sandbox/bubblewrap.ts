/**
 * The bubblewrap (`bwrap`) command line of a contained build on Linux, and the probe that finds
 * what of the machine a build must not reach. For root too, where `--cap-drop ALL` matters: root
 * with its capabilities could remount `/` read-write or unmount what hides `agent-config/`.
 *
 * @module
 */
import { BUILD_SCRIPT } from "../build/run_build.ts";
import type { BuildNetwork } from "./modes.ts";
import { HOME_SECRETS } from "./home_secrets.ts";
import { type HiddenPath, isInside, type SandboxPlan } from "./sandbox_plan.ts";

/** Sockets outside `/run`, `/var/run`, `/tmp` through which a build could escape the sandbox. */
const HOST_SERVICE_PATHS = [
  "/var/snap/lxd/common/lxd/unix.socket",
  "/var/lib/lxd/unix.socket",
  "/var/lib/incus/unix.socket",
];

/** Home folders that may hold sockets (Docker Desktop's): hidden, their other entries bound back. */
const HOME_SOCKET_FOLDERS = [".docker"];

/** Most home entries bound back into a fresh home without an overlay (each is a slow mount). */
const MAX_HOME_ENTRIES = 200;

/** What of `/run` a build gets back, read-only: NixOS keeps the system's programs there. */
const RUN_KEPT = [
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
  /** Where `/etc/resolv.conf` leads, when under `/run` (bound back with the network on). */
  readonly resolvConf?: string;
  /** Whether `/var/run` is a folder of its own rather than a link to `/run`. */
  readonly varRunIsFolder: boolean;
  /** The home folder's credential stores that exist, where they lead: hidden after every other mount. */
  readonly secrets?: readonly HiddenPath[];
  /** The home folder, links resolved, when `HOME` names one other than `/`. */
  readonly home?: string;
  /** Its entries, to bind back read-only into a fresh home; undefined when too many. */
  readonly homeEntries?: readonly string[];
  /** Whether bubblewrap can lay a throwaway overlay over the home folder (0.9 and later). */
  readonly homeOverlay?: boolean;
}

/**
 * The system read-only with a fresh `/proc`, a minimal `/dev` and a private `/tmp`. bwrap leaves
 * `/proc/sys` writable to root (a build run as root could set `kernel.core_pattern` and run a
 * program outside the sandbox): it is bound read-only over itself.
 */
const SYSTEM_ARGS = [
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  "--ro-bind-try",
  "/proc/sys",
  "/proc/sys",
  "--tmpfs",
  "/tmp",
];

/** Own PID, IPC, UTS and cgroup namespaces: every process of the build ends with it. */
const NAMESPACE_ARGS = ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"];

/** The file system and namespaces of every contained build, and the probe's (so it fails where a build would). */
function baseArgs(network: BuildNetwork): string[] {
  const net = network === "off" ? ["--unshare-net"] : [];
  return [...SYSTEM_ARGS, ...NAMESPACE_ARGS, ...net, "--die-with-parent", "--cap-drop", "ALL"];
}

function bindBack(path: string): string[] {
  return ["--ro-bind-try", path, path];
}

/** Hides each path: an empty folder (read-only unless `remount` is false) or an empty file. */
function hideArgs(paths: readonly HiddenPath[], remount = true): string[] {
  return paths.flatMap((hidden) =>
    !hidden.isDirectory
      ? ["--ro-bind", "/dev/null", hidden.path]
      : ["--tmpfs", hidden.path, ...remount ? ["--remount-ro", hidden.path] : []]
  );
}

/**
 * Hides what the probe found, binds back into hidden folders, hides the credential stores last.
 * Nothing holding the project is hidden, and nothing is bound back that holds the project or
 * holds or lies in what the plan hides: it would lay the host's copy over `agent-config/`'s keys.
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
    ...hideArgs(hidden, false),
    ...boundBack.flatMap(bindBack),
    ...folders.flatMap((folder) => ["--remount-ro", folder]),
    ...hideArgs(secrets),
  ];
}

/** The home folder: a throwaway overlay, else a fresh folder with its entries bound back read-only. */
function homeArgs(host: HostView): string[] {
  if (host.home === undefined) return [];
  if (host.homeOverlay) return ["--overlay-src", host.home, "--tmp-overlay", host.home];
  if (host.homeEntries === undefined) return [];
  return ["--tmpfs", host.home, ...host.homeEntries.flatMap(bindBack)];
}

/** `/run` (and a separate `/var/run`) empty, with what builds need from them bound back. */
function runArgs(host: HostView, network: BuildNetwork): string[] {
  const args = ["--tmpfs", "/run", "--symlink", "/dev/shm", "/run/shm"];
  if (host.varRunIsFolder) args.push("--tmpfs", "/var/run");
  const resolvConf = network === "on" && host.resolvConf !== undefined ? [host.resolvConf] : [];
  return [...args, ...[...RUN_KEPT, ...resolvConf].flatMap(bindBack)];
}

/**
 * The shell that starts `./build.sh` in the sandbox: it closes every descriptor above 2 that
 * code-commit inherited (a wrapper's `exec 7>>~/x` would let the build write outside the project)
 * and gives the build an empty stdin. `sh` closes 3 to 9 only; bash does the rest, or no build.
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
 * The arguments of `bwrap` that contain a build of `plan`, in order, each over the ones before: the
 * system, `/run`, home; the project, its mount points, read-only then hidden entries; the
 * machine's sockets and the credential stores last. Never throws.
 */
export function bubblewrapArgs(
  plan: SandboxPlan,
  network: BuildNetwork,
  host: HostView = { hidden: [], boundBack: [], varRunIsFolder: false },
): string[] {
  return [
    ...baseArgs(network),
    ...runArgs(host, network),
    ...homeArgs(host),
    ...[plan.root, ...plan.mountPoints].flatMap((path) => ["--bind", path, path]),
    ...plan.readOnly.flatMap((path) => ["--ro-bind", path, path]),
    ...hideArgs(plan.hidden),
    ...hostArgs(host, plan.root, plan.hidden),
    "--chdir",
    plan.root,
  ];
}

/**
 * The command that runs `./build.sh` in the sandbox `args`: they go on bwrap's stdin
 * (`--args 0`), so no command line grows with the project. Never throws.
 */
export function bubblewrapCommand(args: readonly string[]): { args: string[]; stdin: Uint8Array } {
  return {
    args: ["--args", "0", "--", "/bin/sh", "-c", BUILD_WRAPPER, "sh"],
    stdin: new TextEncoder().encode(args.map((arg) => `${arg}\0`).join("")),
  };
}

/**
 * Reports what a build must not reach, one NUL-ended record each (NUL is the one byte no path
 * holds: a name with a new line could otherwise add a record binding a key file back):
 * `d`/`f PATH` to hide a folder or anything else, `b PATH` to bind back, `r PATH` where
 * resolv.conf leads, `v` for a separate `/var/run`, `D`/`F PATH` for a credential store (where it
 * leads, and its home path when that is a link), `h PATH` the home folder, `e PATH` each of its
 * entries, `E` when too many. Arguments: service paths, `--`, home socket folders, `--`, stores.
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

/** The arguments of `bwrap` for the probe run before the first build, with a build's namespaces. Never throws. */
export function bubblewrapProbeArgs(network: BuildNetwork): string[] {
  const secrets = HOME_SECRETS.map((secret) => secret.path);
  const probed = [...HOST_SERVICE_PATHS, "--", ...HOME_SOCKET_FOLDERS, "--", ...secrets];
  return [...baseArgs(network), "--", "/bin/sh", "-c", PROBE_SCRIPT, "sh", ...probed];
}

/** The arguments of `bwrap` that try whether it can lay a throwaway overlay over `home`. Never throws. */
export function bubblewrapOverlayProbeArgs(network: BuildNetwork, home: string): string[] {
  return [...baseArgs(network), "--overlay-src", home, "--tmp-overlay", home, "--", "/bin/true"];
}

/**
 * Reads the probe's output: each path hidden once and none inside a folder hidden already; bound
 * back only directly in a hidden folder; other records ignored. Never throws.
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
  const outermost = (list: HiddenPath[]) =>
    list.filter((entry) => !list.some((other) => inside(entry.path, other)));
  const directlyIn = (path: string, folder: string) =>
    path.startsWith(`${folder}/`) && !path.slice(folder.length + 1).includes("/");
  return {
    hidden: outermost(hidden),
    boundBack: boundBack.filter((path) =>
      hidden.some((folder) => folder.isDirectory && directlyIn(path, folder.path))
    ),
    ...(resolvConf === undefined ? {} : { resolvConf }),
    varRunIsFolder,
    // None inside another: a folder hidden read-only has no room for a mount point.
    secrets: outermost(secrets),
    ...(home === undefined || home === "/" ? {} : {
      home,
      ...(tooManyEntries
        ? {}
        : { homeEntries: homeEntries.filter((path) => directlyIn(path, home)) }),
    }),
  };
}
