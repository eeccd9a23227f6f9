/**
 * The code rollup, `agent-config/codeRollup.txt`: the codebase committing
 * code and the consistency report send when `--build-context` is not given.
 * `code-commit --rollup` makes it from every file git would track, in the
 * `--- path ---` block format of the context builder and the auto workflow
 * (`lib/project_files/file_block.ts`), paths in code-point order.
 *
 * Which files: the tracked ones (read from `.git/index`, whatever the ignore
 * rules say) and the untracked ones git does not ignore (the shared walk,
 * `lib/project_files/walk.ts`, with git's rules: nested `.gitignore` files,
 * negations, `.git/info/exclude`) — what `git ls-files -co
 * --exclude-standard` lists — less what a prompt may not hold:
 * - `agent-config/`, `logs/`, `agent-state/`, `app-data/` and `.git` (the
 *   protected entries no prompt may read), and the places a `.git` file
 *   names as git's data (`.git` holding `gitdir: .repo`: `.repo/`), tracked
 *   or not;
 * - symbolic links (never followed), and files reached through one;
 * - files with more than one hard link (another name of the same file may
 *   be outside the project), as the context builder and the auto workflow
 *   leave them out;
 * - fifos, sockets and devices (git lists none of them either, but a user
 *   who put one there hears why it is not in the rollup);
 * - binary files (a NUL byte), files that are not UTF-8, and files larger
 *   than `MAX_FILE_BYTES` (1 MiB), as in the context builder;
 * - names the path guard refuses (a newline, a control character, ...),
 *   which could forge a block;
 * - untracked files git would ignore once names are compared without regard
 *   to case, as the path guard refuses them;
 * - what the project's `.codecommitignore` matches (counted on its own).
 * Each is counted in what the one-line summary says was left out.
 *
 * A rollup made here starts with a line beginning {@link ROLLUP_MARK}: a
 * run that finds it remakes the rollup first, so the model never sees stale
 * code. A rollup without it (the user's own script) is used as it is, with
 * a warning naming the tracked files changed since it was made.
 *
 * @module
 */

import type { Console } from "../console/console.ts";
import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import { lstatOrUndefined } from "../file_system/lstat.ts";
import { displayPath } from "../text/characters.ts";
import { IgnoreRules } from "../guard/ignore_rules.ts";
import { findGitFiles, type GitData, isGitData } from "../guard/gitdir_file.ts";
import { CODECOMMIT_IGNORE_FILE, CodeCommitIgnore } from "../guard/codecommit_ignore.ts";
import { checkPathSyntax } from "../guard/path_syntax.ts";
import { protectedRulesFor } from "../guard/protected_paths.ts";
import { trackedPaths } from "../preconditions/git_index.ts";
import { CODE_ROLLUP_FILE, readCodeRollup } from "../preconditions/preconditions.ts";
import { fileBlock } from "../project_files/file_block.ts";
import { compareCodePoints } from "../project_files/order.ts";
import { READ_LIMITS } from "../file_system/read_limits.ts";
import { formatBytes } from "../text/sizes.ts";
import { FileReadError } from "../file_system/bounded_read.ts";
import { codebaseShares, describeLargest, describeShares, shrinkAdvice } from "../llm/budget.ts";
import { writeFileAtomically } from "../project_files/safe_write.ts";
import { walkTree } from "../project_files/walk.ts";
import { formatCount } from "../text/numbers.ts";
import { plural } from "../text/plural.ts";
import { tokensOfBytes, utf8Length } from "../text/tokens.ts";
import { under } from "../file_system/file_system.ts";
import { type LeftOutKind, readRollupFiles, type RollupFileOutcome } from "./rollup_file.ts";

/** How the first line of a rollup made by code-commit begins. */
const ROLLUP_MARK = "code-commit --rollup:";

/** A file (or folder) left out of the rollup. */
export interface LeftOut {
  /** Its path, relative to the project root. */
  readonly path: string;
  /** Why. */
  readonly kind: LeftOutKind;
}

/** A rollup, made but not yet written. */
export interface Rollup {
  /** The whole text: the mark line, then one block per file. */
  readonly text: string;
  /** The files in it, in order. */
  readonly files: readonly string[];
  /** Where each file's block starts in `text` (a UTF-16 offset), in the order of `files`. */
  readonly starts: readonly number[];
  /** What was left out, in path order. */
  readonly leftOut: readonly LeftOut[];
  /** How many tracked files `.codecommitignore` left out (none when not given). */
  readonly excluded?: number;
}

/**
 * Makes the rollup of the project at `root` (see the module doc).
 *
 * @throws {CodeCommitError} when an ignore file or `.git/index` cannot be
 * read, or the project root cannot be listed.
 */
