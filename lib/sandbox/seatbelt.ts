/**
 * The macOS counterpart of `bubblewrap.ts` (logic tests only): a Seatbelt profile that allows by
 * default, then denies. Paths are parameters (`-D`), never spliced into the text, so no file name
 * can change the profile. Unlike bubblewrap: no private `/tmp`, throwaway home or PID namespace.
 *
 * @module
 */
import { BUILD_WRAPPER } from "./bubblewrap.ts";
import { HOME_SECRETS } from "./home_secrets.ts";
import type { BuildNetwork } from "./modes.ts";
import type { SandboxPlan } from "./sandbox_plan.ts";

/** Where macOS keeps `sandbox-exec` (an absolute path: the permission list names it so). */
export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** Where a build may write outside the project: the temporary folders and the usual devices. */
const SEATBELT_WRITABLE = {
  subpaths: ["/private/tmp", "/private/var/folders", "/dev/fd"],
  literals: [
    "/dev/null",
    "/dev/zero",
    "/dev/tty",
    "/dev/dtracehelper",
    "/dev/stdout",
    "/dev/stderr",
  ],
} as const;

/** What a build may not use to start a process outside (launchd's port itself has no rule). */
const SEATBELT_NO_ESCAPE = {
  machServices: ["com.apple.coreservices.launchservicesd", "com.apple.coreservices.appleevents"],
  programs: ["/bin/launchctl", "/usr/bin/open", "/usr/bin/osascript"],
} as const;

/** Every account's home folder and root's, as a regular expression (`HOME` is not trusted). */
const SEATBELT_HOMES = "^(/Users/[^/]+|/var/root|/private/var/root)/";

function escapeRegex(path: string): string {
  return path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `"…"`, an SBPL string literal (only fixed paths of this module go through here). */
function literal(text: string): string {
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** The Seatbelt profile (SBPL) of `plan` with `network`, and the parameters it reads, name → path. Never throws. */
export function seatbeltProfile(
  plan: SandboxPlan,
  network: BuildNetwork,
): { text: string; params: Map<string, string> } {
  const params = new Map<string, string>([["ROOT", plan.root]]);
  const param = (name: string, path: string) => {
    params.set(name, path);
    return `(subpath (param "${name}"))`;
  };
  const readOnly = plan.readOnly.map((path, index) => param(`READ_ONLY_${index}`, path));
  const hidden = plan.hidden.map((entry, index) => param(`HIDDEN_${index}`, entry.path));
  const writable = [
    `(require-not (subpath (param "ROOT")))`,
    ...SEATBELT_WRITABLE.subpaths.map((path) => `(require-not (subpath ${literal(path)}))`),
    ...SEATBELT_WRITABLE.literals.map((path) => `(require-not (literal ${literal(path)}))`),
  ];
  const lines = [
    "(version 1)",
    "(allow default)",
    "; writes only inside the project and the temporary folders",
    `(deny file-write* (require-all\n  ${writable.join("\n  ")}))`,
  ];
  if (readOnly.length > 0) {
    lines.push(
      "; the protected entries a build may not change",
      `(deny file-write*\n  ${readOnly.join("\n  ")})`,
    );
  }
  if (hidden.length > 0) {
    lines.push(
      "; agent-config/, logs/ and what their links lead to: nothing of them can be read",
      `(deny file-read* file-write*\n  ${hidden.join("\n  ")})`,
    );
  }
  const secrets = HOME_SECRETS.map((secret) =>
    `(regex ${literal(`${SEATBELT_HOMES}${escapeRegex(secret.path)}(/|$)`)})`
  );
  const services = SEATBELT_NO_ESCAPE.machServices.map((name) => `(global-name ${literal(name)})`);
  const programs = SEATBELT_NO_ESCAPE.programs.map((path) => `(literal ${literal(path)})`);
  lines.push(
    "; the home folders' credential stores: nothing of them can be read",
    `(deny file-read* file-write*\n  ${secrets.join("\n  ")})`,
    "; no process started outside the sandbox through the system's services",
    "(deny appleevent-send)",
    `(deny mach-lookup\n  ${services.join("\n  ")})`,
    `(deny process-exec\n  ${programs.join("\n  ")})`,
  );
  if (network === "off") lines.push("; no network at all, not even loopback", "(deny network*)");
  return { text: `${lines.join("\n")}\n`, params };
}

/** The arguments of `sandbox-exec` that run `./build.sh` under `profile`, through `BUILD_WRAPPER`. Never throws. */
export function seatbeltArgs(profile: ReturnType<typeof seatbeltProfile>): string[] {
  return [
    "-p",
    profile.text,
    ...[...profile.params].flatMap(([name, value]) => ["-D", `${name}=${value}`]),
    "/bin/sh",
    "-c",
    BUILD_WRAPPER,
    "sh",
  ];
}

/** The arguments of the probe run before the first build: an empty policy around `true`. Never throws. */
export function seatbeltProbeArgs(): string[] {
  return ["-p", "(version 1)\n(allow default)\n", "/usr/bin/true"];
}
