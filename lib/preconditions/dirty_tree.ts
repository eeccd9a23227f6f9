/**
 * The dirty-tree check: a run must not mix its changes into the user's uncommitted work. `git
 * status` runs as code-commit's helper (it starts no program the project names, writes nothing);
 * submodules by commit only: looking inside would run a second git under configuration not
 * controlled here. Paths no reply could write (protected, git's data behind a `.git` file) don't count.
 * @module
 */
import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import { protectedRulesFor } from "../guard/protected_paths.ts";
import { findGitFiles, isGitData } from "../guard/gitdir_file.ts";
import { IgnoreRules } from "../guard/ignore_rules.ts";
import { runGit } from "../permissions/git.ts";
import { displayPath } from "../text/characters.ts";
import { nameSome } from "../text/change_list.ts";
import { plural } from "../text/plural.ts";

const GIT_STATUS_TIMEOUT_MS = 20_000;

const STATUS_WORDS: Readonly<Record<string, string>> = {
  M: "modified",
  T: "type changed",
  A: "added",
  D: "deleted",
  R: "renamed",
  C: "copied",
  U: "unmerged",
  "?": "untracked",
};

/**
 * Refuses a run on a tree with uncommitted changes a reply could write; outside a repository (or
 * without git), warns through `warn`. @throws {CodeCommitError} (setup) naming up to ten paths and
 * `--force`; when `git status` fails or does not answer in time (it would wait forever on a fifo
 * named `.gitignore`); when an ignore file cannot be read.
 */
export async function checkCleanTree(
  root: string,
  warn: (line: string) => void,
): Promise<void> {
  const noRepository = (why: string) =>
    warn(
      `cannot check for uncommitted changes: ${why}; going on (git status, git diff and ` +
        "git stash are how you keep your own work apart from a run's)",
    );
  let output: Deno.CommandOutput;
  try {
    const status = ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"];
    ({ output } = await runGit([...status, "--ignore-submodules=dirty"], {
      cwd: root,
      signal: AbortSignal.timeout(GIT_STATUS_TIMEOUT_MS),
      projectRoot: await Deno.realPath(root),
    }));
  } catch (error) {
    return noRepository(`git could not be run (${messageOf(error)})`);
  }
  if (output.signal !== null) {
    throw new CodeCommitError(
      `git status did not answer within ${GIT_STATUS_TIMEOUT_MS / 1000} s, so code-commit ` +
        "cannot tell whether you have uncommitted changes (a fifo named .gitignore, or a " +
        "file system that hangs, in the project?); fix that, or run with --force to skip " +
        "this check",
      EXIT.setup,
    );
  }
  if (output.code !== 0) {
    const stderr = new TextDecoder().decode(output.stderr);
    if (/not a git repository/i.test(stderr)) return noRepository("it is not a git repository");
    const first = stderr.split("\n").find((line) => line.trim() !== "")?.trim() ?? "";
    throw new CodeCommitError(
      `git status failed in ${displayPath(root)} (${first || "no message"}), so ` +
        "code-commit cannot tell whether you have uncommitted changes a run could overwrite; " +
        "run git status yourself and fix what it reports (a damaged .git/index: remove " +
        "it, then git reset), or run with --force to skip this check",
      EXIT.setup,
    );
  }
  let paths = parseStatus(output.stdout).filter(({ path }) => protectedRulesFor(path).length === 0);
  if (paths.length > 0) {
    // git lists the data behind a `.git` file (`gitdir: .repo`) as untracked: no reply writes there.
    const gitData = await findGitFiles(await IgnoreRules.load(root));
    paths = paths.filter((entry) => !isGitData(gitData, entry.path));
  }
  if (paths.length === 0) return;
  const named = nameSome(paths.map(({ path, how }) => `${displayPath(path)} (${how})`), {
    limit: 10,
  });
  throw new CodeCommitError(
    `the project has uncommitted changes in ${
      plural(paths.length, "path")
    } a reply could write: ${named}. ` +
      "Commit or stash them first (git status lists them), so this run's changes stay apart " +
      "from yours, or run with --force to go on anyway",
    EXIT.setup,
  );
}

/** Reads `git status --porcelain=v1 -z` output: `XY path\0`, renames followed by `from\0`. */
function parseStatus(bytes: Uint8Array): { path: string; how: string }[] {
  const fields = new TextDecoder().decode(bytes).split("\0");
  const paths = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    if (field.length < 4) continue;
    const [x, y] = field;
    const letter = y !== " " && y !== "?" ? y : x;
    paths.push({ path: field.slice(3), how: STATUS_WORDS[x === "?" ? "?" : letter] ?? "changed" });
    if (x === "R" || x === "C") i++; // the path it came from
  }
  return paths;
}