export async function makeRollup(root: string): Promise<Rollup> {
  const rules = await IgnoreRules.load(root);
  const exclude = await CodeCommitIgnore.load(root);
  const paths: string[] = [];
  let walk;
  try {
    walk = await walkTree(root, "", rules, {
      reportAll: true,
      exclude,
      onListing: (listing) => {
        for (const file of listing.files) paths.push(file);
      },
    });
  } catch (error) {
    if (error instanceof CodeCommitError) throw error;
    throw new CodeCommitError(
      `cannot list the project for the rollup: ${messageOf(error)}`,
      EXIT.setup,
    );
  }
  const leftOut: LeftOut[] = [];
  for (const entry of walk.skipped) {
    leftOut.push({
      path: entry.path,
      kind: entry.kind === "unreadable-folder" ? "unreadable" : entry.kind,
    });
  }
  // What the walk listed, and what git tracks, both in code-point order: one pass over the
  // two finds the tracked paths the walk did not list (a path in conflict is in the index up
  // to three times: it is looked at once).
  const listed = [...paths].sort(compareCodePoints);
  const inIndex = await trackedPaths(root);
  const tracked = inIndex.paths.sort(compareCodePoints);
  const skippedPaths = new Set(walk.skipped.map((entry) => entry.path));
  // Found by the walk already (the same rules): git's data, tracked or not, stays out.
  const gitData = await findGitFiles(rules);
  const folders = new Map<string, Promise<boolean>>();
  let excluded = 0;
  let next = 0; // the first listed path not before the tracked path at hand
  for (let index = 0; index < tracked.length; index++) {
    const path = tracked[index];
    if (index > 0 && path === tracked[index - 1]) continue;
    if (exclude.excludes(path)) {
      excluded++;
      continue;
    }
    while (next < listed.length && compareCodePoints(listed[next], path) < 0) next++;
    if (listed[next] === path || skippedPaths.has(path)) continue;
    // A name that is not UTF-8 is never read by its decoded path (another file's name).
    const kind = inIndex.notUtf8.has(path)
      ? "refused-name"
      : await trackedFileProblem(root, path, folders, gitData);
    if (kind === "missing") continue;
    if (kind !== undefined) leftOut.push({ path, kind });
    else paths.push(path);
  }
  const outcomes = await readRollupFiles(root, paths);
  return assemble(paths, outcomes, leftOut, excluded);
}

/**
 * The rollup of the files read (`paths`, each with its outcome), in
 * code-point order, and of what was left out (`leftOut`, to which the files
 * that could not be used are added); `excluded` tracked files matched
 * `.codecommitignore`. Never throws.
 */
function assemble(
  paths: readonly string[],
  outcomes: readonly RollupFileOutcome[],
  leftOut: LeftOut[],
  excluded: number,
): Rollup {
  const order = Array.from(paths.keys()).sort((a, b) => compareCodePoints(paths[a], paths[b]));
  const blocks: string[] = [];
  const files: string[] = [];
  const starts: number[] = [];
  let offset = 0;
  for (const index of order) {
    const path = paths[index];
    const outcome = outcomes[index];
    if (typeof outcome === "string") {
      const block = fileBlock(path, outcome);
      blocks.push(block);
      files.push(path);
      starts.push(offset);
      offset += block.length;
    } else if (outcome.kind !== "missing") {
      leftOut.push({ path, kind: outcome.kind });
    }
  }
  leftOut.sort((a, b) => compareCodePoints(a.path, b.path));
  const mark = `${ROLLUP_MARK} ${plural(files.length, "file")} git tracks or would track; ` +
    `code-commit remakes this file before each run while this line comes first\n`;
  return {
    text: mark + blocks.join(""),
    files,
    starts: starts.map((start) => start + mark.length),
    leftOut,
    excluded,
  };
}

/**
 * Why a tracked path the walk did not list cannot go into the rollup, or
 * undefined when it can (a tracked file git's rules would ignore); `missing`
 * when it is no longer there (nothing to say: git shows it as deleted).
 * `gitData`: where the project's `.git` files keep git's data.
 */
async function trackedFileProblem(
  root: string,
  path: string,
  folders: Map<string, Promise<boolean>>,
  gitData: GitData,
): Promise<LeftOutKind | "missing" | undefined> {
  if (checkPathSyntax(path) !== undefined) return "refused-name";
  if (isUnreadable(path, gitData)) return "protected";
  const segments = path.split("/");
  for (let depth = 1; depth < segments.length; depth++) {
    const folder = segments.slice(0, depth).join("/");
    let real = folders.get(folder);
    if (real === undefined) {
      real = lstatOrUndefined(under(root, folder)).then(
        (info) => info !== undefined && info.isDirectory,
        () => false,
      );
      folders.set(folder, real);
    }
    if (!await real) {
      const info = await lstatOrUndefined(under(root, folder)).catch(() => undefined);
      return info?.isSymlink ? "symbolic-link" : "missing";
    }
  }
  const info = await lstatOrUndefined(under(root, path)).catch(() => undefined);
  if (info === undefined) return "missing";
  if (info.isSymlink) return "symbolic-link";
  if (info.isDirectory) return "missing";
  if (!info.isFile) return "special";
  return undefined;
}

