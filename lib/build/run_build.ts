/**
 * Runs the project's `./build.sh`: stdout and stderr together in arrival order, a time limit and
 * Ctrl-C that stop the build and everything it started. It passes iff it exits 0.
 *
 * @module
 */
import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { formatSeconds } from "../text/numbers.ts";
import { plural } from "../text/plural.ts";
import { Redactor } from "../secrets/redact.ts";
import { runSystemProgram } from "../permissions/system_programs.ts";
import { stripAnsi } from "../text/ansi.ts";
import { fitOutput } from "./build_output.ts";

/** The build script, relative to the project root. */
export const BUILD_SCRIPT = "./build.sh";

/** How one build ended. */
export interface BuildResult {
  /** The exit code, or null when a signal ended it. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly interrupted: boolean;
  /** stdout and stderr, interleaved as they arrived, keys redacted. */
  readonly output: string;
  /** Bytes of output dropped from the middle to bound memory. */
  readonly droppedBytes: number;
  readonly elapsedMs: number;
  readonly timeoutMs: number;
  /** How it was contained (`contained by bubblewrap, network on`), when the caller said. */
  readonly containment?: string;
}

/** How one build is started: by default `./build.sh` itself, a sandbox through its own program. */
export interface BuildLaunch {
  readonly program: string;
  readonly args: readonly string[];
  /** Bytes written to the program's stdin, which is then closed (by default it reads nothing). */
  readonly stdin?: Uint8Array;
  /** How the build is contained, for the log and the progress line. */
  readonly description: string;
  /** The one-line reason when the (redacted) output and exit code say `./build.sh` never started. */
  readonly startFailure?: (output: string, exitCode: number | null) => string | undefined;
}

/** Options of one build. */
export interface BuildOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly redactor?: Redactor;
  /** Grace between SIGTERM and SIGKILL (default 5 s). */
  readonly killGraceMs?: number;
  /** Output bytes kept from the start and from the end when a build prints more than both. */
  readonly keepHeadBytes?: number;
  readonly keepTailBytes?: number;
  readonly launch?: BuildLaunch;
  /** Records the running build (`mark` in its environment): the next start ends one left behind. */
  readonly tracker?: {
    readonly mark: Readonly<Record<string, string>>;
    starting(): void;
    started(pid: number): void;
    ended(): Promise<void>;
  };
  /** Told each piece of output, decoded but not redacted (for a live line, which redacts). */
  readonly onOutput?: (text: string) => void;
}

/** Tells whether the build passed: it exited 0 on its own. Never throws. */
export function buildPassed(result: BuildResult): boolean {
  return result.exitCode === 0 && !result.timedOut && !result.interrupted;
}

