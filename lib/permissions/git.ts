/**
 * Runs git as code-commit's helper: every git command goes through {@link runGit}, which lets git
 * start no program a build could plant or name. A build writes the project (and maybe the folder
 * first on `PATH`), so a `.gitattributes` filter, a program on `PATH` or a `core.fsmonitor` would
 * run its code unconfined with the user's keys. So git runs from its system path with `PATH` the
 * system folders only; with every filter, diff and merge driver in any configuration it reads
 * blanked (they cannot be named in advance: `git config --list --name-only`, which starts nothing,
 * lists them first); with no fsmonitor, hooks, pager, editor, credential helper, askpass,
 * transport (`protocol.allow=never` also stops `core.sshCommand` and remote helpers), signing
 * program, submodule summary or optional locks; and with the environment's own configuration
 * (`GIT_CONFIG_PARAMETERS`) replaced, `GIT_EXEC_PATH` back to git's own. The overrides travel in
 * `GIT_CONFIG_COUNT`/`KEY_<n>`/`VALUE_<n>` (no quoting: a driver name may hold `=` or dots),
 * which also reach every git that git starts.
 *
 * @module
 */
import { runSystemProgram, type SystemProgramRun } from "./system_programs.ts";

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
  PATH: "/usr/bin:/bin", // the only folders git may find programs in: the system's
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

/**
 * How git is run: its folder, `git -C`'s folder, the project root (real path: a git inside it is
 * never started), a signal that kills it, and whether its output is kept (`piped` by default).
 */
export interface GitOptions {
  readonly cwd: string;
  readonly chdir?: string;
  readonly projectRoot?: string;
  readonly signal?: AbortSignal;
  readonly stdout?: "piped" | "null";
  readonly stderr?: "piped" | "null";
}

/** git's environment, blanking the driver settings among `configNames` (`git config --list`). */
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
 * Runs `git <args>` as code-commit's helper: lists the configured drivers, then runs the command
 * with them and every other program git could start switched off. When the listing fails, its
 * result is returned and the command is not run: nothing could be blanked.
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
