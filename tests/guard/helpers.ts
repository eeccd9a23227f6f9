/**
 * Shared helpers for the path guard's tests: temporary projects, and `git`
 * run in isolation (no system or global configuration, no global excludes).
 *
 * @module
 */

import { dirname, join } from "node:path";

/** Makes a temporary folder, runs `body` with it, and removes it afterwards; rethrows what `body` throws. */
export async function withTempDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "code-commit-guard-" });
  try {
    return await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Writes `content` to `root/relative`, creating the parent folders. */
export async function writeFile(root: string, relative: string, content = ""): Promise<void> {
  const path = join(root, relative);
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeTextFile(path, content);
}

/** Writes every file of `files` (relative path → content) under `root`. */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    await writeFile(root, relative, content);
  }
}

/** The result of one `git` run. */
export interface GitResult {
  /** The exit status. */
  readonly code: number;
  /** Standard output, decoded. */
  readonly stdout: string;
  /** Standard error, decoded. */
  readonly stderr: string;
}

/**
 * Runs `git args...` in `cwd` with a clean environment: no system config
 * (`GIT_CONFIG_NOSYSTEM`), `HOME` and `XDG_CONFIG_HOME` pointing at `home` so
 * no global config or global excludes file interferes. `stdin` is fed to it.
 */
export async function git(
  cwd: string,
  home: string,
  args: string[],
  stdin?: string,
): Promise<GitResult> {
  const command = new Deno.Command("git", {
    args,
    cwd,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      XDG_CONFIG_HOME: home,
      GIT_CONFIG_NOSYSTEM: "1",
      LANG: "C",
      LC_ALL: "C",
    },
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  const child = command.spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
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
 * Asks real git which of `paths` (relative to the work tree `cwd`) it ignores,
 * with `git check-ignore --no-index -v -n -z --stdin`. `config` adds
 * `-c key=value` options. Returns a map path → ignored; throws if git fails or
 * does not answer for every path.
 */
export async function gitCheckIgnore(
  cwd: string,
  home: string,
  paths: readonly string[],
  config: readonly string[] = [],
): Promise<Map<string, boolean>> {
  const args = [
    ...config.flatMap((c) => ["-c", c]),
    "check-ignore",
    "--no-index",
    "-v",
    "-n",
    "-z",
    "--stdin",
  ];
  const result = await git(cwd, home, args, paths.map((p) => `${p}\0`).join(""));
  // 0: some path matched; 1: none did (with -n every path is reported either way).
  if (result.code !== 0 && result.code !== 1) {
    throw new Error(`git check-ignore failed (${result.code}): ${result.stderr}`);
  }
  const fields = result.stdout.split("\0");
  const answers = new Map<string, boolean>();
  // Records: <source> NUL <line> NUL <pattern> NUL <path> NUL
  for (let i = 0; i + 3 < fields.length; i += 4) {
    const [source, , pattern, path] = fields.slice(i, i + 4);
    answers.set(path, source !== "" && !pattern.startsWith("!"));
  }
  if (answers.size !== new Set(paths).size) {
    throw new Error(`git check-ignore answered for ${answers.size} of ${paths.length} paths`);
  }
  return answers;
}

/** Makes a git repository in `dir` (`git init -q`), with `home` as its isolated HOME; throws if git fails. */
export async function gitInit(dir: string, home: string): Promise<void> {
  const result = await git(dir, home, ["init", "-q"]);
  if (result.code !== 0) throw new Error(`git init failed: ${result.stderr}`);
}
