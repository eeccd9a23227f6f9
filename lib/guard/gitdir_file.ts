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
  let text: string;
  try {
    const info = Deno.lstatSync(path);
    if (!info.isFile || info.size > MAX_GITDIR_FILE) return undefined;
    // Opened only once it is known to be a regular file: a fifo would never answer.
    using file = Deno.openSync(path, { read: true });
    const bytes = new Uint8Array(info.size);
    let read = 0;
    while (read < bytes.length) {
      const got = file.readSync(bytes.subarray(read));
      if (got === null || got === 0) break;
      read += got;
    }
    text = new TextDecoder().decode(bytes.subarray(0, read));
  } catch {
    return undefined;
  }
  if (!text.startsWith(PREFIX)) return undefined;
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
  try {
    const common = `${gitdir}/commondir`;
    const info = Deno.lstatSync(common);
    if (info.isFile && info.size <= MAX_GITDIR_FILE) {
      const line = Deno.readTextFileSync(common).split("\n")[0].replace(/\s+$/, "");
      if (line !== "") places.push(linkTarget(gitdir, line));
    }
  } catch {
    // No commondir (or one outside what may be read): the gitdir is all.
  }
  return places;
}
