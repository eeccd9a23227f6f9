/**
 * Runs a program as a child process for a test, feeding it `stdin` when
 * given, and collects what it printed: `git` isolated from the machine
 * (`project.ts`), or a piece of TypeScript in a Deno with other permissions
 * than the test runner's ({@link runDenoScript}).
 *
 * @module
 */

/** What a child printed and how it ended. */
export interface ChildRun {
  /** The exit status. */
  readonly code: number;
  /** Standard output, decoded. */
  readonly stdout: string;
  /** Standard error, decoded. */
  readonly stderr: string;
}

/** Options of {@link runChild}. */
export interface ChildOptions {
  /** The folder it runs in. */
  readonly cwd: string;
  /** Its whole environment (default: the test runner's). */
  readonly env?: Record<string, string>;
  /** What it reads on standard input (default: nothing, `/dev/null`). */
  readonly stdin?: string;
}

/**
 * Runs `program args...` and waits for it.
 *
 * @throws {Error} when it cannot be started.
 */
export async function runChild(
  program: string,
  args: readonly string[],
  options: ChildOptions,
): Promise<ChildRun> {
  const child = new Deno.Command(program, {
    args: [...args],
    cwd: options.cwd,
    clearEnv: options.env !== undefined,
    env: options.env,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/**
 * Runs `script` (TypeScript, read from standard input) with
 * `deno run <flags> -` in the folder `cwd`, and waits for it.
 *
 * @throws {Error} when the child cannot be started.
 */
export function runDenoScript(
  cwd: string,
  flags: readonly string[],
  script: string,
): Promise<ChildRun> {
  return runChild(Deno.execPath(), ["run", ...flags, "-"], { cwd, stdin: script });
}

/**
 * Whether `error` says the process to signal had ended already: Deno's
 * `TypeError` for a child that has terminated, or `ESRCH` (`NotFound`) for
 * a process id that is gone.
 */
function alreadyEnded(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound ||
    (error instanceof TypeError && /terminated|exited/i.test(error.message));
}

/**
 * Sends `signal` to `child`, which may have ended already (then there is
 * nothing to stop, and nothing is thrown: a test under load must not fail,
 * nor take its whole file down from a timer, because the child was quicker).
 *
 * @throws any other error of `kill`.
 */
export function stopChild(child: Deno.ChildProcess, signal: Deno.Signal = "SIGKILL"): void {
  try {
    child.kill(signal);
  } catch (error) {
    if (!alreadyEnded(error)) throw error;
  }
}

/**
 * Sends `signal` to the process `pid`, which may have ended since it was
 * found (see {@link stopChild}).
 *
 * @throws any other error of `Deno.kill`.
 */
export function stopPid(pid: number, signal: Deno.Signal = "SIGKILL"): void {
  try {
    Deno.kill(pid, signal);
  } catch (error) {
    if (!alreadyEnded(error)) throw error;
  }
}
