/**
 * The dirty-tree check (committing code and the auto workflow, before any
 * LLM call): a run must not mix its changes into work of the user's that
 * is not committed. It asks git itself (`git status`), which knows its own
 * rules exactly — the index, renames, what is ignored, nested ignore
 * files, `core.excludesFile` — rather than reading git's files as the
 * `.gitignore` check must (that one runs before git is trusted with
 * anything). git runs as code-commit's helper (`permissions/git.ts`): it
 * starts no program the project could plant or name (no filter, no
 * fsmonitor, no hook), and writes nothing. Submodules are compared by the
 * commit they are at, not by what is changed inside them: git would look
 * inside them with a second git, under configuration not listed here.
 *
 * Only paths a reply could write count: protected paths (`agent-config/`,
 * `logs/`, `agent-state/`, `build.sh`, …) never do, nor do the places a
 * `.git` file names as git's data (`.git` holding `gitdir: .repo`: git
 * lists `.repo/` as untracked), and git does not list ignored ones. Outside a git repository there is nothing to compare with:
 * a warning, and the run goes on. A `git status` that fails in a
 * repository (a damaged index, a file it cannot read) refuses the run:
 * what it would have listed is unknown.
 *
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

/** How long `git status` may take before the check gives up (and refuses the run). */
const GIT_STATUS_TIMEOUT_MS = 20_000;

/** How many uncommitted paths the refusal names. */
const NAMED = 10;

/** One uncommitted path, as `git status` reports it. */
interface UncommittedPath {
  /** The path, relative to the repository root. */
  readonly path: string;
  /** `modified`, `deleted`, `added`, `renamed`, `untracked`, … */
  readonly how: string;
}

/** What the check found. */
type TreeState =
  | { readonly kind: "clean" }
  | { readonly kind: "dirty"; readonly paths: readonly UncommittedPath[] }
  | { readonly kind: "no-repository"; readonly why: string }
  | { readonly kind: "failed"; readonly firstLine: string };

/**
 * What git reports uncommitted in the project at `root`, less the paths no
 * reply may write.
 *
 * A folder that is not a repository, or a git that cannot be run, is
 * `no-repository` with the reason; a `git status` that fails otherwise is
 * `failed`, with the first line it wrote to standard error.
 *
 * @throws {CodeCommitError} when git does not answer in time, or an ignore
 * file cannot be read.
 */
async function inspectTree(root: string): Promise<TreeState> {
  let result;
  try {
    result = await gitStatus(root);
  } catch (error) {
    return { kind: "no-repository", why: `git could not be run (${messageOf(error)})` };
  }
  if (result.signal !== null) {
    throw new CodeCommitError(
      `git status did not answer within ${GIT_STATUS_TIMEOUT_MS / 1000} s, so code-commit ` +
        "cannot tell whether you have uncommitted changes (a fifo named .gitignore, or a " +
        "file system that hangs, in the project?); fix that, or run with --force to skip " +
        "this check",
      EXIT.setup,
    );
  }
  if (result.code !== 0) {
    if (/not a git repository/i.test(result.stderr)) {
      return { kind: "no-repository", why: "it is not a git repository" };
    }
    const first = result.stderr.split("\n").find((line) => line.trim() !== "") ?? "";
    return { kind: "failed", firstLine: first.trim() };
  }
  let paths = parseStatus(result.stdout).filter((entry) =>
    protectedRulesFor(entry.path).length === 0
  );
  if (paths.length > 0) {
    // git's data behind a `.git` file: no reply may write there, as in `.git` (looked for only
    // when something is listed).
    const gitData = await findGitFiles(await IgnoreRules.load(root));
    paths = paths.filter((entry) => !isGitData(gitData, entry.path));
  }
  return paths.length === 0 ? { kind: "clean" } : { kind: "dirty", paths };
}

/**
 * Refuses a run on a tree with uncommitted changes a reply could mix with
 * (see {@link inspectTree}); outside a repository, warns through `warn`
 * and returns.
 *
 * @throws {CodeCommitError} naming up to ten paths and `--force`; with
 * `EXIT.setup` when `git status` fails in a repository (naming the command
 * and the first line of its error) or does not answer in time (it would
 * wait forever on a fifo named `.gitignore`).
 */
export async function checkCleanTree(
  root: string,
  warn: (line: string) => void,
): Promise<void> {
  const state = await inspectTree(root);
  if (state.kind === "clean") return;
  if (state.kind === "failed") {
    throw new CodeCommitError(
      `git status failed in ${displayPath(root)} (${state.firstLine || "no message"}), so ` +
        "code-commit cannot tell whether you have uncommitted changes a run could overwrite; " +
        "run git status yourself and fix what it reports (a damaged .git/index: remove " +
        "it, then git reset), or run with --force to skip this check",
      EXIT.setup,
    );
  }
  if (state.kind === "no-repository") {
    warn(
      `cannot check for uncommitted changes: ${state.why}; going on (git status, git diff and ` +
        "git stash are how you keep your own work apart from a run's)",
    );
    return;
  }
  const named = nameSome(
    state.paths.map((entry) => `${displayPath(entry.path)} (${entry.how})`),
    { limit: NAMED },
  );
  throw new CodeCommitError(
    `the project has uncommitted changes in ${
      plural(state.paths.length, "path")
    } a reply could write: ${named}. ` +
      "Commit or stash them first (git status lists them), so this run's changes stay apart " +
      "from yours, or run with --force to go on anyway",
    EXIT.setup,
  );
}

/**
 * `git status --porcelain -z` of the repository at `root`, untracked files
 * one by one, run as code-commit's helper (`permissions/git.ts`).
 */
async function gitStatus(
  root: string,
): Promise<{ code: number; signal: Deno.Signal | null; stdout: Uint8Array; stderr: string }> {
  // git opens every .gitignore it meets: a fifo there would keep it waiting forever.
  const { output } = await runGit([
    "status",
    "--porcelain=v1",
    "-z",
    "--untracked-files=all",
    "--no-renames",
    "--ignore-submodules=dirty",
  ], {
    cwd: root,
    signal: AbortSignal.timeout(GIT_STATUS_TIMEOUT_MS),
    projectRoot: await Deno.realPath(root),
  });
  return {
    code: output.code,
    signal: output.signal,
    stdout: output.stdout,
    stderr: new TextDecoder().decode(output.stderr),
  };
}

/** What each status letter means, for the refusal. */
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

/** Reads `git status --porcelain=v1 -z` output: `XY path\0`, renames followed by `from\0`. */
function parseStatus(bytes: Uint8Array): UncommittedPath[] {
  const fields = new TextDecoder().decode(bytes).split("\0");
  const paths: UncommittedPath[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    if (field.length < 4) continue;
    const x = field[0];
    const y = field[1];
    const path = field.slice(3);
    const letter = y !== " " && y !== "?" ? y : x;
    paths.push({ path, how: STATUS_WORDS[x === "?" ? "?" : letter] ?? "changed" });
    if (x === "R" || x === "C") i++; // the path it came from
  }
  return paths;
}
