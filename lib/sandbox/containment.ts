/**
 * Whether and how `./build.sh` is contained in a run (`--sandbox`,
 * `--build-network`), decided once before any LLM call, and the command
 * that starts each build accordingly.
 *
 * - Linux: bubblewrap (`/usr/bin/bwrap` or `/bin/bwrap`, never from `PATH`:
 *   see `lib/permissions/`), tried once with the build's own namespaces so
 *   that a machine where it cannot make them counts as without it;
 * - macOS: `sandbox-exec` (Seatbelt);
 * - anywhere else, or without them: no containment. `--sandbox auto` then
 *   warns once and runs the build as it is; `--sandbox on` refuses to start.
 *
 * @module
 */
import { BUILD_SCRIPT, type BuildLaunch } from "../build/run_build.ts";
import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { systemProgramPaths } from "../permissions/permissions.ts";
import { systemProgramCandidates } from "../permissions/system_programs.ts";
import {
  bubblewrapArgs,
  bubblewrapCommand,
  bubblewrapOverlayProbeArgs,
  bubblewrapProbeArgs,
  type HostView,
  parseProbeOutput,
} from "./bubblewrap.ts";
import type { BuildNetwork, SandboxMode } from "./modes.ts";
import { planFromScan, type SandboxPlan } from "./sandbox_plan.ts";
import type { ProjectScan } from "./project_scan.ts";
import { SANDBOX_EXEC, seatbeltArgs, seatbeltProbeArgs, seatbeltProfile } from "./seatbelt.ts";

/** How to install bubblewrap, for the lines that name it. */
export const BUBBLEWRAP_INSTALL =
  "install it with sudo apt-get install bubblewrap (Debian, Ubuntu) or sudo dnf install bubblewrap (Fedora)";

/** How the builds of a run are started. */
export type Containment =
  | {
    readonly kind: "bubblewrap";
    readonly network: BuildNetwork;
    /** Where bubblewrap was found: an absolute system path. */
    readonly program: string;
    /** What of the machine the probe found to hide from every build. */
    readonly host: HostView;
  }
  | { readonly kind: "seatbelt"; readonly network: BuildNetwork }
  | {
    readonly kind: "none";
    /** Why: `--sandbox off`, or what is missing. */
    readonly why: string;
  };

/** What running a program gave. */
export interface ProbeResult {
  /** False when the program could not be started at all (not found, not permitted). */
  readonly started: boolean;
  /** True when it could not be started because it is not there. */
  readonly missing?: boolean;
  /** Its exit code (when started). */
  readonly code: number;
  /** Its stdout. */
  readonly stdout: string;
  /** Its stderr, or why it did not start. */
  readonly stderr: string;
}

/** Runs a program to the end; the real one uses `Deno.Command`. */
export type Prober = (program: string, args: readonly string[]) => Promise<ProbeResult>;

