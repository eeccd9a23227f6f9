/**
 * Is the current folder the root of a git repository? code-commit works on
 * the project it is started in, and its ignore checks (the keys must stay
 * out of git, the guard's "anything git ignores") read `.gitignore` files
 * from that folder down: started in a subfolder, it would miss the rules
 * above it and advise creating a `.gitignore` in the wrong place.
 *
 * git itself says where the repository is (`git rev-parse
 * --show-toplevel`, run as code-commit's helper: `permissions/git.ts`): a
 * folder is a root only when git finds the repository there. A `.git` that
 * is an empty folder, a file that leads nowhere, or anything else git does
 * not take for a repository does not make a root: git walks on up, as from
 * any subfolder, and the answer is "run from" the root it finds (or none).
 * A `.git` file git cannot even read stops git in that folder; git is then
 * asked from the folder above. The tool may read only the folder it was
 * started in, so it cannot look above it itself.
 *
 * @module
 */

import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { lstatOrUndefined } from "../file_system/lstat.ts";
import { displayPath } from "../text/characters.ts";
import { runGit } from "../permissions/git.ts";
import { under } from "../file_system/file_system.ts";

/** Where the folder stands with respect to git. */
type RepositoryPlace =
  | { readonly kind: "root" }
  | { readonly kind: "inside"; readonly root: string }
  | { readonly kind: "none" };

/**
 * Finds the root of the repository enclosing a folder (the folder itself
 * included), or undefined; the default runs git.
 */
export type FindRepository = (folder: string) => Promise<string | undefined>;

/**
 * Says whether `folder` is the root of a git repository, inside one (and
 * where its root is), or in none: when git cannot be run, the folder
 * counts as in none.
 *
 * @throws what `findRepository` throws.
 */
async function repositoryPlace(
  folder: string,
  findRepository: FindRepository = gitTopLevel,
): Promise<RepositoryPlace> {
  const root = await findRepository(folder);
  if (root === undefined) return { kind: "none" };
  return await sameFolder(root, folder) ? { kind: "root" } : { kind: "inside", root };
}

/** Whether two absolute paths name one folder (links resolved); false when either cannot be resolved. */
async function sameFolder(a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  try {
    return await Deno.realPath(a) === await Deno.realPath(b);
  } catch {
    return false;
  }
}

/**
 * Checks that `folder` is not a subfolder of a git repository; with
 * `required`, also that it is a repository at all.
 *
 * @throws {CodeCommitError} (setup) saying "run from <root>" when `folder`
 * is inside a repository but not its root, and, with `required`, saying
 * that git is needed when it is in none; when git refuses the repository
 * as another user's.
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
      EXIT.setup,
    );
  }
  if (place.kind === "none" && required) {
    throw new CodeCommitError(
      `${displayPath(folder)} is not a git repository: code-commit needs git, whose ignore rules ` +
        `keep your API keys out of commits and whose diff shows what a run changed; ` +
        `run git init here first (or start code-commit in your repository's root)`,
      EXIT.setup,
    );
  }
}

/**
 * The root of the git repository enclosing `folder` (`git rev-parse
 * --show-toplevel`, run as code-commit's helper), or undefined when there is
 * none or git cannot be run. When `folder` holds a `.git` git cannot read
 * (a file that is not `gitdir: <path>`), git stops there: it is asked
 * again from the folder above (`git -C ..`), where a plain subfolder's
 * search would have led.
 *
 * @throws {CodeCommitError} (setup) when git refuses the repository it
 * found because another user owns it (`safe.directory`): it is a
 * repository, but git will not say where its root is.
 */
async function gitTopLevel(folder: string): Promise<string | undefined> {
  let projectRoot: string;
  try {
    projectRoot = await Deno.realPath(folder);
  } catch {
    return undefined;
  }
  const ask = async (chdir?: string): Promise<string | undefined> => {
    let output: Deno.CommandOutput;
    try {
      ({ output } = await runGit(["rev-parse", "--show-toplevel"], {
        cwd: folder,
        chdir,
        projectRoot,
      }));
    } catch {
      return undefined;
    }
    if (!output.success) {
      const stderr = new TextDecoder().decode(output.stderr);
      const dubious = /dubious ownership in repository at '([^\n]*)'/.exec(stderr);
      if (dubious !== null) {
        throw new CodeCommitError(
          `git refuses the repository at ${
            displayPath(dubious[1])
          } because another user owns it, so ` +
            "code-commit cannot tell where its root is: run code-commit as its owner, or, if " +
            `you trust it, git config --global --add safe.directory ${displayPath(dubious[1])}`,
          EXIT.setup,
        );
      }
      return undefined;
    }
    const top = new TextDecoder().decode(output.stdout).replace(/\n$/, "");
    return top === "" ? undefined : top;
  };
  const top = await ask();
  if (top !== undefined) return top;
  let marker: Deno.FileInfo | undefined;
  try {
    marker = await lstatOrUndefined(under(folder, ".git"));
  } catch {
    marker = undefined;
  }
  return marker === undefined || projectRoot === "/" ? undefined : await ask("..");
}
