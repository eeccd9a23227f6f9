/**
 * The dirty-tree check (committing code and the auto workflow, before any
 * LLM call): a run must not mix its changes into work of the user's that
 * is not committed. It asks git itself (`git status`), which knows its own
 * rules exactly — the index, renames, what is ignored, nested ignore
 * files, `core.excludesFile` — rather than reading git's files as the
 * `.gitignore` check must (that one runs before git is trusted with
 * anything). git runs with `core.fsmonitor` off and no optional locks: it
 * starts no program the repository names, and writes nothing.
 *
 * Only paths a reply could write count: protected paths (`agent-config/`,
 * `logs/`, `agent-state/`, `build.sh`, …) never do, and git does not list
 * ignored ones. Outside a git repository there is nothing to compare with:
 * a warning, and the run goes on.
 *
 * @module
 */
import { CodeCommitError, messageOf } from "../errors/errors.ts";
import { protectedRulesFor } from "../guard/protected_paths.ts";
import { runSystemProgram } from "../permissions/system_programs.ts";
import { startTimer } from "../timers/timer.ts";
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
  | { readonly kind: "no-repository"; readonly why: string };

/**
 * What git reports uncommitted in the project at `root`, less the paths no
 * reply may write.
 *
 * Never throws: a folder that is not a repository, or a git that cannot be
 * run, is `no-repository` with the reason.
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
    );
  }
  if (result.code !== 0) {
    const first = result.stderr.split("\n").find((line) => line.trim() !== "") ?? "";
    return {
      kind: "no-repository",
      why: /not a git repository/i.test(result.stderr)
        ? "it is not a git repository"
        : `git status failed (${first.replace(/^fatal:\s*/, "")})`,
    };
  }
  const paths = parseStatus(result.stdout).filter((entry) =>
    protectedRulesFor(entry.path).length === 0
  );
  return paths.length === 0 ? { kind: "clean" } : { kind: "dirty", paths };
}

/**
 * Refuses a run on a tree with uncommitted changes a reply could mix with
 * (see {@link inspectTree}); outside a repository, warns through `warn`
 * and returns.
 *
 * @throws {CodeCommitError} naming up to ten paths and `--force`; or when
 * `git status` does not answer in time (it would wait forever on a fifo
 * named `.gitignore`).
 */
export async function checkCleanTree(
  root: string,
  warn: (line: string) => void,
): Promise<void> {
  const state = await inspectTree(root);
  if (state.kind === "clean") return;
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
  );
}

/**
 * `git status --porcelain -z` of the repository at `root`, untracked files
 * one by one; git is started from its system path, never looked up on `PATH`.
 */
async function gitStatus(
  root: string,
): Promise<{ code: number; signal: Deno.Signal | null; stdout: Uint8Array; stderr: string }> {
  // git opens every .gitignore it meets: a fifo there would keep it waiting forever.
  const stop = new AbortController();
  const timer = startTimer(GIT_STATUS_TIMEOUT_MS);
  timer.done.then((expired) => expired && stop.abort());
  const { output } = await runSystemProgram("git", {
    args: [
      "--no-optional-locks",
      "-c",
      "core.fsmonitor=false",
      "status",
      "--porcelain=v1",
      "-z",
      "--untracked-files=all",
      "--no-renames",
    ],
    cwd: root,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: stop.signal,
  }, await Deno.realPath(root)).finally(() => timer.cancel());
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
