/**
 * The walk of a project as the guard sees it: ignored (exactly or case-folded) and unreadable
 * entries never opened, links never followed, special files left out. A name the syntax check
 * refuses is left out and reported, so no file name can forge a line of a prompt.
 *
 * @module
 */

import { CodeCommitError, messageOf } from "../errors/errors.ts";
import type { EntryKind } from "../guard/entry_kinds.ts";
import type { IgnoreRules } from "../guard/ignore_rules.ts";
import { foldCase } from "../guard/case_fold.ts";
import { checkPathSyntax } from "../guard/path_syntax.ts";
import { displayPath } from "../text/characters.ts";
import { protectedRuleOfSegment } from "../guard/protected_paths.ts";
import { findGitFiles } from "../guard/gitdir_file.ts";
import { comparePaths } from "./order.ts";

/** One folder as the walk saw it (`""` the root): its listable files and folders, sorted. */
export interface FolderListing {
  readonly path: string;
  readonly files: readonly string[];
  readonly folders: readonly string[];
}

/**
 * An entry left out that the user should hear about: a refused name, an unreadable folder, and
 * with `reportAll` the links, case-folded ignores and special files git would list. `reason` is
 * the detail; show it with {@link describeSkipped} (the path may hold anything).
 */
export interface SkippedEntry {
  readonly path: string;
  readonly kind:
    | "refused-name"
    | "unreadable-folder"
    | "symbolic-link"
    | "ignored-by-case"
    | "special";
  readonly isDirectory: boolean;
  readonly reason: string;
}

/** What a walk found: every folder walked in tree order, and the entries skipped. */
export interface WalkResult {
  readonly folders: readonly FolderListing[];
  readonly skipped: readonly SkippedEntry[];
}

/** Reads a folder's entries (`Deno.readDirSync` by default: no promise per entry). */
export type ReadDir = (absolutePath: string) => Iterable<Deno.DirEntry>;

/** Options of a walk. */
export interface WalkOptions {
  readonly readDir?: ReadDir;
  /** How many folders are listed at once (default 32). */
  readonly concurrency?: number;
  /** Whether {@link walkTree} opens a listed folder (default: every one). */
  readonly enter?: (folder: string) => boolean;
  /** Also report links, case-folded ignores and special files in `skipped` (default: silent). */
  readonly reportAll?: boolean;
  /** Entries left out silently, never entered: the project's `.codecommitignore`. */
  readonly exclude?: { excludes(path: string, isFolder: boolean): boolean };
}

/** Names `checkPathSyntax` surely accepts once their folder was; others get the full check. */
const PLAIN_NAME = /^[A-Za-z0-9_.+@=,-]*[A-Za-z0-9_+@=,-]$/;

/** The longest path, in UTF-16 code units, that is surely under the syntax check's 4096 bytes. */
const SURELY_SHORT = Math.floor(4096 / 3);

/**
 * Lists `folder` (trusted: the caller checked it) without descending, as the module doc says.
 * `visible`: the folder came from a listing of these rules (it is not ignored).
 *
 * @throws {CodeCommitError} when an ignore file cannot be read.
 * @throws {Deno.errors.NotFound} and other file system errors when the folder cannot be read.
 */
