/**
 * Is the current folder a repository's root? The ignore checks read `.gitignore` files from there
 * down: from a subfolder they would miss the rules above. git says where the root is (run as
 * code-commit's helper): the tool may read only its folder, so it cannot look above itself.
 * @module
 */

import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { lstatOrUndefined } from "../file_system/lstat.ts";
import { displayPath } from "../text/characters.ts";
import { runGit } from "../permissions/git.ts";
import { under } from "../file_system/file_system.ts";

/** Whether two absolute paths name one folder (links resolved); false when either cannot resolve. */
async function sameFolder(a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  const [realA, realB] = await Promise.all([Deno.realPath(a), Deno.realPath(b)]).catch(() => []);
  return realA !== undefined && realA === realB;
}

/**
 * Checks that `folder` is not a subfolder of a git repository; with `required`, that it is in one.
 * @throws {CodeCommitError} (setup) saying "run from <root>", that git is needed, or refuses it.
 */
export async function checkRepositoryRoot(folder: string, required: boolean): Promise<void> {
  const root = await gitTopLevel(folder);
  if (root !== undefined && !(await sameFolder(root, folder))) {
    throw new CodeCommitError(
      `${displayPath(folder)} is inside the git repository ${displayPath(root)}, not at ` +
        `its root: run code-commit from ${displayPath(root)}`,
      EXIT.setup,
    );
  }
  if (root === undefined && required) {
    throw new CodeCommitError(
      `${displayPath(folder)} is not a git repository: code-commit needs git, whose ignore rules ` +
        `keep your API keys out of commits and whose diff shows what a run changed; ` +
        `run git init here first (or start code-commit in your repository's root)`,
      EXIT.setup,
    );
  }
}

/**
 * The root of the repository enclosing `folder`, or undefined (also without git). A `.git` git
 * cannot read stops git there: it is asked again from the folder above.
 * @throws {CodeCommitError} (setup) when git refuses the repository as another user's.
 */
async function gitTopLevel(folder: string): Promise<string | undefined> {
  const projectRoot = await Deno.realPath(folder).catch(() => undefined);
  if (projectRoot === undefined) return undefined;
  const ask = async (chdir?: string): Promise<string | undefined> => {
    const output =
      (await runGit(["rev-parse", "--show-toplevel"], { cwd: folder, chdir, projectRoot })
        .catch(() => undefined))?.output;
    if (output === undefined) return undefined;
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
  const marker = await lstatOrUndefined(under(folder, ".git")).catch(() => undefined);
  return marker === undefined || projectRoot === "/" ? undefined : await ask("..");
}
