/**
 * The flags code-commit runs with (Deno permissions and a V8 flag): the one list `build.sh` bakes
 * into `./code-commit`, the e2e tests and the `deno.json` task use. Paths are relative to the
 * project root the tool starts in. Run as a script, it prints them one per line.
 *
 * @module
 */

/**
 * The proxy variables Deno's `fetch` obeys for plain http://, read only to refuse sending a key
 * through a proxy in clear text (`lib/llm/endpoint.ts`).
 */
export const PROXY_VARS = ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"] as const;
/** The variables naming hosts Deno's `fetch` reaches without a proxy. */
export const NO_PROXY_VARS = ["NO_PROXY", "no_proxy"] as const;

/** The environment variables code-commit reads (and may read). */
const ENV_VARS = [
  "CODE_COMMIT_GEMINI_BASE_URL",
  "CODE_COMMIT_OPENAI_BASE_URL",
  ...PROXY_VARS,
  ...NO_PROXY_VARS,
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
 * The system folders helper programs start from, in order; never `PATH`, where a build could plant
 * a `kill` or `bwrap` (a virtualenv's `.venv/bin`) run outside any sandbox. Both are listed: Deno
 * compares the paths as written, and on some systems they differ.
 */
const SYSTEM_PROGRAM_FOLDERS = ["/usr/bin", "/bin"] as const;

/**
 * The helper programs code-commit may start: `kill` to stop a build's process group (`Deno.kill`
 * of a group needs unrestricted `--allow-run`), `bwrap` for the sandbox, `git` (always through
 * `git.ts`) for the repository root and the dirty-tree check, `ps` for a build a killed run left.
 */
const SYSTEM_PROGRAMS = ["kill", "bwrap", "git", "ps"] as const;

/** The name of one of {@link SYSTEM_PROGRAMS}. */
export type SystemProgram = typeof SYSTEM_PROGRAMS[number];

/** Where `name` may be, in the order to try. Never throws. */
export function systemProgramPaths(name: SystemProgram): string[] {
  return SYSTEM_PROGRAM_FOLDERS.map((folder) => `${folder}/${name}`);
}

/** Programs code-commit may start: the build script, the helpers, and macOS's `sandbox-exec`. */
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

/** V8 optimizes on the main thread: a short run mostly throws a compiler thread's work away. */
const V8_FLAGS: readonly string[] = ["--v8-flags=--no-concurrent-recompilation"];

/** Every flag `./code-commit` runs `main.ts` with: the permissions, then the V8 flag. */
export const RUN_FLAGS: readonly string[] = [...PERMISSION_FLAGS, ...V8_FLAGS];

if (import.meta.main) {
  console.log(RUN_FLAGS.join("\n"));
}
