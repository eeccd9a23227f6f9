/**
 * Code run with some environment variables changed, in a child Deno of its
 * own: for code that hands the process's environment to a child (git takes
 * `HOME`, `PATH` and `GIT_CONFIG_GLOBAL` from it). Never in the test
 * runner itself: `deno test --parallel` runs test files side by side in one
 * process, and a variable set there would reach every other test's
 * children for as long as it is set.
 */
import { fileURLToPath } from "node:url";
import { runChild } from "./child.ts";

const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Runs `body`, the body of an async function, in a child Deno (all
 * permissions, the tool's `deno.json`) whose environment is the test
 * runner's with `vars` over it (undefined: removed). `lib(path)` in `body`
 * stands for the import URL of the tool's module at `path` (`lib/...`).
 * Returns what `body` returns, through JSON.
 *
 * @throws {Error} when the child fails, with its standard error.
 */
export async function withEnv<T>(
  vars: Record<string, string | undefined>,
  body: string,
): Promise<T> {
  const env = Deno.env.toObject();
  for (const [name, value] of Object.entries(vars)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const script =
    `const lib = (path: string) => new URL(path, ${
      JSON.stringify(new URL("../../", import.meta.url).href)
    }).href;\nconst result = await (async () => {\n${body}\n})();\n` +
    `console.log("\\n" + JSON.stringify(result ?? null));\n`;
  const run = await runChild(Deno.execPath(), ["run", "-A", "--quiet", "-"], {
    cwd: TOOL_ROOT,
    env,
    stdin: script,
  });
  if (run.code !== 0) throw new Error(`the child failed (exit ${run.code}): ${run.stderr}`);
  return JSON.parse(run.stdout.trimEnd().split("\n").at(-1)!) as T;
}