export async function listFolder(
  root: string,
  folder: string,
  rules: IgnoreRules,
  options: WalkOptions = {},
  visible = false,
): Promise<{ listing: FolderListing; skipped: SkippedEntry[] }> {
  const gitData = await findGitFiles(rules);
  const entries = (options.readDir ?? Deno.readDirSync)(folder === "" ? root : `${root}/${folder}`);
  const reportAll = options.reportAll ?? false;
  const names: Record<string, string[]> = { file: [], folder: [], symlink: [], special: [] };
  const skipped: SkippedEntry[] = [];
  let gitignore: EntryKind = "missing";
  const prefix = folder === "" ? "" : `${folder}/`;
  for (const entry of entries) {
    // Each property read of a Deno.DirEntry costs: most are files, so `isFile` is read first.
    const name = entry.name;
    const isFile = entry.isFile;
    const isDirectory = !isFile && entry.isDirectory;
    // A symbolic link is neither a file nor a folder here (the entry is not followed).
    const kind = isFile ? "file" : isDirectory ? "folder" : entry.isSymlink ? "symlink" : "special";
    if (name === ".gitignore") gitignore = kind;
    if (!isFile && !isDirectory && !reportAll) continue;
    const plain = name.length <= 255 && PLAIN_NAME.test(name);
    if (!plain || prefix.length + name.length > SURELY_SHORT) {
      const syntax = checkPathSyntax(prefix + name);
      if (syntax !== undefined) {
        skipped.push({ path: prefix + name, kind: "refused-name", isDirectory, reason: syntax });
        continue;
      }
    }
    // Left out unseen: an unreadable protected entry, or git's data a `.git` file names.
    const unreadable = protectedRuleOfSegment(name, prefix === "")?.readable === false ||
      (gitData.folded.size > 0 && gitData.folded.has(foldCase(prefix + name)));
    if (!unreadable) names[kind].push(name);
  }

  // The folder was just read: what its `.gitignore` is needs no lstat of its own.
  const ignored = await rules.inFolderEitherCase(folder, visible ? gitignore : undefined);
  // The sorted paths of the `names` git does not ignore and `exclude` keeps; with `reportAll`,
  // the case-folded ignores are reported.
  const shown = (names: string[], isFolder: boolean, exclude?: WalkOptions["exclude"]) => {
    // Without a comparator, sort compares UTF-16 code units, as compareCodePoints does.
    names.sort();
    const paths: string[] = [];
    for (const name of names) {
      const path = prefix + name;
      const verdict = ignored.verdict(name, isFolder);
      if (verdict === "shown" && exclude?.excludes(path, isFolder) !== true) paths.push(path);
      else if (verdict === "ignored-by-case" && reportAll) {
        const reason = "git ignores it once names are compared without regard to case";
        skipped.push({ path, kind: "ignored-by-case", isDirectory: isFolder, reason });
      }
    }
    return paths;
  };
  const files = shown(names.file, false, options.exclude);
  const folders = shown(names.folder, true, options.exclude);
  const others = [
    [names.symlink, "symbolic-link", "a symbolic link, never followed"],
    [names.special, "special", "a fifo, socket or device, not a regular file"],
  ] as const;
  for (const [names, kind, reason] of others) {
    for (const path of shown(names, false)) {
      skipped.push({ path, kind, isDirectory: false, reason });
    }
  }
  return { listing: { path: folder, files, folders }, skipped };
}

/**
 * Walks the tree under `start` (trusted: check it first) with {@link listFolder}; a folder that
 * cannot be read is reported in `skipped` and left out, as git leaves it out.
 *
 * @throws {CodeCommitError} when an ignore file cannot be read.
 * @throws {Deno.errors.NotFound} and other file system errors when `start` cannot be read.
 */
export async function walkTree(
  root: string,
  start: string,
  rules: IgnoreRules,
  options: WalkOptions = {},
): Promise<WalkResult> {
  const concurrency = Math.max(1, options.concurrency ?? 32);
  const enter = options.enter ?? (() => true);
  const first = await listFolder(root, start, rules, options);
  const folders: FolderListing[] = [first.listing];
  const skipped: SkippedEntry[] = [...first.skipped];
  // Listed a batch at a time; the order found does not matter, both lists are sorted at the end.
  const queue = first.listing.folders.filter(enter);
  for (let offset = 0; offset < queue.length;) {
    const batch = queue.slice(offset, offset + concurrency);
    offset += batch.length;
    await Promise.all(
      batch.map(async (folder) => {
        let result;
        try {
          result = await listFolder(root, folder, rules, options, true);
        } catch (error) {
          if (error instanceof CodeCommitError) throw error;
          const reason = messageOf(error);
          skipped.push({ path: folder, kind: "unreadable-folder", isDirectory: true, reason });
          return;
        }
        folders.push(result.listing);
        // One push an entry: a spread of a folder of 150,000 subfolders overflows the stack.
        for (const entry of result.skipped) skipped.push(entry);
        for (const folder of result.listing.folders) if (enter(folder)) queue.push(folder);
      }),
    );
  }
  folders.sort((a, b) => comparePaths(a.path, b.path));
  skipped.sort((a, b) => comparePaths(a.path, b.path));
  return { folders, skipped };
}

/** One line telling the user about `entry`, for a walk whose result goes into `what`. */
export function describeSkipped(entry: SkippedEntry, what: string): string {
  const path = displayPath(entry.path);
  return entry.kind === "unreadable-folder"
    ? `${path}: could not be read, so it is left out of ${what}: ${entry.reason}`
    : `${path}: left out of ${what}: ${entry.reason}`;
}