/** Runs `program` with `args`, no input, and collects what it printed. Never throws. */
export async function runProbe(program: string, args: readonly string[]): Promise<ProbeResult> {
  try {
    const output = await new Deno.Command(program, {
      args: [...args],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    return {
      started: true,
      code: output.code,
      stdout: decoder.decode(output.stdout),
      stderr: decoder.decode(output.stderr),
    };
  } catch (error) {
    return {
      started: false,
      missing: error instanceof Deno.errors.NotFound,
      code: -1,
      stdout: "",
      stderr: (error as Error).message,
    };
  }
}

/** What the run asked for, and where it runs. */
export interface ContainmentRequest {
  /** `--sandbox`: `auto`, `on` or `off`. */
  readonly mode: SandboxMode;
  /** `--build-network`: whether the contained build may reach the network. */
  readonly network: BuildNetwork;
  /** `Deno.build.os` unless a test says otherwise. */
  readonly os?: string;
  /** How programs are tried (default {@link runProbe}). */
  readonly probe?: Prober;
  /** The project root, links resolved: a program inside it is never started. */
  readonly root?: string;
}

/** The outcome: the containment, and the warning to print once when `auto` found none. */
export interface ContainmentDecision {
  /** How each build is contained (or that it is not). */
  readonly containment: Containment;
  /** One line for the user, or undefined. */
  readonly warning?: string;
}

/** The first non-empty line of `text`, cut to 200 characters. */
function firstLine(text: string): string {
  return (text.split("\n").find((line) => line.trim() !== "") ?? "").trim().slice(0, 200);
}

/** Why the sandbox is not available here, or the containment it gives. */
async function available(
  os: string,
  network: BuildNetwork,
  probe: Prober,
  root: string | undefined,
): Promise<Containment | { missing: string }> {
  if (os === "linux") {
    const candidates = systemProgramCandidates("bwrap", root);
    for (const program of candidates) {
      const result = await probe(program, bubblewrapProbeArgs(network));
      if (result.missing) continue;
      if (!result.started) {
        return {
          missing: `bubblewrap at ${program} cannot be started: ${firstLine(result.stderr)}`,
        };
      }
      if (result.code !== 0) {
        return {
          missing: `bubblewrap at ${program} cannot make a sandbox here: ${
            firstLine(result.stderr) || `exit code ${result.code}`
          }`,
        };
      }
      const host = parseProbeOutput(result.stdout);
      // A throwaway overlay over the home folder where this bubblewrap can make one.
      const homeOverlay = host.home !== undefined &&
        (await probe(program, bubblewrapOverlayProbeArgs(network, host.home))).code === 0;
      return { kind: "bubblewrap", network, program, host: { ...host, homeOverlay } };
    }
    return {
      missing: candidates.length === 0
        ? `bubblewrap cannot be used: the project holds ${
          systemProgramPaths("bwrap").join(" and ")
        }`
        : `bubblewrap is not installed: there is no ${candidates.join(" or ")}`,
    };
  }
  if (os === "darwin") {
    const result = await probe(SANDBOX_EXEC, seatbeltProbeArgs());
    if (!result.started) return { missing: `${SANDBOX_EXEC} is not there` };
    if (result.code !== 0) {
      return {
        missing: `sandbox-exec cannot make a sandbox here: ${
          firstLine(result.stderr) || `exit code ${result.code}`
        }`,
      };
    }
    return { kind: "seatbelt", network };
  }
  return {
    missing:
      `code-commit contains builds on Linux with bubblewrap and on macOS with sandbox-exec, ` +
      `not on ${os}`,
  };
}

/**
 * Decides how the run's builds are started, before any LLM call.
 *
 * @throws {CodeCommitError} (exit 3, `EXIT.setup`) with `--sandbox on`, or with
 * `--build-network off`, when no sandbox is available: the line names what
 * is missing (bubblewrap on Linux) and how to install it.
 */
export async function decideContainment(request: ContainmentRequest): Promise<ContainmentDecision> {
  if (request.mode === "off") {
    return { containment: { kind: "none", why: "--sandbox off" } };
  }
  const os = request.os ?? Deno.build.os;
  const found = await available(os, request.network, request.probe ?? runProbe, request.root);
  if (!("missing" in found)) return { containment: found };
  const install = os === "linux" ? `; ${BUBBLEWRAP_INSTALL}` : "";
  if (request.mode === "on" || request.network === "off") {
    const flag = request.mode === "on" ? "--sandbox on" : "--build-network off";
    throw new CodeCommitError(
      `${flag} needs a sandbox for ./build.sh, and ${found.missing}${install}, ` +
        `or run with --sandbox off (builds then run with your rights, network on)`,
      EXIT.setup,
    );
  }
  return {
    containment: { kind: "none", why: found.missing },
    warning: `./build.sh runs without a sandbox, with your rights: ${found.missing}${install} ` +
      `(or pass --sandbox off to run unconfined without this warning)`,
  };
}

/**
 * How a build is contained, for the progress line and the build log:
 * `contained by bubblewrap, network on`, `not contained: --sandbox off`
 * (the progress line puts it in parentheses: no more are nested in it).
 * Never throws.
 */
function describeContainment(containment: Containment): string {
  if (containment.kind === "none") return `not contained: ${containment.why}`;
  const by = containment.kind === "bubblewrap" ? "bubblewrap" : "sandbox-exec";
  return `contained by ${by}, ${containment.network === "on" ? "network on" : "no network"}`;
}

/**
 * Whether a contained build's output and exit code say that `./build.sh`
 * never started: bubblewrap's own one-line error (`bwrap: Can't mount ...`,
 * exit 1), or the shell that starts the build could not run it (`sh: 1:
 * exec: ./build.sh: Permission denied`, exit 126 or 127). Then the line.
 */
function sandboxStartFailure(output: string, exitCode: number | null): string | undefined {
  const lines = output.split("\n").filter((line) => line !== "");
  if (lines.length !== 1) return undefined;
  const line = lines[0];
  if (exitCode === 1 && line.startsWith("bwrap: ")) return line;
  if ((exitCode === 126 || exitCode === 127) && line.includes(`${BUILD_SCRIPT}: `)) return line;
  if (exitCode === 126 && line.startsWith("code-commit: ")) {
    return `${line.slice("code-commit: ".length)}: start code-commit from a shell that leaves ` +
      "no file descriptors open above 2";
  }
  return undefined;
}

/**
 * The command that starts one build under `containment`; for a sandbox,
 * what it may do comes from `scan`, a walk of the project made right
 * before this build (see `planFromScan`), so every build sees the
 * project's protected entries as they are when it starts.
 *
 * @throws {CodeCommitError} when the scan's plan refuses (see `planFromScan`).
 */
export async function buildLaunch(
  containment: Containment,
  scan: ProjectScan,
): Promise<BuildLaunch> {
  const description = describeContainment(containment);
  switch (containment.kind) {
    case "none":
      return { program: BUILD_SCRIPT, args: [], description };
    case "bubblewrap": {
      const plan = await planFromScan(scan);
      const command = bubblewrapCommand(
        bubblewrapArgs(plan, containment.network, containment.host),
      );
      return {
        program: containment.program,
        args: command.args,
        stdin: command.stdin,
        description,
        startFailure: sandboxStartFailure,
      };
    }
    case "seatbelt": {
      const plan: SandboxPlan = await planFromScan(scan);
      return {
        program: SANDBOX_EXEC,
        args: seatbeltArgs(seatbeltProfile(plan, containment.network)),
        description,
        startFailure: sandboxStartFailure,
      };
    }
  }
}
