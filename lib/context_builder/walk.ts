/**
 * The walk behind the codebase summary: lists a folder, or a whole tree,
 * the way git sees it. Ignore rules are applied while walking, so an
 * ignored folder (`node_modules/`, `target/`, ...) is never opened; the
 * protected folders the context builder may not read (`.git` at any depth,
 * `agent-config/`, ... as `protected_paths.ts` marks them) are never opened
 * either; symbolic links are never followed (they are left out, as the guard
 * would refuse to read them); special files (fifos, sockets, devices) are left
 * out.
 *
 * An entry is left out when git ignores it, or when it is ignored once names
 * are compared without regard to case (as the path guard refuses both): the
 * walk lists only what the guard lets the context builder read. A name the
 * guard's syntax check refuses (a newline, a control character, a trailing
 * dot, ...) is left out and reported, so no file name can forge a line of the
 * summary.
 *
 * @module
 */

import { join } from "node:path";
import { CodeCommitError, messageOf } from "../errors/errors.ts";
import type { IgnoreRules } from "../guard/ignore_rules.ts";
import { foldCase } from "../guard/case_fold.ts";
import { checkPathSyntax } from "../guard/path_syntax.ts";
import { PROTECTED_PATHS } from "../guard/protected_paths.ts";

/** One folder as the walk saw it. Paths are relative to the project root, `/`-separated. */
export interface FolderListing {
  /** The folder (`""` for the project root). */
  readonly path: string;
  /** The regular files directly in it that may be listed, sorted. */
  readonly files: readonly string[];
  /** The folders directly in it that may be listed, sorted. */
  readonly folders: readonly string[];
}

/** An entry the walk left out for a reason the user should hear about. */
export interface SkippedEntry {
  /** The entry's path, relative to the project root (shown with `displayPath`: it may hold anything). */
  readonly path: string;
  /** Why it was left out. */
  readonly reason: string;
}

/** What a walk found. */
export interface WalkResult {
  /** Every folder walked, the start folder first, then in tree order (parents before children, names sorted). */
  readonly folders: readonly FolderListing[];
  /** Entries left out that the user should be told about (unreadable folders, refused names). */
  readonly skipped: readonly SkippedEntry[];
}

/** Reads the entries of a folder; `Deno.readDir` by default (tests observe which folders are opened). */
export type ReadDir = (absolutePath: string) => AsyncIterable<Deno.DirEntry>;

/** Options of a walk. */
export interface WalkOptions {
  /** How folders are read (default `Deno.readDir`). */
  readonly readDir?: ReadDir;
  /** How many folders are read at once (default 32). */
  readonly concurrency?: number;
}

const DEFAULT_CONCURRENCY = 32;

/**
 * Names that `checkPathSyntax` certainly accepts once their folder was
 * accepted: ASCII letters, digits and `_ . + @ = , -`, not ending in `.`.
 * Every other name goes through the full check.
 */
const PLAIN_NAME = /^[A-Za-z0-9_.+@=,-]*[A-Za-z0-9_+@=,-]$/;

/** Folded names the context builder may not read wherever they are (`.git`). */
const UNREADABLE_ANYWHERE = new Set(
  PROTECTED_PATHS.filter((entry) => !entry.readable && entry.scope === "any-depth-name")
    .map((entry) => foldCase(entry.name)),
);

/** Folded names the context builder may not read in the project root (`agent-config`, ...). */
const UNREADABLE_IN_ROOT = new Set(
  PROTECTED_PATHS.filter((entry) => !entry.readable).map((entry) => foldCase(entry.name)),
);

/**
 * Whether the entry `name` of `folder` is a protected entry the context
 * builder may not read. Its parent folders were checked on the way down, so
 * only the name itself is looked up: an unreadable entry is never masked by
 * a readable one above it (`target/.git` is still `.git`). Never throws.
 */
export function isUnreadableEntry(folder: string, name: string): boolean {
  const folded = PLAIN_NAME.test(name) ? name.toLowerCase() : foldCase(name);
  return UNREADABLE_ANYWHERE.has(folded) || (folder === "" && UNREADABLE_IN_ROOT.has(folded));
}

