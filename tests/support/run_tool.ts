/**
 * Runs the real code-commit as a subprocess, in a project, with exactly
 * the permission flags the installed tool has.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readCommandLine, wantsJson } from "../../lib/cli/args.ts";
import { JSON_RESULT, type JsonResult } from "../../lib/cli/json_result.ts";
import { LAST_RUN_FILE } from "../../lib/cli/last_run.ts";
import { EXIT, EXIT_CLASS } from "../../lib/errors/errors.ts";
import { RUN_FLAGS } from "../../lib/permissions/permissions.ts";
import type { FakeLlmServer } from "./fake_llm_server.ts";
import { GEMINI_KEY, OPENAI_KEY } from "./project.ts";

const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** What a run printed and how it ended. */
export interface ToolRun {
  /** The exit status. */
  readonly code: number;
  /** Standard output. */
  readonly stdout: string;
  /** Standard error. */
  readonly stderr: string;
}

/** Options of a run. */
export interface RunToolOptions {
  /** The fake server whose base URLs the tool is pointed at. */
  readonly server?: FakeLlmServer;
  /** More environment variables. */
  readonly env?: Record<string, string>;
  /** Called with the child once it started (to send it a signal, say). */
  readonly onSpawn?: (child: Deno.ChildProcess) => void;
  /**
   * A program and its arguments that start the tool (the tool's own
   * command line follows them): a test's outer bubblewrap that swaps a
   * system program, say.
   */
  readonly wrapper?: readonly string[];
  /**
   * Called with everything the child wrote to stderr so far, each time more
   * arrives (to act at a given moment of the run, say).
   */
  readonly onStderr?: (soFar: string, child: Deno.ChildProcess) => void;
  /**
   * Why this run may end without writing `agent-config/last-run.json`
   * though `agent-config/` is there (the folder is read-only, the disk is
   * full, `ulimit -f` is tiny): the file is then checked only if it was
   * written. Without it, a run that ends without the file fails the test,
   * unless nothing could write it (see {@link runTool}).
   */
  readonly noLastRun?: string;
}

/**
 * The lines of `text` that nest parentheses, `x (y (z))`: code-commit's
 * messages put at most one pair inside another, so they read in one pass.
 * Indented lines are left out: they quote what others wrote (the model's
 * words, build output). Never throws.
 */
export function nestedParentheses(text: string): string[] {
  return text.split("\n").filter((line) => {
    if (/^\s/.test(line)) return false;
    let depth = 0;
    for (const char of line) {
      if (char === "(" && ++depth >= 2) return true;
      if (char === ")") depth = Math.max(0, depth - 1);
    }
    return false;
  });
}

/**
 * Runs `code-commit <args>` in `root` and waits for it, and checks the
 * object the run kept in `agent-config/last-run.json` (removed before the
 * run), so that every test that checks how a run ended checks the object
 * too (see {@link checkLastRun}).
 *
 * @throws {Error} when a line it printed nests parentheses (see {@link nestedParentheses}).
 * @throws {AssertionError} when the object is missing or wrong.
 */
export async function runTool(
  root: string,
  args: readonly string[],
  options: RunToolOptions = {},
): Promise<ToolRun> {
  const stale = await removeLastRun(root);
  const run = await runToolOnce(root, args, options);
  const nested = nestedParentheses(`${run.stdout}\n${run.stderr}`);
  if (nested.length > 0) {
    throw new Error(
      `code-commit ${args.join(" ")} printed a message that nests parentheses; reword it:\n` +
        nested.join("\n"),
    );
  }
  await checkLastRun(root, args, run, options, stale);
  return run;
}

/**
 * Removes `agent-config/last-run.json` in `root`, if there; returns its
 * text when it is there and cannot be removed (a read-only folder), so that
 * the check does not take it for the next run's.
 */
async function removeLastRun(root: string): Promise<string | undefined> {
  try {
    await Deno.remove(join(root, LAST_RUN_FILE));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    return await readLastRun(root);
  }
  return undefined;
}

/** The text of `agent-config/last-run.json` in `root`, or undefined when it cannot be read. */
async function readLastRun(root: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(join(root, LAST_RUN_FILE));
  } catch {
    return undefined;
  }
}

