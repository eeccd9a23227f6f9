/**
 * The code rollup: every file git tracks or would track, as `--- path ---` blocks, less what a
 * prompt may not hold. One made here is remade before each run: the model never sees stale code.
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
import { FileReadError } from "../file_system/bounded_read.ts";
import { codebaseShares, describeLargest, describeShares, shrinkAdvice } from "../llm/budget.ts";
import { writeFileAtomically } from "../project_files/safe_write.ts";
import { walkTree } from "../project_files/walk.ts";
import { formatCount } from "../text/numbers.ts";
import { plural } from "../text/plural.ts";
import { tokensOfBytes, utf8Length } from "../text/tokens.ts";
import { under } from "../file_system/file_system.ts";
import { READ_LIMITS } from "../file_system/read_limits.ts";
import { readProjectBytes } from "../project_files/project_bytes.ts";
import { formatBytes } from "../text/sizes.ts";
import { decodeStrictly } from "../text/utf8.ts";

const ROLLUP_MARK = "code-commit --rollup:";

// The largest file a rollup holds: the context builder's limit for a file in a prompt.
const OVER = `over ${formatBytes(READ_LIMITS.projectFile.bytes)}`;

// How the summary names one and several of each kind left out.
const LEFT_OUT_NAMES = {
  "binary": ["binary file", "binary files"],
  "not-utf8": ["file not in UTF-8", "files not in UTF-8"],
  "too-large": [`file ${OVER}`, `files ${OVER}`],
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
} as const satisfies Record<string, readonly [string, string]>;

/** Why a file git would list is not in the rollup. */
export type LeftOutKind = keyof typeof LEFT_OUT_NAMES;

// Each open waits on a thread, the reads themselves do not.
const READ_CONCURRENCY = 16;

// Each file's text, or why it stays out (`missing`: nothing to say), in the order of `paths`.
async function readRollupFiles(root: string, paths: readonly string[]) {
  const readOne = async (path: string) => {
    const read = await readProjectBytes(root, path);
    if (read.ok) return decodeStrictly(read.bytes) ?? { kind: "not-utf8" as const };
    const { kind } = read.problem;
    if (kind === "folder") return { kind: "missing" as const }; // git lists it as no file
    return { kind: kind === "changed" || kind === "open-timeout" ? "unreadable" as const : kind };
  };
  const outcomes = [];
  for (let start = 0; start < paths.length; start += READ_CONCURRENCY) {
    outcomes.push(...await Promise.all(paths.slice(start, start + READ_CONCURRENCY).map(readOne)));
  }
  return outcomes;
}

/** A rollup to write: text, files and where each block starts, what was left out. */
export interface Rollup {
  readonly text: string;
  readonly files: readonly string[];
  readonly starts: readonly number[];
  readonly leftOut: readonly { readonly path: string; readonly kind: LeftOutKind }[];
  readonly excluded?: number;
}

/** Makes the rollup of `root`. @throws {CodeCommitError} when the project cannot be listed. */
export async function makeRollup(root: string): Promise<Rollup> {
  const rules = await IgnoreRules.load(root);
  const exclude = await CodeCommitIgnore.load(root);
  const walk = await walkTree(root, "", rules, { reportAll: true, exclude }).catch((error) => {
    if (error instanceof CodeCommitError) throw error;
    throw new CodeCommitError(
      `cannot list the project for the rollup: ${messageOf(error)}`,
      EXIT.setup,
    );
  });
  const paths = walk.folders.flatMap((folder) => folder.files);
  const leftOut: { path: string; kind: LeftOutKind }[] = walk.skipped.map((entry) => ({
    path: entry.path,
    kind: entry.kind === "unreadable-folder" ? "unreadable" : entry.kind,
  }));
  const listed = new Set([...paths, ...walk.skipped.map((entry) => entry.path)]);
  const inIndex = await trackedPaths(root);
  // Found by the walk already (the same rules): git's data, tracked or not, stays out.
  const gitData = await findGitFiles(rules);
  const folders = new Map<string, Promise<Deno.FileInfo | undefined>>();
  let excluded = 0;
  // A path in conflict is in the index up to three times: it is looked at once.
  for (const path of new Set(inIndex.paths)) {
    if (exclude.excludes(path)) {
      excluded++;
      continue;
    }
    if (listed.has(path)) continue;
    // A name that is not UTF-8 is never read by its decoded path (another file's name).
    const kind = inIndex.notUtf8.has(path)
      ? "refused-name"
      : await trackedFileProblem(root, path, folders, gitData);
    if (kind === "missing") continue;
    if (kind !== undefined) leftOut.push({ path, kind });
    else paths.push(path);
  }
  paths.sort(compareCodePoints);
  const outcomes = await readRollupFiles(root, paths);
  let blocks = "";
  const files: string[] = [];
  const starts: number[] = [];
  paths.forEach((path, index) => {
    const outcome = outcomes[index];
    if (typeof outcome === "string") {
      files.push(path);
      starts.push(blocks.length);
      blocks += fileBlock(path, outcome);
    } else if (outcome.kind !== "missing") {
      leftOut.push({ path, kind: outcome.kind });
    }
  });
  leftOut.sort((a, b) => compareCodePoints(a.path, b.path));
  const mark = `${ROLLUP_MARK} ${plural(files.length, "file")} git tracks or would track; ` +
    `code-commit remakes this file before each run while this line comes first\n`;
  return {
    text: mark + blocks,
    files,
    starts: starts.map((start) => start + mark.length),
    leftOut,
    excluded,
  };
}

