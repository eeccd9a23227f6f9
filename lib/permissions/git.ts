/**
 * Runs git as code-commit's helper, never as the build's: every git command
 * the tool runs goes through {@link runGit}, which makes git start no
 * program that a build could plant or name.
 *
 * A build writes the project (and, in an activated virtualenv, the folder
 * first on `PATH`), so anything git would start from what the project says
 * — a filter named by a `.gitattributes`, a program found on `PATH`, a
 * `core.fsmonitor` — would run the build's code unconfined, with the user's
 * rights and keys. git therefore runs:
 * - from its system path (`system_programs.ts`), with `PATH` set to the
 *   system folders only, so whatever git itself starts by name is the
 *   system's;
 * - with every content filter, diff driver and merge driver defined in any
 *   configuration git reads (system, global, the repository's, includes)
 *   blanked: a `.gitattributes` may name a driver, but none has a program
 *   (`filter.<x>.clean`, `smudge`, `process` empty and `required` off;
 *   `diff.<x>.command`, `textconv` and `merge.<x>.driver` empty). The
 *   drivers cannot be switched off by name in advance, so they are listed
 *   first (`git config --list --name-only`, which starts nothing) and each
 *   one found is blanked;
 * - with no `core.fsmonitor`, no hooks (`core.hooksPath=/dev/null`), no
 *   pager, no editor, no credential helper or askpass, no transport at all
 *   (`protocol.allow=never`, which also stops `core.sshCommand`,
 *   `core.gitProxy` and remote helpers), no signing program, no submodule
 *   summary, and no optional locks (it writes nothing to the repository);
 * - with the configuration given on the command line by the environment
 *   (`GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_COUNT`) replaced by the above,
 *   `GIT_EXEC_PATH` back to git's own, and the pager, editor and ssh
 *   variables set to programs that do nothing.
 *
 * The overrides travel in `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_<n>`/
 * `GIT_CONFIG_VALUE_<n>` (no quoting: a driver name may hold `=` or dots),
 * which also reach every git git starts itself.
 *
 * @module
 */
import { runSystemProgram, type SystemProgramRun } from "./system_programs.ts";

/** The only folders git may find programs in: the system's. */
const GIT_PATH = "/usr/bin:/bin";

/** Settings that switch off every program git could start that no driver names. */
const FIXED_SETTINGS: readonly (readonly [string, string])[] = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.pager", "cat"],
  ["core.editor", "false"],
  ["sequence.editor", "false"],
  ["core.askPass", ""],
  ["credential.helper", ""],
  ["core.sshCommand", "false"],
  ["protocol.allow", "never"],
  ["gpg.program", "false"],
  ["gpg.ssh.program", "false"],
  ["gpg.x509.program", "false"],
  ["status.submoduleSummary", "false"],
  ["submodule.recurse", "false"],
];

/** Environment variables git would take programs or configuration from, made inert. */
const FIXED_ENV: Readonly<Record<string, string>> = {
  PATH: GIT_PATH,
  GIT_CONFIG_PARAMETERS: "",
  GIT_EXEC_PATH: "",
  GIT_PAGER: "cat",
  PAGER: "cat",
  GIT_EDITOR: "false",
  GIT_SEQUENCE_EDITOR: "false",
  GIT_SSH_COMMAND: "false",
  GIT_ASKPASS: "",
  SSH_ASKPASS: "",
  GIT_TERMINAL_PROMPT: "0",
  GIT_OPTIONAL_LOCKS: "0",
  LC_ALL: "C",
};

/** A configured driver's setting that holds a program, and what it is blanked to. */
const DRIVER_SETTINGS: readonly { readonly pattern: RegExp; readonly value: string }[] = [
  { pattern: /^filter\..+\.(?:clean|smudge|process)$/i, value: "" },
  { pattern: /^filter\..+\.required$/i, value: "false" },
  { pattern: /^diff\..+\.(?:command|textconv)$/i, value: "" },
  { pattern: /^merge\..+\.driver$/i, value: "" },
];

/** How git is run: its folder, and what becomes of its output. */
export interface GitOptions {
  /** The folder git starts in. */
  readonly cwd: string;
  /** A folder, relative to `cwd`, git moves to before anything else (`git -C`). */
  readonly chdir?: string;
  /**
   * The project root (absolute, links resolved): a git binary inside it is
   * never started (see `systemProgramCandidates`).
   */
  readonly projectRoot?: string;
  /** Stops git (it is killed) when aborted. */
  readonly signal?: AbortSignal;
  /** Whether standard output is kept; `piped` by default. */
  readonly stdout?: "piped" | "null";
  /** Whether standard error is kept; `piped` by default. */
  readonly stderr?: "piped" | "null";
}

/**
 * The environment git runs with (see the module doc), blanking the
 * program-holding settings named in `configNames` (as `git config --list
 * --name-only` gives them). Never throws.
 */
function gitEnvironment(configNames: readonly string[]): Record<string, string> {
  const settings: (readonly [string, string])[] = [...FIXED_SETTINGS];
  for (const name of new Set(configNames)) {
    const driver = DRIVER_SETTINGS.find((setting) => setting.pattern.test(name));
    if (driver !== undefined) settings.push([name, driver.value]);
  }
  const env: Record<string, string> = { ...FIXED_ENV, GIT_CONFIG_COUNT: `${settings.length}` };
  settings.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}

/**
 * Runs `git <args>` as code-commit's helper (see the module doc): lists the
 * configured drivers first, then runs the command with all of them and
 * every other program git could start switched off. When the listing
 * itself fails (git cannot find its configuration, say a broken `.git`
 * file), its result is returned and the command is not run: nothing could
 * be blanked.
 *
 * @throws {Deno.errors.NotFound} when git is not installed in a system folder.
 * @throws the error of starting git otherwise.
 */
export async function runGit(
  args: readonly string[],
  options: GitOptions,
): Promise<SystemProgramRun> {
  const start = (gitArgs: string[], env: Record<string, string>, stdout: "piped" | "null") =>
    runSystemProgram("git", {
      args: [
        ...(options.chdir === undefined ? [] : ["-C", options.chdir]),
        "--no-pager",
        "--no-optional-locks",
        ...gitArgs,
      ],
      cwd: options.cwd,
      env,
      stdin: "null",
      stdout,
      stderr: options.stderr ?? "piped",
      signal: options.signal,
    }, options.projectRoot);
  const listing = await start(
    ["config", "--list", "--name-only", "-z"],
    gitEnvironment([]),
    "piped",
  );
  if (!listing.output.success) return listing;
  const names = new TextDecoder().decode(listing.output.stdout).split("\0")
    .map((name) => name.replace(/\n[^]*$/, "")).filter((name) => name !== "");
  return await start([...args], gitEnvironment(names), options.stdout ?? "piped");
}
