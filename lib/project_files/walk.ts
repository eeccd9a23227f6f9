/**
 * The walk of a project as the path guard sees it, shared by the context
 * builder (its codebase summary) and the auto workflow (module discovery,
 * a module's files): lists a folder, or a whole tree, the way git sees it.
 * Ignore rules are applied while walking, so an ignored folder
 * (`node_modules/`, `target/`, ...) is never opened; the protected entries
 * no prompt may read (`.git` at any depth, `agent-config/`, ... as
 * `protected_paths.ts` marks them unreadable) are never opened either, nor
 * is a place a `.git` file names as git's data (`.git` holding `gitdir:
 * .repo`, `sub/.git` holding `gitdir: ../.subrepo`: `gitdir_file.ts`);
 * symbolic links are never followed (they are left out, as the guard would
 * refuse to read them); special files (fifos, sockets, devices) are left out.
 *
 * An entry is left out when git ignores it, or when it is ignored once names
 * are compared without regard to case (as the path guard refuses both): the
 * walk lists only what the guard lets a prompt read. A name the guard's
 * syntax check refuses (a newline, a control character, a trailing dot, ...)
 * is left out and reported, so no file name can forge a line of a prompt
 * (a `--- path ---` block, a file list).
 *
 * @module
 */

import { CodeCommitError, messageOf } from "../errors/errors.ts";
import type { EntryKind } from "../guard/entry_kinds.ts";
import type { FolderIgnores, IgnoreRules } from "../guard/ignore_rules.ts";
import { foldCase } from "../guard/case_fold.ts";
import { checkPathSyntax } from "../guard/path_syntax.ts";
import { displayPath } from "../text/characters.ts";
import { PROTECTED_PATHS } from "../guard/protected_paths.ts";
import { findGitFiles, type GitData } from "../guard/gitdir_file.ts";
import { comparePaths } from "./order.ts";

/** One folder as the walk saw it. Paths are relative to the project root, `/`-separated. */
export interface FolderListing {
  /** The folder (`""` for the project root). */
  readonly path: string;
  /** The regular files directly in it that may be listed, sorted. */
  readonly files: readonly string[];
  /** The folders directly in it that may be listed, sorted. */
  readonly folders: readonly string[];
}

/**
 * An entry the walk left out for a reason the user should hear about:
 * - `refused-name`: a file or folder whose name the guard's syntax check
 *   refuses; `reason` is the check's problem (`contains the control
 *   character U+000A`);
 * - `unreadable-folder`: a folder that could not be read (permission
 *   denied, removed meanwhile); `reason` is the error message;
 * - only with `WalkOptions.reportAll`: `symbolic-link`, a link git would
 *   list (not ignored), never followed; `ignored-by-case`, an entry git
 *   does not ignore but would if names were compared without regard to
 *   case (the guard refuses those too); `special`, a fifo, socket or device
 *   that is not ignored (git lists none of them, and nothing reads one).
 *
 * Show it with {@link describeSkipped}.
 */
export interface SkippedEntry {
  /** The entry's path, relative to the project root (shown with `displayPath`: it may hold anything). */
  readonly path: string;
  /** Why it was left out. */
  readonly kind:
    | "refused-name"
    | "unreadable-folder"
    | "symbolic-link"
    | "ignored-by-case"
    | "special";
  /** Whether the entry is a folder (always, for an unreadable folder). */
  readonly isDirectory: boolean;
  /** The detail: the syntax problem, or the error message. */
  readonly reason: string;
}

/** What a walk found. */
export interface WalkResult {
  /** Every folder walked, the start folder first, then in tree order (parents before children, names sorted). */
  readonly folders: readonly FolderListing[];
  /** Entries left out that the user should be told about (unreadable folders, refused names). */
  readonly skipped: readonly SkippedEntry[];
}

/**
 * Reads the entries of a folder: `Deno.readDirSync` by default (one call for
 * the whole folder, where `Deno.readDir` costs a promise per entry); tests
 * observe which folders are opened, or make one fail.
 */