/** The largest file a rollup holds: the context builder's limit for a file in a prompt (1 MiB). */
const MAX_FILE_BYTES: number = READ_LIMITS.projectFile.bytes;

/** How each kind of left-out entry is named in the summary. */
const LEFT_OUT_NAMES: Record<LeftOutKind, [string, string]> = {
  "binary": ["binary file", "binary files"],
  "not-utf8": ["file not in UTF-8", "files not in UTF-8"],
  "too-large": [
    `file over ${formatBytes(MAX_FILE_BYTES)}`,
    `files over ${formatBytes(MAX_FILE_BYTES)}`,
  ],
  "symbolic-link": ["symbolic link", "symbolic links"],
  "hard-link": ["file with more than one hard link", "files with more than one hard link"],
  "special": ["fifo, socket or device", "fifos, sockets or devices"],
  "protected": [
    "tracked file in a folder no prompt may read",
    "tracked files in folders no prompt may read",
  ],
  "refused-name": ["name the path guard refuses", "names the path guard refuses"],
  "ignored-by-case": ["entry ignored once case is folded", "entries ignored once case is folded"],
  "unreadable": ["unreadable entry", "unreadable entries"],
};

/** At most this many paths are named for each kind left out. */
const NAMED_PER_KIND = 3;

/** How many of the largest files the summary line names. */
const LARGEST_NAMED = 3;

/**
 * The one line that sums a rollup up: `agent-config/codeRollup.txt: 42
 * files, 123,456 bytes, about 30,864 tokens (largest: package-lock.json
 * 81 %, index.js 6 %, README.md 3 %); left out: 2 binary files (logo.png,
 * font.woff), 1 symbolic link (link.txt)`. Never throws.
 */
export function describeRollup(rollup: Rollup): string {
  const bytes = utf8Length(rollup.text);
  const largest = codebaseShares(rollup.text, LARGEST_NAMED).files;
  const head = `${CODE_ROLLUP_FILE}: ${plural(rollup.files.length, "file")}, ` +
    `${formatCount(bytes)} bytes, about ${formatCount(tokensOfBytes(bytes))} tokens` +
    (largest.length === 0 ? "" : ` (largest: ${describeShares(largest)})`) +
    (!rollup.excluded
      ? ""
      : `; ${plural(rollup.excluded, "tracked file")} left out by ${CODECOMMIT_IGNORE_FILE}`);
  if (rollup.leftOut.length === 0) {
    return `${head}; nothing ${rollup.excluded ? "else " : ""}left out`;
  }
  const parts: string[] = [];
  for (const kind of Object.keys(LEFT_OUT_NAMES) as LeftOutKind[]) {
    const paths = rollup.leftOut.filter((entry) => entry.kind === kind).map((entry) => entry.path);
    if (paths.length === 0) continue;
    const [one, many] = LEFT_OUT_NAMES[kind];
    const named = paths.slice(0, NAMED_PER_KIND).map(displayPath).join(", ");
    const more = paths.length > NAMED_PER_KIND ? `, … ${paths.length - NAMED_PER_KIND} more` : "";
    parts.push(
      `${
        paths.length === 1 ? `1 ${one}` : `${formatCount(paths.length)} ${many}`
      } (${named}${more})`,
    );
  }
  return `${head}; left out: ${parts.join(", ")}`;
}

/**
 * Writes `rollup` to `agent-config/codeRollup.txt` atomically (a temporary
 * sibling renamed into place), never through a symbolic link; makes
 * `agent-config/` if it is missing.
 *
 * @throws {CodeCommitError} when `agent-config` or the rollup is a link or
 * not what it must be, or the write fails.
 */
export async function writeRollup(root: string, rollup: Rollup): Promise<void> {
  await writeFileAtomically(root, CODE_ROLLUP_FILE, rollup.text, { createFolders: true });
}

/**
 * The files of `rollup` whose text holds one of `secrets`, in order. Never throws.
 */
export function filesHolding(rollup: Rollup, secrets: readonly string[]): string[] {
  const found = new Set<number>();
  for (const secret of secrets) {
    if (secret === "") continue;
    for (
      let at = rollup.text.indexOf(secret);
      at !== -1;
      at = rollup.text.indexOf(secret, at + 1)
    ) {
      let low = 0;
      let high = rollup.starts.length - 1;
      while (low < high) {
        const middle = (low + high + 1) >> 1;
        if (rollup.starts[middle] <= at) low = middle;
        else high = middle - 1;
      }
      if (rollup.starts.length > 0 && rollup.starts[low] <= at) found.add(low);
    }
  }
  return [...found].sort((a, b) => a - b).map((index) => rollup.files[index]);
}

