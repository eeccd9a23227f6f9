/**
 * One code-commit at a time per project: an exclusive `flock` in
 * `agent-config/` (which a contained build cannot see), released by the
 * kernel however the holder ends; a second process stops, naming the holder.
 *
 * @module
 */
import { z } from "zod";
import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { AGENT_CONFIG_DIR } from "../guard/protected_paths.ts";
import { formatUtc } from "../text/numbers.ts";

/** The lock file, relative to the project root. */
export const LOCK_FILE = `${AGENT_CONFIG_DIR}/code-commit.lock`;

/** Who holds the lock, as its file records it. */
const HolderSchema = z.object({
  pid: z.number().int().positive(),
  workflow: z.string().max(200),
  startedAt: z.string().max(100),
});

type LockHolder = z.infer<typeof HolderSchema>;

/** The lock a run holds until it ends: `madeFolder` when taking it made `agent-config/`. */
export interface ProjectLock {
  readonly madeFolder: boolean;
  /** Releases the lock (the process ending does too). Never throws. */
  release(): void;
}

/** Another code-commit holds the project (exit 6). */
export class ProjectLockedError extends CodeCommitError {
  /**
   * The error naming `holder` (when the lock file says who); `linked` when
   * the lock is on the folder `agent-config` links to (which says nothing).
   */
  constructor(readonly holder: LockHolder | undefined, linked = false) {
    const who = holder === undefined
      ? `(the lock does not say which process)`
      : `(PID ${holder.pid}, ${holder.workflow}, started ${holder.startedAt})`;
    const lock = linked
      ? `the lock is on the folder ${AGENT_CONFIG_DIR} links to`
      : `the lock is ${LOCK_FILE}`;
    super(
      `another code-commit is working on this project ${who}; ` +
        `wait for it to end, then run again (${lock}, released when that process ends)`,
      EXIT.locked,
    );
    this.name = "ProjectLockedError";
  }
}

/**
 * Takes the project's lock for `workflow` (a short description such as
 * `--undo`, shown to a second process) in `root`, without waiting.
 *
 * @throws {ProjectLockedError} when another process holds it (exit 6).
 * @throws {CodeCommitError} (exit 3) when `agent-config/` or the lock file
 * is not what it must be (a link, a file, a folder) or cannot be made.
 */
export async function lockProject(root: string, workflow: string): Promise<ProjectLock> {
  const now = new Date();
  const folder = `${root}/${AGENT_CONFIG_DIR}`;
  const path = `${root}/${LOCK_FILE}`;
  const linked = await linkedFolder(folder);
  if (linked !== undefined) return linked;
  // A file removed between opening and locking (by a run that released it) is no lock: again.
  for (let attempt = 0;; attempt++) {
    const { file, madeFolder } = await openLockFile(folder, path);
    try {
      if (!await file.tryLock(true)) throw new ProjectLockedError(await readHolder(file));
      if (!holdsPath(file, path)) {
        if (attempt >= 5) throw setupError(`${LOCK_FILE} keeps being replaced`);
        file.close();
        continue;
      }
      const holder: LockHolder = { pid: Deno.pid, workflow, startedAt: formatUtc(now) };
      await file.truncate(0);
      await file.write(new TextEncoder().encode(`${JSON.stringify(holder)}\n`));
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          // Only this lock's own file (a process that opened it just before finds, once it has
          // the lock, that the path is no longer its file, and opens it again); one removed by
          // hand while held may have been made again by the next holder, whose lock must stay.
          if (holdsPath(file, path)) Deno.removeSync(path);
          if (madeFolder && isEmpty(folder)) Deno.removeSync(folder);
        } catch {
          // The kernel releases the lock below in any case.
        }
        closeQuietly(file);
      };
      return { madeFolder, release };
    } catch (error) {
      file.close();
      throw error;
    }
  }
}

/**
 * The lock on the folder `agent-config/` links to (keys kept elsewhere),
 * nothing written through the link; undefined when it is no link.
 *
 * @throws {CodeCommitError} (exit 3) when the link leads to no folder.
 */