export type ReadDir = (
  absolutePath: string,
) => Iterable<Deno.DirEntry> | AsyncIterable<Deno.DirEntry>;

/** Options of a walk. */
export interface WalkOptions {
  /** How folders are read (default `Deno.readDirSync`). */
  readonly readDir?: ReadDir;
  /** How many folders are listed at once (default 32): their rule files are read meanwhile. */
  readonly concurrency?: number;
  /**
   * Whether {@link walkTree} descends into `folder`, a folder a listing holds
   * (default: into every one). A folder it does not enter is still listed in
   * its parent's `folders`, and is never opened: the auto workflow stops at
   * nested modules this way.
   */
  readonly enter?: (folder: string) => boolean;
  /**
   * Also report, in `skipped`, the symbolic links git would list, the
   * entries left out only because they are ignored once case is folded,
   * and the special files that are not ignored (default false: those are
   * left out silently).
   */
  readonly reportAll?: boolean;
  /**
   * Called with each folder's listing as soon as it is made, in the order
   * folders are listed (not tree order): the rollup starts reading files
   * while the walk goes on. It must not throw.
   */
  readonly onListing?: (listing: FolderListing) => void;
  /**
   * Entries left out of every listing, silently, as if they were not there
   * (a folder left out is never entered): the project's `.codecommitignore`.
   */
  readonly exclude?: { excludes(path: string, isFolder: boolean): boolean };
}

const DEFAULT_CONCURRENCY = 32;

/**
 * Names that `checkPathSyntax` certainly accepts once their folder was
 * accepted: ASCII letters, digits and `_ . + @ = , -`, not ending in `.`.
 * Every other name goes through the full check.
 */
const PLAIN_NAME = /^[A-Za-z0-9_.+@=,-]*[A-Za-z0-9_+@=,-]$/;

/** Folded names no prompt may read wherever they are (`.git`). */
const UNREADABLE_ANYWHERE = new Set(
  PROTECTED_PATHS.filter((entry) => !entry.readable && entry.scope === "any-depth-name")
    .map((entry) => foldCase(entry.name)),
);

/** Folded names no prompt may read in the project root (`agent-config`, ..., and `.git`). */
const UNREADABLE_IN_ROOT = new Set(
  PROTECTED_PATHS.filter((entry) => !entry.readable).map((entry) => foldCase(entry.name)),
);

/**
 * Whether the entry `name` of `folder` (whose path with a trailing `/` is
 * `prefix`) is a protected entry no prompt may read: the protected table's
 * unreadable entries, and the places `.git` files name as git's data
 * (`gitData`, the project's). Its parent folders were checked on the way
 * down, so only the entry itself is looked up: an unreadable entry is
 * never masked by a readable one above it (`target/.git` is still `.git`),
 * and what lies in git's data is never reached. Never throws.
 */
function isUnreadableEntry(
  folder: string,
  prefix: string,
  name: string,
  plain: boolean,
  gitData: GitData,
): boolean {
  if (gitData.folded.size > 0 && gitData.folded.has(foldCase(prefix + name))) return true;
  const names = folder === "" ? UNREADABLE_IN_ROOT : UNREADABLE_ANYWHERE;
  // A plain name folds to one of its own length: most names have none of theirs.
  if (plain && !LENGTHS.get(names)!.has(name.length)) return false;
  return names.has(plain ? name.toLowerCase() : foldCase(name));
}

/** The lengths of the names in each set. */
const LENGTHS = new Map(
  [UNREADABLE_IN_ROOT, UNREADABLE_ANYWHERE].map((names) => [
    names,
    new Set([...names].map((name) => name.length)),
  ]),
);

/** The longest path, in UTF-16 code units, that is surely under the syntax check's 4096 bytes. */
const SURELY_SHORT = Math.floor(4096 / 3);