/**
 * The error for a rollup larger than a run reads: the read's own message,
 * then the largest folders and files of the codebase as a rollup made now
 * would hold them, and what to do. Never throws.
 */
async function rollupTooLarge(root: string, error: FileReadError): Promise<CodeCommitError> {
  const largest = await makeRollup(root).then((rollup) => describeLargest(rollup.text), () => "");
  return new CodeCommitError(
    `${error.message.replace(/: make it smaller, or check that it is the file you meant$/, "")}` +
      (largest === "" ? "" : `; ${largest}`) + `: ${shrinkAdvice()}, then run code-commit --rollup`,
    EXIT.setup,
  );
}

/** Whether the rollup `text` was made by code-commit (its first line begins with {@link ROLLUP_MARK}). Never throws. */
function isToolMade(text: string): boolean {
  return text.startsWith(ROLLUP_MARK);
}

/**
 * Whether no prompt may hold the tracked `path`: it lies in a protected
 * entry no prompt reads (`.git`, `agent-config/`, ...), or in a place a
 * `.git` file names as git's data (`gitData`), as the walk leaves both out.
 * Never throws.
 */
function isUnreadable(path: string, gitData: GitData): boolean {
  return protectedRulesFor(path).some((rule) => !rule.readable) || isGitData(gitData, path);
}

/**
 * The tracked files (from `.git/index`) changed after `since`, in
 * code-point order; the protected folders no prompt reads (git's data
 * behind a `.git` file too), and names that are not UTF-8, are not looked at.
 *
 * @throws {CodeCommitError} when `.git/index` or an ignore file cannot be read.
 */
async function trackedFilesNewerThan(root: string, since: Date): Promise<string[]> {
  const { paths: all, notUtf8 } = await trackedPaths(root);
  const gitData = all.length === 0 ? undefined : await findGitFiles(await IgnoreRules.load(root));
  const paths = all.filter((path) =>
    !notUtf8.has(path) && checkPathSyntax(path) === undefined &&
    (gitData === undefined || !isUnreadable(path, gitData))
  );
  const newer: string[] = [];
  for (const path of paths) {
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(under(root, path)); // synchronous: one system call, no promise, per file
    } catch {
      continue;
    }
    if (info.mtime !== null && info.mtime > since) newer.push(path);
  }
  return newer.sort(compareCodePoints);
}

/** Options of {@link loadRollup}. */
export interface LoadRollupOptions {
  /**
   * Whether a rollup made again is written back (default true); false for
   * `--dry-run`, which writes nothing: it is then made in memory only.
   */
  readonly write?: boolean;
}

/**
 * The codebase for a run that uses the rollup: a rollup code-commit made is
 * made again first (the model must not see code older than the files, or
 * its whole-file replacements would undo newer work) and written back
 * (unless `options.write` is false: then it is kept in memory only), and
 * the summary line is shown; a rollup made otherwise is read as it is,
 * with a warning that names the tracked files changed since it was written.
 *
 * @throws {CodeCommitError} when the rollup is missing, or cannot be made
 * again or written; when it is larger than a run reads (exit `EXIT.setup`,
 * naming the largest folders and files of the codebase and what to do).
 */
export async function loadRollup(
  root: string,
  console: Console,
  options: LoadRollupOptions = {},
): Promise<string> {
  let text: string;
  try {
    text = await readCodeRollup(root);
  } catch (error) {
    if (!(error instanceof FileReadError) || error.problem !== "too-large") throw error;
    throw await rollupTooLarge(root, error);
  }
  if (isToolMade(text)) {
    const rollup = await makeRollup(root);
    if (options.write === false) {
      console.info(
        `made the rollup again in memory only (--dry-run leaves the file as it is): ${
          describeRollup(rollup)
        }`,
      );
      return rollup.text;
    }
    await writeRollup(root, rollup);
    console.info(`remade ${describeRollup(rollup)}`);
    return rollup.text;
  }
  const info = await Deno.stat(under(root, CODE_ROLLUP_FILE)).catch(() => undefined);
  if (info?.mtime) {
    const newer = await trackedFilesNewerThan(root, info.mtime);
    if (newer.length > 0) {
      const named = newer.slice(0, 5).map(displayPath).join(", ");
      const more = newer.length > 5 ? ` and ${formatCount(newer.length - 5)} more` : "";
      console.warn(
        `${CODE_ROLLUP_FILE} is older than ${
          plural(newer.length, "tracked file")
        } (${named}${more}): ` +
          `the model sees their old text, and its whole-file replacements could undo the newer ` +
          `changes; run code-commit --rollup to make it again (it is then remade before every ` +
          `run), or use --build-context`,
      );
    }
  }
  return text;
}
