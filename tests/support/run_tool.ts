/**
 * Runs the real code-commit as a subprocess, in a project, with exactly
 * the permission flags the installed tool has.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { JSON_RESULT, type JsonResult } from "../../lib/cli/json_result.ts";
import { EXIT_CLASS } from "../../lib/errors/errors.ts";
import { RUN_FLAGS } from "../../lib/permissions/permissions.ts";
import type { FakeLlmServer } from "./fake_llm_server.ts";

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
 * Runs `code-commit <args>` in `root` and waits for it.
 *
 * @throws {Error} when a line it printed nests parentheses (see {@link nestedParentheses}).
 */
export async function runTool(
  root: string,
  args: readonly string[],
  options: RunToolOptions = {},
): Promise<ToolRun> {
  const run = await runToolOnce(root, args, options);
  const nested = nestedParentheses(`${run.stdout}\n${run.stderr}`);
  if (nested.length > 0) {
    throw new Error(
      `code-commit ${args.join(" ")} printed a message that nests parentheses; reword it:\n` +
        nested.join("\n"),
    );
  }
  return run;
}

/** Runs `code-commit <args>` in `root` and waits for it, whatever it prints. */
async function runToolOnce(
  root: string,
  args: readonly string[],
  options: RunToolOptions = {},
): Promise<ToolRun> {
  const env: Record<string, string> = { NO_COLOR: "1", ...options.server?.env, ...options.env };
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
  assert.ok(run.stdout.endsWith("\n"), `stdout ends with a newline: ${run.stdout}${run.stderr}`);
  const lines = run.stdout.slice(0, -1).split("\n");
  assert.equal(lines.length, 1, `stdout holds one line, the object:\n${run.stdout}`);
  const result = JSON_RESULT.parse(JSON.parse(lines[0]));
  assert.equal(result.exit.status, run.code, run.stderr);
  assert.equal(result.exit.class, EXIT_CLASS[run.code], run.stderr);
  return { ...run, result };
}