/**
 * Lists the folder `folder` (relative to `root`; `""` is the root) without
 * descending: its files and its folders that are neither ignored (exactly or
 * case-folded), nor unreadable protected entries, nor symbolic links, nor
 * special files, nor names the path syntax check refuses (those are reported
 * in `skipped`). The folder itself is trusted: the caller checked it.
 *
 * @throws {CodeCommitError} when an ignore file cannot be read (the ignore
 * rules cannot decide, so nothing may be listed).
 * @throws {Deno.errors.NotFound} and other file system errors when the
 * folder itself cannot be read.
 */
export function listFolder(
  root: string,
  folder: string,
  rules: IgnoreRules,
  options: WalkOptions = {},
): Promise<{ listing: FolderListing; skipped: SkippedEntry[] }> {
  return list(root, folder, rules, options, false);
}

/** {@link listFolder}; `visible`: the folder came from a listing of these rules (it is not ignored). */
async function list(
  root: string,
  folder: string,
  rules: IgnoreRules,
  options: WalkOptions,
  visible: boolean,
): Promise<{ listing: FolderListing; skipped: SkippedEntry[] }> {
  // The `.git` files of the project, found once for these rules: what they name is git's data.
  const gitData = await findGitFiles(rules);
  const read = (options.readDir ?? Deno.readDirSync)(folder === "" ? root : `${root}/${folder}`);
  const reportAll = options.reportAll ?? false;
  // One pass over the entries (each property read of a Deno.DirEntry costs): the files,
  // folders (and, with reportAll, links and special files) whose names may be listed, and what
  // `.gitignore` is.
  const fileNames: string[] = [];
  const folderNames: string[] = [];
  const linkNames: string[] = [];
  const specialNames: string[] = [];
  const skipped: SkippedEntry[] = [];
  let gitignore: EntryKind = "missing";
  const prefix = folder === "" ? "" : `${folder}/`;
  const entries: Iterable<Deno.DirEntry> = Symbol.iterator in read
    ? read
    : await Array.fromAsync(read);
  for (const entry of entries) {
    // Each property read of a Deno.DirEntry is a dictionary lookup: most entries are files, so
    // `isFile` is read first and `isDirectory` only for the others.
    const name = entry.name;
    const isFile = entry.isFile;
    const isDirectory = !isFile && entry.isDirectory;
    // A symbolic link is neither a file nor a folder here (the entry is not followed).
    const listable = isFile || isDirectory;
    const other = listable ? undefined : kindOf(entry);
    if (name === ".gitignore") gitignore = isDirectory ? "folder" : other ?? "file";
    if (!listable && !reportAll) continue;
    const plain = name.length <= 255 && PLAIN_NAME.test(name);
    if (!plain || prefix.length + name.length > SURELY_SHORT) {
      const syntax = checkPathSyntax(prefix + name);
      if (syntax !== undefined) {
        skipped.push({ path: prefix + name, kind: "refused-name", isDirectory, reason: syntax });
        continue;
      }
    }
    if (isUnreadableEntry(folder, prefix, name, plain, gitData)) continue;
    (other === "symlink"
      ? linkNames
      : other === "special"
      ? specialNames
      : isDirectory
      ? folderNames
      : fileNames).push(name);
  }

  // The folder was just read: what its `.gitignore` is needs no lstat of its own.
  const ignored = await rules.inFolderEitherCase(folder, { gitignore, visible });
  const report = reportAll ? skipped : undefined;
  let files = shown(fileNames, false, prefix, ignored, report);
  let folders = shown(folderNames, true, prefix, ignored, report);
  const exclude = options.exclude;
  if (exclude !== undefined) {
    files = files.filter((path) => !exclude.excludes(path, false));
    folders = folders.filter((path) => !exclude.excludes(path, true));
  }
  for (const path of shown(linkNames, false, prefix, ignored, report)) {
    skipped.push({
      path,
      kind: "symbolic-link",
      isDirectory: false,
      reason: "a symbolic link, never followed",
    });
  }
  for (const path of shown(specialNames, false, prefix, ignored, report)) {
    skipped.push({
      path,
      kind: "special",
      isDirectory: false,
      reason: "a fifo, socket or device, not a regular file",
    });
  }
  return { listing: { path: folder, files, folders }, skipped };
}

