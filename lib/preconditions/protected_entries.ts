/**
 * The protected entries as they were before a build, to compare with after
 * it, contained or not: every `.git` (file or folder), `.gitignore` and
 * `UserSpecification.md` in the folders git reads, and the root's
 * `LLMInstructions.md`, `codeRollup.sh` and `agent-state/` (with everything
 * in it). A build that creates one (a `tests/.gitignore` hiding the
 * `conftest.py` it wrote next to it; a `src/.git` whose configuration runs
 * a command at the user's next `git status` there; spec copies in a new
 * `agent-state/` that make stages count as passed), removes one, or changes
 * one (through a rename of the folder it is in, which no read-only mount
 * stops), stops the run.
 *
 * What is compared: the kind, device and inode, the permission bits, and
 * for a file its SHA-256 (one larger than 4 MiB: its size and times), for
 * a link where it points; for a folder (`.git/`, `agent-state/`) that it is
 * the same folder. The project's own `.git/` is read-only in the sandbox.
 *
 * @module
 */
import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import { FileReadError, readBounded } from "../file_system/bounded_read.ts";
import { lstatOrUndefined } from "../file_system/lstat.ts";
import { nameSome } from "../text/change_list.ts";
import type { ReadLimit } from "../file_system/read_limits.ts";
import { type ProjectScan, scanProject } from "../sandbox/project_scan.ts";

/** How large a protected file is read to compare it (larger: size and times). */
const PROTECTED_FILE_LIMIT: ReadLimit = { bytes: 4 * 2 ** 20, what: "a protected file" };

/** Root entries of the table left out: `build.sh` is compared with the run's first look at it, `logs/` is code-commit's own, `agent-config/` hidden. */
const LEFT_OUT = new Set(["build.sh", "logs", "agent-config"]);

/** What one protected entry was: a string that differs when anything compared differs. */
type EntryState = string;

/** The protected entries before a build, by path relative to the root. */
export interface ProtectedSnapshot {
  /** Each protected entry's state, by its path relative to the root. */
  readonly entries: ReadonlyMap<string, EntryState>;
}

/** The state of the entry at `absolute` (see the module documentation). */
async function stateOf(absolute: string, name: string): Promise<EntryState | undefined> {
  let info: Deno.FileInfo | undefined;
  try {
    info = await lstatOrUndefined(absolute);
  } catch (error) {
    return `unreadable ${messageOf(error)}`;
  }
  if (info === undefined) return undefined;
  const identity = `${info.dev}:${info.ino} mode ${info.mode?.toString(8)}`;
  if (info.isSymlink) return `link ${identity} -> ${await Deno.readLink(absolute)}`;
  if (info.isDirectory) return `folder ${identity}`;
  if (!info.isFile) return `special ${identity}`;
  const times = `size ${info.size} mtime ${info.mtime?.getTime()} ctime ${info.ctime?.getTime()}`;
  try {
    const bytes = await readBounded(absolute, {
      limit: PROTECTED_FILE_LIMIT,
      followSymlink: false,
      name,
    });
    if (bytes === undefined) return undefined;
    return `file ${identity} sha256 ${await sha256(bytes)}`;
  } catch (error) {
    if (error instanceof FileReadError && error.problem === "too-large") {
      return `large file ${identity} ${times}`;
    }
    return `unreadable file ${identity} ${times} (${
      error instanceof FileReadError ? error.problem : messageOf(error)
    })`;
  }
}

/** Adds `path` and, for a folder, everything in it (for `agent-state/`). */
async function addTree(
  root: string,
  path: string,
  entries: Map<string, EntryState>,
): Promise<void> {
  const state = await stateOf(`${root}/${path}`, path);
  if (state === undefined) return;
  entries.set(path, state);
  if (!state.startsWith("folder ")) return;
  let children: Deno.DirEntry[];
  try {
    children = await Array.fromAsync(Deno.readDir(`${root}/${path}`));
  } catch (error) {
    entries.set(`${path}/`, `unlistable ${messageOf(error)}`);
    return;
  }
  for (const child of children) await addTree(root, `${path}/${child.name}`, entries);
}

/**
 * Takes the snapshot from `scan` (a walk of the project made now; see
 * `scanProject`). Never throws for an entry that cannot be read: that is a
 * state too, which only the same unreadable entry matches.
 */
export async function snapshotProtected(scan: ProjectScan): Promise<ProtectedSnapshot> {
  const entries = new Map<string, EntryState>();
  for (const entry of scan.entries) {
    if (entry.rule.scope !== "any-depth-name" && LEFT_OUT.has(entry.rule.name)) continue;
    if (entry.rule.scope === "root-folder") await addTree(scan.root, entry.path, entries);
    else {
      const state = await stateOf(`${scan.root}/${entry.path}`, entry.path);
      if (state !== undefined) entries.set(entry.path, state);
    }
  }
  return { entries };
}

/** A protected entry that is not what it was. */
interface ProtectedChange {
  readonly path: string;
  readonly change: "new" | "removed" | "changed";
}

/** The entries of `after` that differ from `before`, sorted by path. Never throws. */
function compareProtected(
  before: ProtectedSnapshot,
  after: ProtectedSnapshot,
): ProtectedChange[] {
  const changes: ProtectedChange[] = [];
  for (const [path, state] of after.entries) {
    const was = before.entries.get(path);
    if (was === undefined) changes.push({ path, change: "new" });
    else if (was !== state) changes.push({ path, change: "changed" });
  }
  for (const path of before.entries.keys()) {
    if (!after.entries.has(path)) changes.push({ path, change: "removed" });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** At most this many changes are named in the message. */
const NAMED = 5;

/**
 * Walks the project at `root` (links resolved) again and compares its
 * protected entries with `before`.
 *
 * @throws {CodeCommitError} (exit 5, `EXIT.safety`) naming what is new, removed or changed,
 * and for a new `.git`, that it must be removed before git runs there.
 */
export async function checkProtectedAfterBuild(
  root: string,
  before: ProtectedSnapshot,
  review: string,
): Promise<void> {
  const after = await snapshotProtected(await scanProject(root));
  const changes = compareProtected(before, after);
  if (changes.length === 0) return;
  const named = nameSome(changes.map((change) => `${change.path} (${change.change})`), {
    limit: NAMED,
  });
  const newGit = changes.find((change) =>
    change.change === "new" && /(^|\/)\.git$/i.test(change.path)
  );
  const git = newGit === undefined
    ? ""
    : `; remove ${newGit.path} before you run any git command in its folder (git would run ` +
      `what its configuration names)`;
  throw new CodeCommitError(
    `./build.sh changed protected entries of the project: ${named}${git}; if a tool ` +
      `your build runs made a new .gitignore (pytest's .pytest_cache/, say), add that folder to ` +
      `.gitignore; ${review}`,
    EXIT.safety,
  );
}

/**
 * The SHA-256 of `bytes` in hex, with Web Crypto: `node:crypto` would load
 * Deno's Node layer on every run that builds (see docs/architecture.md).
 */
async function sha256(bytes: Uint8Array): Promise<string> {
  // The bounded read's bytes lie in an ArrayBuffer of their own (never a shared one).
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
