/**
 * The flags code-commit runs with, its Deno permissions and a V8 flag: the
 * one list ({@link RUN_FLAGS}) that `build.sh` bakes into `./code-commit`
 * (compiled binary or launcher script), that the end-to-end tests run the
 * tool with, and that the `code-commit` task of `deno.json` takes from here.
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
 * The system folders code-commit starts its helper programs from, in the
 * order they are tried. A program is never looked up on `PATH`: a build can
 * put a folder of the project on it (an activated virtualenv's `.venv/bin`)
 * and plant a `kill` or `bwrap` there that code-commit would then run
 * outside any sandbox. These folders belong to the system (root) and are
 * read-only inside the sandbox; `/bin` is listed besides `/usr/bin` for
 * systems where the two are different folders (Deno compares the paths as
 * written, not where links lead).
 */
const SYSTEM_PROGRAM_FOLDERS = ["/usr/bin", "/bin"] as const;

/**
 * The helper programs code-commit may start, each from
 * {@link SYSTEM_PROGRAM_FOLDERS} only:
 * - `kill`, used only to stop a timed-out or interrupted build together with
 *   every process it started (Deno's own `Deno.kill` of a process group
 *   needs unrestricted `--allow-run`, in Deno 2.9.6);
 * - `bwrap` (bubblewrap), the sandbox builds run in on Linux (`lib/sandbox/`);
 * - `git`, to find the repository the current folder belongs to (`git
 *   rev-parse --show-toplevel`: the tool may not read above the folder it
 *   is started in), and for the dirty-tree check before a run that changes
 *   files (`git status`, which knows git's own rules exactly); always
 *   through `git.ts`, which lets git start no program of the project's.
 * - `ps`, to find the processes of a build that a killed code-commit left
 *   running (`lib/project_lock/running_build.ts`).
 */
const SYSTEM_PROGRAMS = ["kill", "bwrap", "git", "ps"] as const;

/** The name of one of {@link SYSTEM_PROGRAMS}. */
export type SystemProgram = typeof SYSTEM_PROGRAMS[number];

/** Where `name` may be, in the order to try: `/usr/bin/<name>`, `/bin/<name>`. Never throws. */
export function systemProgramPaths(name: SystemProgram): string[] {
  return SYSTEM_PROGRAM_FOLDERS.map((folder) => `${folder}/${name}`);
}

/**
 * Programs code-commit may start: the project's build script, the helper
 * programs at their absolute paths ({@link SYSTEM_PROGRAMS}), and macOS's
 * `/usr/bin/sandbox-exec` (`lib/sandbox/seatbelt.ts`).
 */
const RUN_PROGRAMS = [
  "./build.sh",
  ...SYSTEM_PROGRAMS.flatMap(systemProgramPaths),
  "/usr/bin/sandbox-exec",
] as const;

/** The permission flags, in the order they appear on a command line. */
export const PERMISSION_FLAGS: readonly string[] = [
  "--no-prompt",
  "--allow-read=.",
  "--allow-write=.",
  `--allow-net=${NET_HOSTS.join(",")}`,
  `--allow-run=${RUN_PROGRAMS.join(",")}`,
  `--allow-env=${ENV_VARS.join(",")}`,
];

/**
 * The V8 flag, as one Deno flag: `--no-concurrent-recompilation` has V8
 * optimize hot code on the main thread, not on a thread of its own whose
 * work a run of a few hundred milliseconds mostly throws away. It changes
 * how much CPU and memory a run takes, never what it does.
 */
const V8_FLAGS: readonly string[] = ["--v8-flags=--no-concurrent-recompilation"];

/** Every flag `./code-commit` runs `main.ts` with: the permissions, then the V8 flag. */
export const RUN_FLAGS: readonly string[] = [...PERMISSION_FLAGS, ...V8_FLAGS];

if (import.meta.main) {
  console.log(RUN_FLAGS.join("\n"));
}