/** Why a tracked path the walk did not list stays out; undefined: it goes in (git ignores it). */
async function trackedFileProblem(
  root: string,
  path: string,
  folders: Map<string, Promise<Deno.FileInfo | undefined>>,
  gitData: GitData,
): Promise<LeftOutKind | "missing" | undefined> {
  if (checkPathSyntax(path) !== undefined) return "refused-name";
  if (isUnreadable(path, gitData)) return "protected";
  const stat = (at: string) => lstatOrUndefined(under(root, at)).catch(() => undefined);
  const segments = path.split("/");
  for (let depth = 1; depth < segments.length; depth++) {
    const folder = segments.slice(0, depth).join("/");
    if (!folders.has(folder)) folders.set(folder, stat(folder));
    const info = await folders.get(folder);
    if (!info?.isDirectory) return info?.isSymlink ? "symbolic-link" : "missing";
  }
  const info = await stat(path);
  if (info === undefined || info.isDirectory) return "missing";
  if (info.isSymlink) return "symbolic-link";
  return info.isFile ? undefined : "special";
}

const NAMED_PER_KIND = 3;

/** The line that sums a rollup up: files, size, the largest, what was left out. Never throws. */
export function describeRollup(rollup: Rollup): string {
  const bytes = utf8Length(rollup.text);
  const largest = codebaseShares(rollup.text, 3).files;
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
    parts.push(`${plural(paths.length, one, many)} (${named}${more})`);
  }
  return `${head}; left out: ${parts.join(", ")}`;
}

/** Writes `rollup` atomically, never through a link. @throws {CodeCommitError} on failure. */
export async function writeRollup(root: string, rollup: Rollup): Promise<void> {
  await writeFileAtomically(root, CODE_ROLLUP_FILE, rollup.text, { createFolders: true });
}

/** The files of `rollup` whose text holds one of `secrets`, in order. Never throws. */
export function filesHolding(rollup: Rollup, secrets: readonly string[]): string[] {
  const { text, starts } = rollup;
  const found = new Set<number>();
  for (const secret of secrets.filter((secret) => secret !== "")) {
    for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) {
      const index = starts.findLastIndex((start) => start <= at);
      if (index >= 0) found.add(index);
    }
  }
  return [...found].sort((a, b) => a - b).map((index) => rollup.files[index]);
}

function isUnreadable(path: string, gitData: GitData): boolean {
  return protectedRulesFor(path).some((rule) => !rule.readable) || isGitData(gitData, path);
}

/** The tracked files changed after `since`, in order. @throws {CodeCommitError} as trackedPaths. */
async function trackedFilesNewerThan(root: string, since: Date): Promise<string[]> {
  const { paths: all, notUtf8 } = await trackedPaths(root);
  const gitData = all.length === 0 ? undefined : await findGitFiles(await IgnoreRules.load(root));
  const newer = all.filter((path) => {
    if (notUtf8.has(path) || checkPathSyntax(path) !== undefined) return false;
    if (gitData !== undefined && isUnreadable(path, gitData)) return false;
    try {
      const { mtime } = Deno.lstatSync(under(root, path)); // synchronous: one system call a file
      return mtime !== null && mtime > since;
    } catch {
      return false;
    }
  });
  return newer.sort(compareCodePoints);
}

/**
 * The codebase from the rollup: one code-commit made is remade first (its whole-file replacements
 * must not undo newer work), and written back if `write`; another is read, warning of newer files.
 * @throws {CodeCommitError} when the rollup is missing, cannot be remade or written, or too large.
 */
export async function loadRollup(root: string, console: Console, write = true): Promise<string> {
  let text: string;
  try {
    text = await readCodeRollup(root);
  } catch (error) {
    if (!(error instanceof FileReadError) || error.problem !== "too-large") throw error;
    const largest = await makeRollup(root).then((rollup) => describeLargest(rollup.text), () => "");
    throw new CodeCommitError(
      `${error.message.replace(/: make it smaller, or check that it is the file you meant$/, "")}` +
        (largest === "" ? "" : `; ${largest}`) +
        `: ${shrinkAdvice()}, then run code-commit --rollup`,
      EXIT.setup,
    );
  }
  if (text.startsWith(ROLLUP_MARK)) {
    const rollup = await makeRollup(root);
    if (write) await writeRollup(root, rollup);
    const how = write ? "remade" : "made the rollup again in memory only (--dry-run leaves the " +
      "file as it is):";
    console.info(`${how} ${describeRollup(rollup)}`);
    return rollup.text;
  }
  const info = await Deno.stat(under(root, CODE_ROLLUP_FILE)).catch(() => undefined);
  if (info?.mtime) {
    const newer = await trackedFilesNewerThan(root, info.mtime);
    if (newer.length > 0) {
      const named = newer.slice(0, 5).map(displayPath).join(", ");
      const more = newer.length > 5 ? ` and ${formatCount(newer.length - 5)} more` : "";
      console.warn(
        `${CODE_ROLLUP_FILE} is older than ${plural(newer.length, "tracked file")} ` +
          `(${named}${more}): ` +
          `the model sees their old text, and its whole-file replacements could undo the newer ` +
          `changes; run code-commit --rollup to make it again (it is then remade before every ` +
          `run), or use --build-context`,
      );
    }
  }
  return text;
}
