/**
 * Real git's answer about ignore rules, for the path guard's tests to agree
 * with.
 *
 * @module
 */

import { runGit } from "../support/project.ts";

/**
 * Asks real git which of `paths` (relative to the work tree `root`) it
 * ignores, with `git check-ignore --no-index -v -n -z --stdin`, isolated from
 * the machine's configuration and global excludes. `config` adds
 * `-c key=value` options. Returns a map path → ignored; throws if git fails
 * or does not answer for every path.
 */
export async function gitCheckIgnore(
  root: string,
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
  const result = await runGit(root, args, paths.map((p) => `${p}\0`).join(""));
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
