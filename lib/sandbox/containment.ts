/**
 * Whether and how `./build.sh` is contained in a run, decided once before any LLM call, and the
 * command that starts each build: bubblewrap on Linux (a system path, never from `PATH`),
 * `sandbox-exec` on macOS, else none (`--sandbox auto` warns, `--sandbox on` refuses).
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
import { planFromScan } from "./sandbox_plan.ts";
import type { ProjectScan } from "./project_scan.ts";
import { SANDBOX_EXEC, seatbeltArgs, seatbeltProbeArgs, seatbeltProfile } from "./seatbelt.ts";

const BUBBLEWRAP_INSTALL =
  "install it with sudo apt-get install bubblewrap (Debian, Ubuntu) or sudo dnf install bubblewrap (Fedora)";

/** How the builds of a run are started. */
export type Containment =
  | {
    readonly kind: "bubblewrap";
    readonly network: BuildNetwork;
    /** Where bubblewrap was found: an absolute system path. */
    readonly program: string;
    readonly host: HostView;
  }
  | { readonly kind: "seatbelt"; readonly network: BuildNetwork }
  // `why`: `--sandbox off`, or what is missing.
  | { readonly kind: "none"; readonly why: string };

/** What running a program gave. */
export interface ProbeResult {
  readonly started: boolean;
  /** Not started because it is not there. */
  readonly missing?: boolean;
  readonly code: number;
  readonly stdout: string;
  /** Its stderr, or why it did not start. */
  readonly stderr: string;
}

/** Runs a program to the end. */
export type Prober = (program: string, args: readonly string[]) => Promise<ProbeResult>;

/** Runs `program` with `args`, no input, and collects what it printed. Never throws. */
export async function runProbe(program: string, args: readonly string[]): Promise<ProbeResult> {
  try {
    const command = new Deno.Command(program, { args: [...args], stdin: "null" });
    const { code, stdout, stderr } = await command.output();
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return { started: true, code, stdout: text(stdout), stderr: text(stderr) };
  } catch (error) {
    const missing = error instanceof Deno.errors.NotFound;
    return { started: false, missing, code: -1, stdout: "", stderr: (error as Error).message };
  }
}

function firstLine(text: string): string {
  return (text.split("\n").find((line) => line.trim() !== "") ?? "").trim().slice(0, 200);
}

function cannotMake(what: string, result: ProbeResult): { missing: string } {
  const why = firstLine(result.stderr) || `exit code ${result.code}`;
  return { missing: `${what} cannot make a sandbox here: ${why}` };
}

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
      if (result.code !== 0) return cannotMake(`bubblewrap at ${program}`, result);
      const host = parseProbeOutput(result.stdout);
      const homeOverlay = host.home !== undefined &&
        (await probe(program, bubblewrapOverlayProbeArgs(network, host.home))).code === 0;
      return { kind: "bubblewrap", network, program, host: { ...host, homeOverlay } };
    }
    const system = systemProgramPaths("bwrap").join(" and ");
    return {
      missing: candidates.length === 0
        ? `bubblewrap cannot be used: the project holds ${system}`
        : `bubblewrap is not installed: there is no ${candidates.join(" or ")}`,
    };
  }
  if (os === "darwin") {
    const result = await probe(SANDBOX_EXEC, seatbeltProbeArgs());
    if (!result.started) return { missing: `${SANDBOX_EXEC} is not there` };
    if (result.code !== 0) return cannotMake("sandbox-exec", result);
    return { kind: "seatbelt", network };
  }
  return {
    missing:
      `code-commit contains builds on Linux with bubblewrap and on macOS with sandbox-exec, ` +
      `not on ${os}`,
  };
}

/**
 * Decides how the run's builds are started (`os`, `probe` for tests; a program inside `root` is
 * never started), and the warning to print once when `auto` found no sandbox.
 * @throws {CodeCommitError} (`EXIT.setup`) when `on` or `--build-network off` finds no sandbox.
 */
export async function decideContainment(request: {
  readonly mode: SandboxMode;
  readonly network: BuildNetwork;
  readonly os?: string;
  readonly probe?: Prober;
  readonly root?: string;
}): Promise<ContainmentDecision> {
  if (request.mode === "off") return { containment: { kind: "none", why: "--sandbox off" } };
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

/** The containment, and the warning to print once when `auto` found none. */
export interface ContainmentDecision {
  readonly containment: Containment;
  readonly warning?: string;
}

/** How a build is contained, for the progress line (no parentheses in it) and the log. */
function describeContainment(containment: Containment): string {
  if (containment.kind === "none") return `not contained: ${containment.why}`;
  const by = containment.kind === "bubblewrap" ? "bubblewrap" : "sandbox-exec";
  return `contained by ${by}, ${containment.network === "on" ? "network on" : "no network"}`;
}

/** The line saying `./build.sh` never started: bubblewrap's error, or the shell's that could not run it. */
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
 * The command that starts one build under `containment`; a sandbox's plan comes from `scan`, a
 * walk of the project right before this build, so each build sees the entries as they are.
 * @throws {CodeCommitError} when the scan's plan refuses (see `planFromScan`).
 */
export async function buildLaunch(
  containment: Containment,
  scan: ProjectScan,
): Promise<BuildLaunch> {
  const description = describeContainment(containment);
  if (containment.kind === "none") return { program: BUILD_SCRIPT, args: [], description };
  const plan = await planFromScan(scan);
  const network = containment.network;
  const command = containment.kind === "seatbelt"
    ? { program: SANDBOX_EXEC, args: seatbeltArgs(seatbeltProfile(plan, network)) }
    : {
      program: containment.program,
      ...bubblewrapCommand(bubblewrapArgs(plan, network, containment.host)),
    };
  return { ...command, description, startFailure: sandboxStartFailure };
}
