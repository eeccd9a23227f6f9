/**
 * A `.git` that is a file (a worktree's, a submodule's, or a repository
 * kept elsewhere: `gitdir: .repo`) holds where git's data really is. When
 * that place is inside the project, it is git's data all the same: its
 * `config` and `hooks/` are run by the user's next `git commit`. The guard
 * refuses replies there and the sandbox makes it read-only, as for `.git`
 * itself; this module reads the pointer, the way git reads it.
 *
 * @module
 */
import { readSmallFileSync } from "../file_system/bounded_read.ts";
import { folderOf, linkTarget } from "../file_system/paths.ts";

/** A `.git` file larger than this is not a pointer git would read either. */
const MAX_GITDIR_FILE = 64 * 1024;

/** The prefix git requires of a `.git` file. */
const PREFIX = "gitdir: ";

/**
 * Reads the `.git` file at `path` (absolute) and returns the absolute place
 * it names (relative to the file's folder when written relative, with `.`
 * and `..` resolved as written, links not followed), or undefined when
 * `path` is not a regular file or not of the form `gitdir: <path>`.
 * Synchronous: a file of a few bytes, read once per guard run and per
 * sandbox plan. Never throws.
 */
function gitdirOf(path: string): string | undefined {
  const text = readText(path);
  if (text === undefined || !text.startsWith(PREFIX)) return undefined;
  // git takes the first line and drops trailing white space.
  const target = text.slice(PREFIX.length).split("\n")[0].replace(/\s+$/, "");
  if (target === "") return undefined;
  return linkTarget(folderOf(path), target);
}

/**
 * The places git's data lies at for the `.git` file at `path`: the folder
 * it names and, when that folder holds a `commondir` file (a linked
 * worktree's), the common folder it names. Absolute, as written; empty when
 * `path` is not a `gitdir:` file. Never throws.
 */
export function gitdirPlaces(path: string): string[] {
  const gitdir = gitdirOf(path);
  if (gitdir === undefined) return [];
  const places = [gitdir];
  // No commondir (or one that cannot be read): the gitdir is all.
  const line = readText(`${gitdir}/commondir`)?.split("\n")[0].replace(/\s+$/, "");
  if (line) places.push(linkTarget(gitdir, line));
  return places;
}

/** The text of the small regular file at `path`, or undefined. Never throws. */
function readText(path: string): string | undefined {
  const bytes = readSmallFileSync(path, MAX_GITDIR_FILE);
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
}