async function linkedFolder(folder: string): Promise<ProjectLock | undefined> {
  const info = await lstatOrUndefined(folder);
  if (info === undefined || !info.isSymlink) return undefined;
  const target = await Deno.stat(folder).catch(() => undefined);
  if (target === undefined || !target.isDirectory) {
    throw setupError(
      `${AGENT_CONFIG_DIR} is a symbolic link that leads to no folder; make it a folder of its own`,
    );
  }
  const handle = await Deno.open(folder, { read: true }).catch((error) => {
    throw setupError(`cannot open ${AGENT_CONFIG_DIR}: ${(error as Error).message}`);
  });
  try {
    if (!await handle.tryLock(true)) throw new ProjectLockedError(undefined, true);
  } catch (error) {
    handle.close();
    throw error;
  }
  return { madeFolder: false, release: () => closeQuietly(handle) };
}

/** Makes `agent-config/` when it is missing; tells whether it did. */
async function ensureFolder(folder: string): Promise<boolean> {
  const info = await lstatOrUndefined(folder);
  if (info === undefined) {
    try {
      await Deno.mkdir(folder, { mode: 0o700 });
      return true;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) {
        throw setupError(`cannot make ${AGENT_CONFIG_DIR}/: ${(error as Error).message}`);
      }
      return ensureFolder(folder);
    }
  }
  if (info.isSymlink || !info.isDirectory) {
    throw setupError(
      `${AGENT_CONFIG_DIR} is ${info.isSymlink ? "a symbolic link" : "not a folder"}; ` +
        `make it a folder of its own (code-commit never writes through a link)`,
    );
  }
  return false;
}

/**
 * Opens the lock file, making it (and its folder) when missing, never
 * through a link: a new file is made exclusively, an existing one must be
 * the regular file at `path`. Tells whether it made the folder.
 */
async function openLockFile(
  folder: string,
  path: string,
): Promise<{ file: Deno.FsFile; madeFolder: boolean }> {
  let madeFolder = false;
  for (let attempt = 0; attempt < 5; attempt++) {
    madeFolder = await ensureFolder(folder) || madeFolder;
    const info = await lstatOrUndefined(path);
    if (info === undefined) {
      try {
        const file = await Deno.open(path, {
          read: true,
          write: true,
          createNew: true,
          mode: 0o600,
        });
        return { file, madeFolder };
      } catch (error) {
        // Made meanwhile, or its folder removed meanwhile: look again.
        if (error instanceof Deno.errors.AlreadyExists || error instanceof Deno.errors.NotFound) {
          continue;
        }
        throw setupError(
          `cannot make ${LOCK_FILE}: ${(error as Error).message}; code-commit keeps its ` +
            `lock and its apply journal in ${AGENT_CONFIG_DIR}/, so it cannot run; make ` +
            `${AGENT_CONFIG_DIR}/ writable (a read-only mount? a full disk?) and run code-commit ` +
            "again; nothing was sent to the model",
        );
      }
    }
    if (!info.isFile) {
      throw setupError(
        `${LOCK_FILE} is ${info.isSymlink ? "a symbolic link" : "not a regular file"}; ` +
          `remove it (code-commit makes it again)`,
      );
    }
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, { read: true, write: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue;
      throw setupError(`cannot open ${LOCK_FILE}: ${(error as Error).message}`);
    }
    if (holdsPath(file, path)) return { file, madeFolder };
    file.close();
  }
  throw setupError(`${LOCK_FILE} keeps being replaced`);
}

/** Who the lock file says holds the lock; undefined when it does not say (garbage, empty). */
async function readHolder(file: Deno.FsFile): Promise<LockHolder | undefined> {
  try {
    await file.seek(0, Deno.SeekMode.Start);
    const buffer = new Uint8Array(4096);
    const length = await file.read(buffer) ?? 0;
    const text = new TextDecoder().decode(buffer.subarray(0, length));
    const parsed = HolderSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Closes `file` (closed already is fine). Never throws. */
function closeQuietly(file: Deno.FsFile): void {
  try {
    file.close();
  } catch {
    // Already closed.
  }
}

/** Whether the file at `path` (no link followed) is the open `file`. Never throws. */
function holdsPath(file: Deno.FsFile, path: string): boolean {
  try {
    const open = file.statSync();
    const there = Deno.lstatSync(path);
    return there.isFile && there.ino === open.ino && there.dev === open.dev;
  } catch {
    return false;
  }
}

/** Whether `folder` is empty. */
function isEmpty(folder: string): boolean {
  for (const _ of Deno.readDirSync(folder)) return false;
  return true;
}

async function lstatOrUndefined(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw setupError(`cannot look at ${path}: ${(error as Error).message}`);
  }
}

function setupError(message: string): CodeCommitError {
  return new CodeCommitError(`cannot lock the project: ${message}`, EXIT.setup);
}