/** The longest path, in UTF-16 code units, that is surely under the syntax check's 4096 bytes. */
const SURELY_SHORT = Math.floor(4096 / 3);

/**
 * Why the guard's syntax check refuses `path` (whose folder it accepted),
 * or `undefined`: the full check, skipped for plain names in short paths,
 * which it always accepts. Never throws.
 */
export function entrySyntaxProblem(path: string, name: string): string | undefined {
  if (name.length <= 255 && path.length <= SURELY_SHORT && PLAIN_NAME.test(name)) return undefined;
  return checkPathSyntax(path);
}

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
export async function listFolder(
  root: string,
  folder: string,
  rules: IgnoreRules,
  options: WalkOptions = {},
): Promise<{ listing: FolderListing; skipped: SkippedEntry[] }> {
  const readDir = options.readDir ?? Deno.readDir;
  const exact = rules.withIgnoreCase(false);
  const folded = rules.withIgnoreCase(true);
  const candidates: { path: string; isDirectory: boolean }[] = [];
  const skipped: SkippedEntry[] = [];
  for await (const entry of readDir(join(root, folder))) {
    if (entry.isSymlink || !(entry.isFile || entry.isDirectory)) continue;
    const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
    const syntax = entrySyntaxProblem(path, entry.name);
    if (syntax !== undefined) {
      skipped.push({ path, reason: `left out of the summary: ${syntax}` });
      continue;
    }
    if (isUnreadableEntry(folder, entry.name)) continue;
    candidates.push({ path, isDirectory: entry.isDirectory });
  }
  const files: string[] = [];
  const folders: string[] = [];
  for (const { path, isDirectory } of candidates) {
    if (await exact.isIgnored(path, isDirectory) || await folded.isIgnored(path, isDirectory)) {
      continue;
    }
    (isDirectory ? folders : files).push(path);
  }
  // Siblings share their folder: comparing whole paths is comparing names.
  files.sort(compareCodeUnits);
  folders.sort(compareCodeUnits);
  return { listing: { path: folder, files, folders }, skipped };
}

/**
 * Walks the tree under `start` (relative to `root`; `""` is the root, which
 * is trusted, as is `start`: check it first), listing every folder with
 * {@link listFolder} and descending only into the folders it lists. A folder
 * that cannot be read (permission denied, removed meanwhile) is reported in
 * `skipped` and left out, as git leaves it out.
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
  const first = await listFolder(root, start, rules, options);
  const folders: FolderListing[] = [first.listing];
  const skipped: SkippedEntry[] = [...first.skipped];
  let level: string[] = [...first.listing.folders];
  while (level.length > 0) {
    const next: string[] = [];
    for (let offset = 0; offset < level.length; offset += concurrency) {
      const batch = level.slice(offset, offset + concurrency);
      const results = await Promise.all(batch.map(async (folder) => {
        try {
          return await listFolder(root, folder, rules, options);
        } catch (error) {
          if (error instanceof CodeCommitError) throw error;
          return { folder, error };
        }
      }));
      for (const result of results) {
        if ("error" in result) {
          skipped.push({
            path: result.folder,
            reason: `could not be read, so it is left out: ${messageOf(result.error)}`,
          });
          continue;
        }
        folders.push(result.listing);
        skipped.push(...result.skipped);
        next.push(...result.listing.folders);
      }
    }
    level = next;
  }
  folders.sort((a, b) => comparePaths(a.path, b.path));
  skipped.sort((a, b) => comparePaths(a.path, b.path));
  return { folders, skipped };
}

/**
 * Orders project paths in tree order: segment by segment, each compared by
 * UTF-16 code units, so a folder comes right before what is inside it
 * (`src/a`, `src/a/b`, `src/a-b`). Never throws.
 */
export function comparePaths(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const left = a.charCodeAt(index);
    const right = b.charCodeAt(index);
    if (left === right) continue;
    if (left === SLASH) return -1;
    if (right === SLASH) return 1;
    return left - right;
  }
  return a.length - b.length;
}

const SLASH = 0x2f;

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
