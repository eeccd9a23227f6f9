/**
 * A `.git` file (`gitdir: .repo`) names where git's data is; inside the project it is git's data
 * all the same (its hooks run at the next commit). This reads the pointer as git does and finds
 * every `.git` file in the folders git reads.
 *
 * @module
 */
import { readSmallFileSync } from "../file_system/bounded_read.ts";
import { under } from "../file_system/file_system.ts";
import { folderOf, linkTarget, relativeUnder } from "../file_system/paths.ts";
import { foldCase } from "./case_fold.ts";
import { type EntryKind, kindOf } from "./entry_kinds.ts";
import type { IgnoreRules } from "./ignore_rules.ts";

/** A `.git` file larger than this is not a pointer git would read either. */
const MAX_GITDIR_FILE = 64 * 1024;

const PREFIX = "gitdir: ";

/**
 * Where git's data lies for the `.git` file at `path`: the folder it names and the `commondir` a
 * linked worktree's names. Absolute, as written; empty when not a `gitdir:` file. Never throws.
 */
export function gitdirPlaces(path: string): string[] {
  const line = firstLine(path);
  // Its trailing white space gone, a line that starts with the prefix names a place.
  if (line === undefined || !line.startsWith(PREFIX)) return [];
  const gitdir = linkTarget(folderOf(path), line.slice(PREFIX.length));
  const common = firstLine(`${gitdir}/commondir`);
  return common ? [gitdir, linkTarget(gitdir, common)] : [gitdir];
}

/**
 * The first line of the small regular file at `path`, trailing white space dropped as git drops
 * it; undefined when there is no such file. Never throws.
 */
function firstLine(path: string): string | undefined {
  const bytes = readSmallFileSync(path, MAX_GITDIR_FILE);
  if (bytes === undefined) return undefined;
  return new TextDecoder().decode(bytes).split("\n")[0].replace(/\s+$/, "");
}

/** The real path of `path`, or undefined when it cannot be resolved (missing, unreadable). */
export function realPath(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch {
    return undefined;
  }
}

/** `path` with the links of its deepest existing folder resolved, or undefined. Never throws. */
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
 * The places inside `realRoot` the `.git` file `gitFile` names, relative: as written, with its
 * folders' links resolved, and where it really ends. A place not there yet counts (a reply could
 * create it); one outside does not. Never throws.
 */
export function gitdirPlacesInside(realRoot: string, gitFile: string): string[] {
  const places = new Set<string>();
  for (const place of gitdirPlaces(gitFile)) {
    // As written, with its folders' links resolved, and where it really ends (once it exists).
    for (const candidate of [place, realFolders(place), realPath(place)]) {
      const inside = candidate === undefined ? undefined : relativeUnder(realRoot, candidate);
      if (inside !== undefined) places.add(inside);
    }
  }
  return [...places];
}

/**
 * Every `.git` file (relative) naming places inside the project as git's data, in order found,
 * with those places; and the places folded.
 */
export interface GitData {
  readonly files: readonly { readonly file: string; readonly places: readonly string[] }[];
  readonly folded: ReadonlySet<string>;
}

/** What was found for each project, by the ignore rules' `lstat` cache (one per batch of checks). */
const FOUND = new WeakMap<object, Promise<GitData>>();

/**
 * Every `.git` file in the folders git reads naming a place inside the project, found once per
 * set of rules. An unlistable folder is passed over (git cannot read it either).
 *
 * @throws {CodeCommitError} (as a rejection) when an ignore file cannot be read.
 */
export function findGitFiles(rules: IgnoreRules): Promise<GitData> {
  return FOUND.getOrInsertComputed(rules.entries, () => find(rules.withIgnoreCase(false)));
}

/** The walk of {@link findGitFiles}, with git's exact ignore rules. */
async function find(rules: IgnoreRules): Promise<GitData> {
  const realRoot = realPath(rules.root);
  if (realRoot === undefined) return { files: [], folded: new Set() };
  const files: { file: string; places: string[] }[] = [];
  const folded = new Set<string>();
  const visit = async (folder: string): Promise<void> => {
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
      if (name === ".gitignore") gitignore = kindOf(entry);
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
    // Only folders git does not ignore are listed: the listing's `.gitignore` kind is trusted.
    const ignores = await rules.inFolder(folder, gitignore);
    for (const name of folders) {
      const path = prefix + name;
      // git's data named from this folder or one above is not walked (`.repo/objects/`).
      if (folded.has(foldCase(path)) || ignores.ignores(name, true)) continue;
      await visit(path);
    }
  };
  await visit("");
  return { files, folded };
}

/** Whether `path` is, or lies under, a place `data` holds, case-folded. Never throws. */
export function isGitData(data: GitData, path: string): boolean {
  const folded = foldCase(path);
  if (data.folded.has(folded)) return true;
  for (let slash = folded.indexOf("/"); slash >= 0; slash = folded.indexOf("/", slash + 1)) {
    if (data.folded.has(folded.slice(0, slash))) return true;
  }
  return false;
}