/**
 * Checks the object of a run of `code-commit <args>` in `root` that ended
 * as `run` says:
 * - with `--json`: stdout is one line, one object (see {@link jsonObjectOf});
 *   `agent-config/last-run.json`, when written, holds the same object;
 * - else `agent-config/last-run.json`, when written, is a right object for
 *   the run (see {@link checkObject});
 * - the file holds no key of the test projects, and, for a run that wrote
 *   its changes and exited 0, each file it says it created or replaced is
 *   there and each it deleted is not;
 * - a usage error (exit 2) writes no file; it is run again with `--json`
 *   (such a run changes nothing), and that object is checked;
 * - any other run that wrote no file is allowed only when nothing could write
 *   it: the run asked for `--help`, `--version` or `--completion`, the process
 *   was killed by a signal, it ended with exit 6 (another code-commit holds
 *   the project, whose file it is), no `agent-config/` is left, or the test
 *   says why (`noLastRun`). A set-up error (exit 3) that left no
 *   `agent-config/` is run again with `--json` too.
 *
 * @throws {AssertionError} naming the arguments when a check fails.
 */
async function checkLastRun(
  root: string,
  args: readonly string[],
  run: ToolRun,
  options: RunToolOptions,
  stale: string | undefined,
): Promise<void> {
  const what = `code-commit ${args.join(" ")} (exit ${run.code})`;
  const json = wantsJson(args) ? jsonObjectOf(run, args) : undefined;
  // A refused run's file, if any, is the holder's.
  if (run.code === EXIT.locked) return;
  const text = await readLastRun(root);
  const kept = text === undefined || text === stale ? undefined : text;
  if (run.code === EXIT.usage) {
    assert.equal(kept, undefined, `${what}: a usage error leaves ${LAST_RUN_FILE} as it is`);
    if (json === undefined && readsProject(args)) {
      await checkAgainWithJson(root, args, run, options);
    }
    return;
  }
  if (kept !== undefined) {
    assert.ok(kept.endsWith("\n"), `${what}: ${LAST_RUN_FILE} ends with a newline: ${kept}`);
    for (const key of [GEMINI_KEY, OPENAI_KEY]) {
      assert.ok(!kept.includes(key), `${what}: a key leaked into ${LAST_RUN_FILE}`);
    }
    const object = checkObject(JSON.parse(kept), run.code, args, `${what}, ${LAST_RUN_FILE}`);
    if (json !== undefined) {
      assert.deepEqual(object, json, `${what}: ${LAST_RUN_FILE} holds the object --json printed`);
    }
    if (run.code === EXIT.ok && !object.dryRun) await checkChanges(root, object, what);
    return;
  }
  const signalled = run.code > 128 && run.code !== EXIT.interrupted;
  // A link at agent-config is no folder to write in: code-commit never writes through it.
  const configFolder = await Deno.lstat(join(root, "agent-config")).then(
    (info) => info.isDirectory,
    () => false,
  );
  if (signalled || options.noLastRun !== undefined || !readsProject(args)) return;
  assert.ok(
    !configFolder,
    `${what} wrote no ${LAST_RUN_FILE}, and agent-config/ is there:\n${run.stderr}`,
  );
  if (json === undefined && run.code === EXIT.setup) {
    await checkAgainWithJson(root, args, run, options);
  }
}

/**
 * Runs `code-commit <args>` again with `--json` (for a run that changed nothing: a usage error,
 * or a set-up error before any folder was made) and checks that object.
 */
async function checkAgainWithJson(
  root: string,
  args: readonly string[],
  run: ToolRun,
  options: RunToolOptions,
): Promise<void> {
  const what = `code-commit ${args.join(" ")} (exit ${run.code})`;
  const again = await runToolOnce(root, ["--json", ...args], {
    server: options.server,
    env: options.env,
    wrapper: options.wrapper,
  });
  assert.equal(again.code, run.code, `${what}, run again with --json:\n${again.stderr}`);
  jsonObjectOf(again, ["--json", ...args]);
}

/** Whether `args` ask for a workflow (`--help`, `--version`, `--completion` never look at the project). */
function readsProject(args: readonly string[]): boolean {
  try {
    return readCommandLine(args).kind === "run";
  } catch {
    return true;
  }
}

/**
 * The object on the stdout of a `--json` run, checked: stdout is exactly
 * one line, one object {@link checkObject} takes.
 *
 * @throws {AssertionError} when it is not.
 */
function jsonObjectOf(run: ToolRun, args: readonly string[]): JsonResult {
  const what = `code-commit ${args.join(" ")} (exit ${run.code})`;
  assert.ok(
    run.stdout.endsWith("\n"),
    `${what}: stdout ends with a newline: ${run.stdout}${run.stderr}`,
  );
  const lines = run.stdout.slice(0, -1).split("\n");
  assert.equal(lines.length, 1, `${what}: stdout holds one line, the object:\n${run.stdout}`);
  return checkObject(JSON.parse(lines[0]), run.code, args, `${what}, stdout`);
}