/** Runs `./build.sh` in `root` to its end. @throws {CodeCommitError} when it cannot start. */
export async function runBuild(root: string, options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const launch = options.launch;
  options.tracker?.starting();
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(launch?.program ?? BUILD_SCRIPT, {
      args: [...launch?.args ?? []],
      cwd: root,
      ...(options.tracker === undefined ? {} : { env: { ...options.tracker.mark } }),
      stdin: launch?.stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
      // Its own session and process group, so that a time-out or Ctrl-C stops everything it started that
      // stayed in the group (a contained build's PID namespace ends the rest).
      detached: true,
    }).spawn();
  } catch (error) {
    await options.tracker?.ended();
    throw cannotStart(launch, (error as Error).message);
  }
  options.tracker?.started(child.pid);
  if (launch?.stdin !== undefined) {
    // A program that exits without reading its input is fine: what it did not read, it did not need.
    ReadableStream.from([launch.stdin]).pipeTo(child.stdin).catch(() => {});
  }

  const sink = new OutputSink(options.keepHeadBytes, options.keepTailBytes);
  const readers = [child.stdout, child.stderr].map((out) => pump(out, sink, options.onOutput));
  // The system's `kill` by absolute path, never from `PATH`: a build could plant one there.
  const kill: Kill = async (signal, groupOnly = false) => {
    const sent = await runSystemProgram("kill", {
      args: ["-s", signal.replace(/^SIG/, ""), "--", `-${child.pid}`],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }, root).then(({ output }) => output.success, () => false);
    if (sent || groupOnly) return;
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  };
  const { exit, timedOut, interrupted } = await awaitExit(child.status, kill, options);
  await collectOutput(readers, sink, kill);
  await options.tracker?.ended();

  const redactor = options.redactor ?? new Redactor();
  const raw = sink.text();
  // A key cut into short pieces by colour codes is seen only once they are gone: the output then
  // loses its colours, never the mask.
  const plain = stripAnsi(raw);
  const output = redactor.redact(redactor.containsKey(plain) ? plain : raw);
  const exitCode = exit.signal ? null : exit.code;
  const failure = timedOut || interrupted ? undefined : launch?.startFailure?.(output, exitCode);
  if (failure !== undefined) {
    throw new CodeCommitError(
      `cannot run ${BUILD_SCRIPT} (${launch!.description}): ${failure}; check that build.sh ` +
        `starts with a #! line and is executable, or run with --sandbox off`,
      EXIT.setup,
    );
  }
  return {
    exitCode,
    signal: exit.signal,
    timedOut,
    interrupted,
    output,
    droppedBytes: sink.droppedBytes,
    elapsedMs: performance.now() - started,
    timeoutMs: options.timeoutMs,
    ...(launch === undefined ? {} : { containment: launch.description }),
  };
}

function cannotStart(launch: BuildLaunch | undefined, message: string): CodeCommitError {
  if (launch !== undefined && launch.program !== BUILD_SCRIPT) {
    return new CodeCommitError(
      `cannot start ${launch.program} to run ${BUILD_SCRIPT} (${launch.description}): ${message}`,
      EXIT.setup,
    );
  }
  const fix = /exec format/i.test(message)
    ? "; does it start with a #! line such as #!/usr/bin/env bash?"
    : "; check that build.sh exists in the project root and is executable (chmod +x build.sh)";
  return new CodeCommitError(`cannot run ${BUILD_SCRIPT}: ${message}${fix}`, EXIT.setup);
}

async function awaitExit(status: Promise<Deno.CommandStatus>, kill: Kill, options: BuildOptions) {
  let stopped: "timeout" | "interrupt" | undefined;
  const stop = async (why: "timeout" | "interrupt") => {
    if (stopped !== undefined) return;
    stopped = why;
    await kill("SIGTERM");
    const exited = await settlesWithin(status, options.killGraceMs ?? 5_000);
    // Kill the group even if the script itself exited: its children may live on.
    await kill("SIGKILL", exited);
  };
  const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
  const onAbort = () => stop("interrupt");
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const exit = await status;
    return { exit, timedOut: stopped === "timeout", interrupted: stopped === "interrupt" };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const settled = await Promise.race([
    promise.then(() => true, () => true),
    new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), ms)),
  ]);
  clearTimeout(timer);
  return settled;
}

async function collectOutput(readers: ReturnType<typeof pump>[], sink: OutputSink, kill: Kill) {
  // A process the build left running may hold the pipes open: wait a little, then stop reading.
  const drained = await settlesWithin(Promise.all(readers.map((reader) => reader.done)), 2_000);
  if (!drained) {
    await kill("SIGKILL", true);
    await Promise.allSettled(readers.map((reader) => reader.cancel()));
    sink.note(
      "[code-commit: build.sh exited, but a process it started still held its output open; " +
        "it was stopped, and output after the exit was not collected]\n",
    );
  }
  await Promise.allSettled(readers.map((reader) => reader.done));
  // Nothing the build started may go on changing files after it ended.
  if (drained) await kill("SIGKILL", true);
}

type Kill = (signal: Deno.Signal, groupOnly?: boolean) => Promise<void>;

