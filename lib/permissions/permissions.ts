/**
 * The Deno permissions code-commit runs with: the one list that `build.sh`
 * bakes into `./code-commit` (compiled binary or launcher script), that the
 * end-to-end tests run the tool with, and that the `code-commit` task of
 * `deno.json` must repeat (a test holds the two equal).
 *
 * Paths are relative: Deno resolves them against the directory the tool is
 * started in, which is the project root.
 *
 * Run as a script it prints the flags, one per line, for `build.sh`.
 *
 * @module
 */

/** The environment variables code-commit reads (and may read). */
const ENV_VARS = [
  "CODE_COMMIT_GEMINI_BASE_URL",
  "CODE_COMMIT_OPENAI_BASE_URL",
] as const;

/** Hosts code-commit may connect to: the two APIs, and loopback for local endpoints. */
export const NET_HOSTS = [
  "generativelanguage.googleapis.com:443",
  "api.openai.com:443",
  "127.0.0.1",
  "localhost",
  "[::1]",
] as const;

/**
 * Programs code-commit may start: the project's build script; `kill`, used
 * only to stop a timed-out or interrupted build together with every process
 * it started (Deno's own `Deno.kill` of a process group would need
 * unrestricted `--allow-run`); the sandbox the build runs in: `bwrap`
 * (bubblewrap, looked up on `PATH` when the tool starts) on Linux,
 * `/usr/bin/sandbox-exec` on macOS (`lib/sandbox/`); and `git`, run only
 * when the current folder holds no `.git`, to find the repository it is
 * inside (`git rev-parse --show-toplevel`: the tool may not read above the
 * folder it is started in).
 */
const RUN_PROGRAMS = ["./build.sh", "kill", "bwrap", "/usr/bin/sandbox-exec", "git"] as const;

/** The permission flags, in the order they appear on a command line. */
export const PERMISSION_FLAGS: readonly string[] = [
  "--no-prompt",
  "--allow-read=.",
  "--allow-write=.",
  `--allow-net=${NET_HOSTS.join(",")}`,
  `--allow-run=${RUN_PROGRAMS.join(",")}`,
  `--allow-env=${ENV_VARS.join(",")}`,
];

if (import.meta.main) {
  console.log(PERMISSION_FLAGS.join("\n"));
}