/**
 * The paths (`prefix` + name) of the `names` git does not ignore, in
 * code-unit order (siblings share their folder: sorting names sorts paths);
 * with `report`, the ones ignored only once case is folded are added to it.
 */
function shown(
  names: string[],
  isFolder: boolean,
  prefix: string,
  ignored: FolderIgnores,
  report: SkippedEntry[] | undefined,
): string[] {
  // Without a comparator, sort compares UTF-16 code units, as compareCodePoints does.
  names.sort();
  const paths: string[] = [];
  for (const name of names) {
    const verdict = ignored.verdict(name, isFolder);
    if (verdict === "shown") paths.push(prefix + name);
    else if (verdict === "ignored-by-case" && report !== undefined) {
      report.push({
        path: prefix + name,
        kind: "ignored-by-case",
        isDirectory: isFolder,
        reason: "git ignores it once names are compared without regard to case",
      });
    }
  }
  return paths;
}

/** The kind of a folder entry that is neither a file nor a folder. */
function kindOf(entry: Deno.DirEntry): "symlink" | "special" {
  return entry.isSymlink ? "symlink" : "special";
}

/**
 * Walks the tree under `start` (relative to `root`; `""` is the root, which
 * is trusted, as is `start`: check it first), listing every folder with
 * {@link listFolder} and descending only into the folders it lists (and,
 * with `options.enter`, only into those it accepts). A folder that cannot be
 * read (permission denied, removed meanwhile) is reported in `skipped` and
 * left out, as git leaves it out.
 *
 * @throws {CodeCommitError} when an ignore file cannot be read.
 * @throws {Deno.errors.NotFound} and other file system errors when `start`
 * itself cannot be read.
 */
export async function walkTree(
  root: string,
  start: string,
  rules: IgnoreRules,
  options: WalkOptions = {},
): Promise<WalkResult> {
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  const enter = options.enter;
  const first = await listFolder(root, start, rules, options);
  options.onListing?.(first.listing);
  const folders: FolderListing[] = [first.listing];
  const skipped: SkippedEntry[] = [...first.skipped];
  let level = enter === undefined
    ? [...first.listing.folders]
    : first.listing.folders.filter(enter);
  while (level.length > 0) {
    const next: string[] = [];
    for (let offset = 0; offset < level.length; offset += concurrency) {
      const batch = level.slice(offset, offset + concurrency);
      const results = await Promise.all(batch.map(async (folder) => {
        try {
          return await list(root, folder, rules, options, true);
        } catch (error) {
          if (error instanceof CodeCommitError) throw error;
          return { folder, error };
        }
      }));
      for (const result of results) {
        if ("error" in result) {
          skipped.push({
            path: result.folder,
            kind: "unreadable-folder",
            isDirectory: true,
            reason: messageOf(result.error),
          });
          continue;
        }
        folders.push(result.listing);
        options.onListing?.(result.listing);
        skipped.push(...result.skipped);
        if (enter === undefined) next.push(...result.listing.folders);
        else for (const folder of result.listing.folders) if (enter(folder)) next.push(folder);
      }
    }
    level = next;
  }
  folders.sort((a, b) => comparePaths(a.path, b.path));
  skipped.sort((a, b) => comparePaths(a.path, b.path));
  return { folders, skipped };
}

/**
 * One line telling the user about `entry`, for a walk whose result goes into
 * `what` (`the summary`, `the codebase`): `"src/a\nb.ts": left out of the
 * summary: contains the control character U+000A`, or `src/a: could not be
 * read, so it is left out of the summary: Permission denied`. The path is
 * shown with `displayPath`. Never throws.
 */
export function describeSkipped(entry: SkippedEntry, what: string): string {
  const path = displayPath(entry.path);
  return entry.kind === "unreadable-folder"
    ? `${path}: could not be read, so it is left out of ${what}: ${entry.reason}`
    : `${path}: left out of ${what}: ${entry.reason}`;
}
