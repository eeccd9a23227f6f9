/**
 * A `.git` that is a file (a worktree's, a submodule's, or a repository
 * kept elsewhere: `gitdir: .repo`) holds where git's data really is. When
 * that place is inside the project, it is git's data all the same: its
 * `config` and `hooks/` are run by the user's next `git commit`. The guard
 * refuses replies there and the sandbox makes it read-only, as for `.git`
 * itself; the walk (rollup, context builder, auto workflow) leaves it out
 * of every prompt, as it leaves `.git` out. This module reads the pointer,
 * the way git reads it, and finds every `.git` file of a project.
 *
 * Which `.git` files: those in the folders git reads (the root and every
 * real folder, not a link, not a `.git`, that git's exact ignore rules do
 * not ignore), at any depth: a nested `sub/.git` naming `../.subrepo` makes
 * `.subrepo/` git's data as much as the root's `.git` file does. They are
 * found once per set of ignore rules (one walk of those folders, listing
 * them and reading no file but the `.git` files), which the guard, the
 * walk and the rollup load once per batch of checks.
 *
 * @module
 */
import { readSmallFileSync } from "../file_system/bounded_read.ts";
import { under } from "../file_system/file_system.ts";
import { folderOf, linkTarget, relativeUnder } from "../file_system/paths.ts";
import { foldCase } from "./case_fold.ts";
import type { EntryKind } from "./entry_kinds.ts";
import type { IgnoreRules } from "./ignore_rules.ts";

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

/**
 * `path` (absolute) with the links among its folders resolved: the real
 * path of the deepest folder on it that exists, followed by the rest.
 * Undefined when no folder on it can be resolved (outside what may be
 * read). Never throws.
 */
export function realFolders(path: string): string | undefined {
  const rest: string[] = [];
  let name = path;
  for (;;) {
    const folder = folderOf(name);
    rest.unshift(name.slice(folder === "/" ? 1 : folder.length + 1));
    if (folder === name) return undefined;
    try {
      return under(Deno.realPathSync(folder), rest.join("/"));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) return undefined;
      name = folder;
    }
  }
}

/**
 * The places inside the project at `realRoot` (absolute, links resolved)
 * that the `.git` file at `gitFile` (absolute) names as git's data (see
 * {@link gitdirPlaces}), relative to the root, `/`-separated: each place
 * as written, with the links of its folders resolved, and where it really
 * ends when it exists. A place that does not exist yet counts: a reply
 * could create it. Places outside the project (or the root itself) are
 * left out: no reply can write there. Never throws.
 */
export function gitdirPlacesInside(realRoot: string, gitFile: string): string[] {
  const places = new Set<string>();
  for (const place of gitdirPlaces(gitFile)) {
    for (const candidate of [place, realFolders(place)]) {
      const inside = candidate === undefined ? undefined : relativeUnder(realRoot, candidate);
      if (inside !== undefined) places.add(inside);
    }
    try {
      const end = relativeUnder(realRoot, Deno.realPathSync(place));
      if (end !== undefined) places.add(end);
    } catch {
      // Not there yet, or outside: the names above are what a reply could write.
    }
  }
  return [...places];
}

/** One `.git` file of a project and the places inside it that it names as git's data. */
export interface GitFile {
  /** The `.git` file, relative to the project root (`.git`, `sub/.git`). */
  readonly file: string;
  /** The places it names inside the project, relative to the root (see {@link gitdirPlacesInside}). */
  readonly places: readonly string[];
}

/** Every `.git` file of a project that names a place inside it, found by {@link findGitFiles}. */
export interface GitData {
  /** The `.git` files naming a place inside the project, in the order found. */
  readonly files: readonly GitFile[];
  /** Every place they name, folded (see `case_fold.ts`): what {@link isGitData} compares with. */
  readonly folded: ReadonlySet<string>;
}

/** What was found for each project, by the ignore rules' `lstat` cache (one per batch of checks). */
const FOUND = new WeakMap<object, Promise<GitData>>();

/**
 * Every `.git` file in the folders git reads in the project of `rules`
 * (see the module doc) that names a place inside the project, with those
 * places. Found once per set of rules (their `entries`, shared by the
 * rules compared with and without case folding): later calls get the same
 * answer. A folder that cannot be listed is passed over (git cannot read
 * a `.git` file in it either).
 *
 * @throws {CodeCommitError} (as a rejection) when an ignore file cannot be
 * read.
 */
export function findGitFiles(rules: IgnoreRules): Promise<GitData> {
  const key = rules.entries;
  let found = FOUND.get(key);
  if (found === undefined) {
    found = find(rules.withIgnoreCase(false));
    FOUND.set(key, found);
  }
  return found;
}

/** The walk of {@link findGitFiles}, with git's exact ignore rules. */
async function find(rules: IgnoreRules): Promise<GitData> {
  let realRoot: string;
  try {
    realRoot = Deno.realPathSync(rules.root);
  } catch {
    return { files: [], folded: new Set() };
  }
  const files: GitFile[] = [];
  const folded = new Set<string>();
  const visit = async (folder: string, visible: boolean): Promise<void> => {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(under(rules.root, folder))];
    } catch {
      return; // gone, or not ours to read
    }
    const prefix = folder === "" ? "" : `${folder}/`;
    const folders: string[] = [];
    let gitignore: EntryKind = "missing";
    for (const entry of entries) {
      const name = entry.name;
      if (name === ".gitignore") {
        gitignore = entry.isFile
          ? "file"
          : entry.isDirectory
          ? "folder"
          : entry.isSymlink
          ? "symlink"
          : "special";
      }
      if (foldCase(name) === ".git") {
        // A `.git` folder is git's data whole: never walked. A `.git` file says where it is.
        if (!entry.isFile) continue;
        const places = gitdirPlacesInside(realRoot, under(realRoot, prefix + name));
        if (places.length === 0) continue;
        files.push({ file: prefix + name, places });
        for (const place of places) folded.add(foldCase(place));
      } else if (entry.isDirectory) {
        folders.push(name);
      }
    }
    const ignores = await rules.inFolder(folder, { gitignore, visible });
    for (const name of folders) {
      const path = prefix + name;
      // git's data named from this folder or one above is not walked (`.repo/objects/`).
      if (folded.has(foldCase(path)) || ignores.ignores(name, true)) continue;
      await visit(path, true);
    }
  };
  await visit("", false);
  return { files, folded };
}

/**
 * Whether `path` (relative to the project root, normalized) is, or lies
 * under, a place `data` holds, comparing names without regard to case as
 * the guard does. Never throws.
 */
export function isGitData(data: GitData, path: string): boolean {
  if (data.folded.size === 0) return false;
  const folded = foldCase(path);
  if (data.folded.has(folded)) return true;
  for (let slash = folded.indexOf("/"); slash >= 0; slash = folded.indexOf("/", slash + 1)) {
    if (data.folded.has(folded.slice(0, slash))) return true;
  }
  return false;
}
