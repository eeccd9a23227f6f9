/**
 * Whether and how `./build.sh` is contained in a run (`--sandbox`,
 * `--build-network`), decided once before any LLM call, and the command
 * that starts each build accordingly.
 *
 * - Linux: bubblewrap (`bwrap` on `PATH`), tried once with the build's own
 *   sandbox so that a machine where it cannot make namespaces counts as
 *   without it;
 * - macOS: `sandbox-exec` (Seatbelt);
 * - anywhere else, or without them: no containment. `--sandbox auto` then
 *   warns once and runs the build as it is; `--sandbox on` refuses to start.
 *
 * @module
 */
import { BUILD_SCRIPT, type BuildLaunch } from "../build/run_build.ts";
import { CodeCommitError } from "../errors/errors.ts";
import {
  bubblewrapArgs,
  bubblewrapProbeArgs,
  type BuildNetwork,
  BWRAP,
  parseProbeOutput,
} from "./bubblewrap.ts";
import { type HiddenPath, planSandbox } from "./plan.ts";
import { SANDBOX_EXEC, seatbeltArgs, seatbeltProbeArgs, seatbeltProfile } from "./seatbelt.ts";

export type { BuildNetwork } from "./bubblewrap.ts";

/** `--sandbox`: contain builds where possible (`auto`), always (`on`), or never (`off`). */
export type SandboxMode = "auto" | "on" | "off";

/** The values `--sandbox` takes, the default first. */
export const SANDBOX_MODES: readonly SandboxMode[] = ["auto", "on", "off"];
/** The values `--build-network` takes, the default first. */
export const BUILD_NETWORKS: readonly BuildNetwork[] = ["on", "off"];

/** How to install bubblewrap, for the lines that name it. */
export const BUBBLEWRAP_INSTALL =
  "install it with sudo apt-get install bubblewrap (Debian, Ubuntu) or sudo dnf install bubblewrap (Fedora)";

/** How the builds of a run are started. */
export type Containment =
  | {
    readonly kind: "bubblewrap";
    readonly network: BuildNetwork;
    /** The machine's services found by the probe, hidden from every build. */
    readonly hostServices: readonly HiddenPath[];
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
    return { started: false, code: -1, stdout: "", stderr: (error as Error).message };
  }
}

/** What the run asked for, and where it runs. */
export interface ContainmentRequest {
  readonly mode: SandboxMode;
  readonly network: BuildNetwork;
  /** `Deno.build.os` unless a test says otherwise. */
  readonly os?: string;
  /** How programs are tried (default {@link runProbe}). */
  readonly probe?: Prober;
}

/** The outcome: the containment, and the warning to print once when `auto` found none. */
export interface ContainmentDecision {
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
): Promise<Containment | { missing: string }> {
  if (os === "linux") {
    const result = await probe(BWRAP, bubblewrapProbeArgs(network));
    if (!result.started) return { missing: `bubblewrap (${BWRAP}) is not on PATH` };
    if (result.code !== 0) {
      return {
        missing: `bubblewrap (${BWRAP}) cannot make a sandbox here (${
          firstLine(result.stderr) || `exit code ${result.code}`
        })`,
      };
    }
    return { kind: "bubblewrap", network, hostServices: parseProbeOutput(result.stdout) };
  }
  if (os === "darwin") {
    const result = await probe(SANDBOX_EXEC, seatbeltProbeArgs());
    if (!result.started) return { missing: `${SANDBOX_EXEC} is not there` };
    if (result.code !== 0) {
      return {
        missing: `sandbox-exec cannot make a sandbox here (${
          firstLine(result.stderr) || `exit code ${result.code}`
        })`,
      };
    }
    return { kind: "seatbelt", network };
  }
  return {
    missing:
      `code-commit contains builds on Linux (bubblewrap) and macOS (sandbox-exec), not on ${os}`,
  };
}

/**
 * Decides how the run's builds are started, before any LLM call.
 *
 * @throws {CodeCommitError} (exit 1) with `--sandbox on`, or with
 * `--build-network off`, when no sandbox is available: the line names what
 * is missing (bubblewrap on Linux) and how to install it.
 */
export async function decideContainment(request: ContainmentRequest): Promise<ContainmentDecision> {
  if (request.mode === "off") {
    return { containment: { kind: "none", why: "--sandbox off" } };
  }
  const os = request.os ?? Deno.build.os;
  const found = await available(os, request.network, request.probe ?? runProbe);
  if (!("missing" in found)) return { containment: found };
  const install = os === "linux" ? `; ${BUBBLEWRAP_INSTALL}` : "";
  if (request.mode === "on" || request.network === "off") {
    const flag = request.mode === "on" ? "--sandbox on" : "--build-network off";
    throw new CodeCommitError(
      `${flag} needs a sandbox for ./build.sh, and ${found.missing}${install}, ` +
        `or run with --sandbox off (builds then run with your rights, network on)`,
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
 * `contained by bubblewrap, network on`, `not contained (--sandbox off)`.
 * Never throws.
 */
function describeContainment(containment: Containment): string {
  if (containment.kind === "none") return `not contained (${containment.why})`;
  const by = containment.kind === "bubblewrap" ? "bubblewrap" : "sandbox-exec";
  return `contained by ${by}, ${containment.network === "on" ? "network on" : "no network"}`;
}

/** bubblewrap's own error lines: `bwrap: execvp ./build.sh: Permission denied`. */
function bubblewrapStartFailure(output: string, exitCode: number | null): string | undefined {
  if (exitCode !== 1) return undefined;
  const lines = output.split("\n").filter((line) => line !== "");
  return lines.length === 1 && lines[0].startsWith(`${BWRAP}: `) ? lines[0] : undefined;
}

/**
 * The command that starts one build of the project at `root` under
 * `containment`; for a sandbox, what it may do is found on disk now (see
 * `planSandbox`), so every build sees the project's protected entries as
 * they are when it starts.
 *
 * @throws {CodeCommitError} when an ignore file cannot be read.
 * @throws {Deno.errors.NotFound} and other file system errors when `root` cannot be read.
 */
export async function buildLaunch(containment: Containment, root: string): Promise<BuildLaunch> {
  const description = describeContainment(containment);
  switch (containment.kind) {
    case "none":
      return { program: BUILD_SCRIPT, args: [], description };
    case "bubblewrap": {
      const plan = await planSandbox(root);
      return {
        program: BWRAP,
        args: bubblewrapArgs(plan, containment.network, containment.hostServices),
        description,
        startFailure: bubblewrapStartFailure,
      };
    }
    case "seatbelt": {
      const plan = await planSandbox(root);
      return {
        program: SANDBOX_EXEC,
        args: seatbeltArgs(seatbeltProfile(plan, containment.network)),
        description,
      };
    }
  }
}
