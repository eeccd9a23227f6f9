/**
 * Is the current folder the root of a git repository? code-commit works on
 * the project it is started in, and its ignore checks (the keys must stay
 * out of git, the guard's "anything git ignores") read `.gitignore` files
 * from that folder down: started in a subfolder, it would miss the rules
 * above it and advise creating a `.gitignore` in the wrong place.
 *
 * A folder holding `.git` (a folder, or a file as in a worktree or a
 * submodule) is a root, and git is not run. Otherwise git is asked once
 * where the enclosing repository is (`git rev-parse --show-toplevel`, which
 * reads the repository's configuration but runs no program it names): the
 * tool may read only the folder it was started in, so it cannot look above
 * it itself.
 *
 * @module
 */

import { CodeCommitError } from "../errors/errors.ts";
import { lstatOrUndefined } from "../file_system/lstat.ts";
import { displayPath } from "../text/characters.ts";
import { runSystemProgram } from "../permissions/system_programs.ts";
import { under } from "../file_system/file_system.ts";

/** Where the folder stands with respect to git. */
type RepositoryPlace =
  | { readonly kind: "root" }
  | { readonly kind: "inside"; readonly root: string }
  | { readonly kind: "none" };

/** Finds the enclosing repository of a folder; the default runs git. */
export type FindRepository = (folder: string) => Promise<string | undefined>;

/**
 * Says whether `folder` is the root of a git repository, inside one (and
 * where its root is), or in none. Never throws: when git cannot be run, a
 * folder without `.git` counts as in none.
 */
async function repositoryPlace(
  folder: string,
  findRepository: FindRepository = gitTopLevel,
): Promise<RepositoryPlace> {
  let info: Deno.FileInfo | undefined;
  try {
    info = await lstatOrUndefined(under(folder, ".git"));
  } catch {
    info = undefined;
  }
  if (info !== undefined && (info.isDirectory || info.isFile)) return { kind: "root" };
  const root = await findRepository(folder);
  if (root === undefined) return { kind: "none" };
  return root === folder ? { kind: "root" } : { kind: "inside", root };
}

/**
 * Checks that `folder` is not a subfolder of a git repository; with
 * `required`, also that it is a repository at all.
 *
 * @throws {CodeCommitError} saying "run from <root>" when `folder` is inside
 * a repository but not its root, and, with `required`, saying that git is
 * needed when it is in none.
 */
export async function checkRepositoryRoot(
  folder: string,
  required: boolean,
  findRepository: FindRepository = gitTopLevel,
): Promise<void> {
  const place = await repositoryPlace(folder, findRepository);
  if (place.kind === "inside") {
    throw new CodeCommitError(
      `${displayPath(folder)} is inside the git repository ${displayPath(place.root)}, not at ` +
        `its root: run code-commit from ${displayPath(place.root)}`,
    );
  }
  if (place.kind === "none" && required) {
    throw new CodeCommitError(
      `${displayPath(folder)} is not a git repository: code-commit needs git, whose ignore rules ` +
        `keep your API keys out of commits and whose diff shows what a run changed; ` +
        `run git init here first (or start code-commit in your repository's root)`,
    );
  }
}

/**
 * The root of the git repository enclosing `folder` (`git rev-parse
 * --show-toplevel`, git from its system path, never from `PATH`), or
 * undefined when there is none or git cannot be run. Never throws.
 */
async function gitTopLevel(folder: string): Promise<string | undefined> {
  try {
    const { output } = await runSystemProgram("git", {
      args: ["--no-optional-locks", "-c", "core.fsmonitor=false", "rev-parse", "--show-toplevel"],
      cwd: folder,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }, await Deno.realPath(folder));
    if (!output.success) return undefined;
    const top = new TextDecoder().decode(output.stdout).replace(/\n$/, "");
    return top === "" ? undefined : top;
  } catch {
    return undefined;
  }
}