/**
 * `value` as the object of a run of `code-commit <args>` that ended with
 * `code`: the schema takes it; its exit status and class are the
 * process's; its workflow is the one `args` ask for (null when they cannot
 * be read); no error with exit 0, and one with exit 2, 6 or 130 (always
 * thrown errors; a workflow may end with another status without one, a
 * build that still fails, say).
 *
 * @throws {AssertionError} naming `what` when it is not.
 */
function checkObject(value: unknown, code: number, args: readonly string[], what: string) {
  const parsed = JSON_RESULT.safeParse(value);
  assert.ok(parsed.success, `${what}: not the schema's: ${parsed.error}`);
  const object = parsed.data;
  assert.equal(object.exit.status, code, `${what}: exit.status`);
  assert.equal(object.exit.class, EXIT_CLASS[code], `${what}: exit.class`);
  let workflow: string | null;
  try {
    const command = readCommandLine(args);
    workflow = command.kind === "run" ? command.workflow : command.kind;
  } catch {
    workflow = null;
  }
  assert.equal(object.workflow, workflow, `${what}: workflow`);
  if (code === EXIT.ok) assert.equal(object.error, null, `${what}: error`);
  if (code === EXIT.usage || code === EXIT.locked || code === EXIT.interrupted) {
    assert.notEqual(object.error, null, `${what}: error`);
  }
  return object;
}

/**
 * Checks that what a run that wrote its changes says it changed is so: each
 * created or replaced file is in the tree, each deleted one is not.
 *
 * @throws {AssertionError} naming the file when it is not.
 */
async function checkChanges(root: string, object: JsonResult, what: string): Promise<void> {
  for (const change of object.changes) {
    const there = await Deno.lstat(join(root, change.path)).then(() => true, () => false);
    assert.equal(there, change.kind !== "deleted", `${what}: ${change.kind} ${change.path}`);
  }
}

/** Runs `code-commit <args>` in `root` and waits for it, whatever it prints. */
async function runToolOnce(
  root: string,
  args: readonly string[],
  options: RunToolOptions = {},
): Promise<ToolRun> {
  const env: Record<string, string> = {
    NO_COLOR: "1",
    // The machine's own git configuration (a global excludes file, say) never changes a result.
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    ...options.server?.env,
    ...options.env,
  };
  if (!options.server) {
    // Never let a test reach a real API: point both at a closed loopback port.
    env.CODE_COMMIT_GEMINI_BASE_URL ??= "http://127.0.0.1:9/v1beta";
    env.CODE_COMMIT_OPENAI_BASE_URL ??= "http://127.0.0.1:9/v1";
  }
  const toolArgs = [
    Deno.execPath(),
    "run",
    // As ./code-commit: no Deno diagnostics (such as a note that bwrap is not on PATH).
    "--quiet",
    "--cached-only",
    "--config",
    `${TOOL_ROOT}deno.json`,
    ...RUN_FLAGS,
    `${TOOL_ROOT}main.ts`,
    ...args,
  ];
  const command = [...options.wrapper ?? [], ...toolArgs];
  const child = new Deno.Command(command[0], {
    args: command.slice(1),
    cwd: root,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  options.onSpawn?.(child);
  const decoder = new TextDecoder();
  if (options.onStderr === undefined) {
    const output = await child.output();
    return {
      code: output.code,
      stdout: decoder.decode(output.stdout),
      stderr: decoder.decode(output.stderr),
    };
  }
  const onStderr = options.onStderr;
  let stderr = "";
  const [stdout, , status] = await Promise.all([
    new Response(child.stdout).text(),
    (async () => {
      const streaming = new TextDecoder();
      for await (const chunk of child.stderr) {
        stderr += streaming.decode(chunk, { stream: true });
        onStderr(stderr, child);
      }
      stderr += streaming.decode();
    })(),
    child.status,
  ]);
  return { code: status.code, stdout, stderr };
}

/** A run with `--json`: what it printed, and the one object its stdout held. */
export interface JsonToolRun extends ToolRun {
  /** The object, checked against the schema. */
  readonly result: JsonResult;
}

/**
 * Runs `code-commit <args> --json` as {@link runTool} does, and checks what
 * `--json` promises: stdout is exactly one line, one object the schema
 * takes, whose exit status and class are the process's.
 */
export async function runToolJson(
  root: string,
  args: readonly string[],
  options: RunToolOptions = {},
): Promise<JsonToolRun> {
  const run = await runTool(root, [...args, "--json"], options);
  return { ...run, result: jsonObjectOf(run, [...args, "--json"]) };
}