function pump(
  stream: ReadableStream<Uint8Array>,
  sink: OutputSink,
  onOutput?: (text: string) => void,
) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const done = (async () => {
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        const text = decoder.decode(value, { stream: true });
        sink.add(text, value.byteLength);
        onOutput?.(text);
      }
    } catch {
      // Cancelled after the build exited; what arrived is kept.
    }
    const rest = decoder.decode();
    if (rest) sink.add(rest, rest.length);
  })();
  return { done, cancel: () => reader.cancel() };
}

/** Interleaved output, with a bounded head and tail when a build prints without end. */
class OutputSink {
  readonly #head: string[] = [];
  readonly #tail: { text: string; bytes: number }[] = [];
  #headBytes = 0;
  #tailBytes = 0;
  droppedBytes = 0;

  constructor(readonly headCap = 128 * 2 ** 20, readonly tailCap = 64 * 2 ** 20) {}

  add(text: string, bytes: number): void {
    if (this.#tail.length === 0 && this.#headBytes < this.headCap) {
      const room = this.headCap - this.#headBytes;
      if (bytes <= room) {
        this.#head.push(text);
        this.#headBytes += bytes;
        return;
      }
      // Fill the head (by characters: close enough to bytes for a cut), the rest goes on.
      const cut = Math.min(text.length, room);
      this.#head.push(text.slice(0, cut));
      this.#headBytes = this.headCap;
      text = text.slice(cut);
      bytes -= cut;
    }
    this.#tail.push({ text, bytes });
    this.#tailBytes += bytes;
    // Drop from the front of the tail until it fits: whole chunks, then the start of one.
    while (this.#tailBytes > this.tailCap) {
      const first = this.#tail[0];
      const excess = this.#tailBytes - this.tailCap;
      const whole = first.bytes <= excess;
      const cut = whole ? first.bytes : Math.min(first.text.length, excess);
      if (whole) this.#tail.shift();
      else this.#tail[0] = { text: first.text.slice(cut), bytes: first.bytes - cut };
      this.#tailBytes -= cut;
      this.droppedBytes += cut;
      if (!whole) break;
    }
  }

  note(text: string): void {
    this.#tail.push({ text, bytes: 0 });
  }

  text(): string {
    const dropped = plural(this.droppedBytes, "byte");
    const middle = this.droppedBytes > 0
      ? `\n[code-commit: ${dropped} of output dropped here to bound memory]\n`
      : "";
    return this.#head.join("") + middle + this.#tail.map((part) => part.text).join("");
  }
}

/** One line saying how the build ended. Never throws. */
export function describeBuildEnd(result: BuildResult): string {
  const took = formatSeconds(result.elapsedMs);
  const limit = formatSeconds(result.timeoutMs);
  if (result.timedOut) return `stopped at the --build-timeout limit of ${limit}, after ${took}`;
  if (result.interrupted) return `stopped because code-commit was interrupted, after ${took}`;
  if (result.signal) return `killed by ${result.signal} after ${took}`;
  return `exit code ${result.exitCode}, after ${took}`;
}

/** The whole build as logged in `*-build.txt`: command, containment, output, how it ended. Never throws. */
export function formatBuildLog(result: BuildResult): string {
  const containment = result.containment === undefined ? "" : `[${result.containment}]\n`;
  return formatBuild(result, `${containment}${result.output}`);
}

/** The build as a repair prompt shows it: the log without escapes, cut to `maxTokens`. */
export function formatBuildForPrompt(
  result: BuildResult,
  logPath: string,
  maxTokens = Infinity,
): string {
  return formatBuild(result, fitOutput(stripAnsi(result.output), maxTokens, logPath));
}

function formatBuild(result: BuildResult, body: string): string {
  const ended = body === "" || body.endsWith("\n") ? body : `${body}\n`;
  return `$ ${BUILD_SCRIPT}\n${ended}[${describeBuildEnd(result)}]\n`;
}
