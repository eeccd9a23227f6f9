/**
 * A build that creates, removes or changes a protected entry (a `src/.git` whose configuration runs
 * a command at the next `git status`, a `.gitignore` hiding what it wrote; a rename of the folder
 * above, which no read-only mount stops) stops the run. Compared: kind, device and inode, mode, and
 * a file's SHA-256 (over 4 MiB: size and times) or a link's target.
 * @module
 */
import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import { FileReadError, readBounded } from "../file_system/bounded_read.ts";
import { lstatOrUndefined } from "../file_system/lstat.ts";
import { nameSome } from "../text/change_list.ts";
import type { ReadLimit } from "../file_system/read_limits.ts";
import { type ProjectScan, scanProject } from "../sandbox/project_scan.ts";

const PROTECTED_FILE_LIMIT: ReadLimit = { bytes: 4 * 2 ** 20, what: "a protected file" };

/** Left out: `build.sh` is compared with the run's first look, `logs/` is ours, `agent-config/` hidden. */
const LEFT_OUT = new Set(["build.sh", "logs", "agent-config"]);

/** Each protected entry's state (a string that differs when anything compared differs), by path. */
export type ProtectedSnapshot = ReadonlyMap<string, string>;

async function stateOf(absolute: string, name: string): Promise<string | undefined> {
  const info = await lstatOrUndefined(absolute).catch(messageOf);
  if (typeof info === "string") return `unreadable ${info}`;
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
    // Web Crypto: `node:crypto` would load Deno's Node layer.
    const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
    return `file ${identity} sha256 ${new Uint8Array(digest).toHex()}`;
  } catch (error) {
    if (error instanceof FileReadError && error.problem === "too-large") {
      return `large file ${identity} ${times}`;
    }
    return `unreadable file ${identity} ${times} (${
      error instanceof FileReadError ? error.problem : messageOf(error)
    })`;
  }
}

/** Adds `path` and, for a folder when `deep` (`agent-state/`), everything in it. */
async function addEntry(
  root: string,
  path: string,
  entries: Map<string, string>,
  deep: boolean,
): Promise<void> {
  const state = await stateOf(`${root}/${path}`, path);
  if (state === undefined) return;
  entries.set(path, state);
  if (!deep || !state.startsWith("folder ")) return;
  const children = await Array.fromAsync(Deno.readDir(`${root}/${path}`)).catch(messageOf);
  if (typeof children === "string") {
    entries.set(`${path}/`, `unlistable ${children}`);
    return;
  }
  for (const child of children) await addEntry(root, `${path}/${child.name}`, entries, true);
}

/** Takes the snapshot from `scan` (a walk made now); an unreadable entry matches only itself. */
export async function snapshotProtected(scan: ProjectScan): Promise<ProtectedSnapshot> {
  const entries = new Map<string, string>();
  for (const entry of scan.entries) {
    if (entry.rule.scope !== "any-depth-name" && LEFT_OUT.has(entry.rule.name)) continue;
    await addEntry(scan.root, entry.path, entries, entry.rule.scope === "root-folder");
  }
  return entries;
}

/**
 * Walks the project at `root` (links resolved) again and compares its protected entries with `before`.
 * @throws {CodeCommitError} (`EXIT.safety`) naming what is new, removed or changed.
 */
export async function checkProtectedAfterBuild(
  root: string,
  before: ProtectedSnapshot,
  review: string,
): Promise<void> {
  const after = await snapshotProtected(await scanProject(root));
  const changes = [...new Set([...before.keys(), ...after.keys()])].sort()
    .filter((path) => before.get(path) !== after.get(path))
    .map((path) => ({
      path,
      change: !before.has(path) ? "new" : !after.has(path) ? "removed" : "changed",
    }));
  if (changes.length === 0) return;
  const named = nameSome(changes.map(({ path, change }) => `${path} (${change})`), { limit: 5 });
  const newGit = changes.find(({ path, change }) => change === "new" && /(^|\/)\.git$/i.test(path));
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
