/**
 * One code-commit at a time per project: every workflow that reads or
 * writes the project takes an exclusive lock on `agent-config/code-commit.lock`
 * before anything else (the rollback of an unfinished apply included), and a
 * second process stops at once, naming the holder.
 *
 * The lock is the operating system's own file lock (`flock`): the kernel
 * releases it when the holding process ends, however it ends (SIGKILL
 * included), so a killed run never blocks the next. The file says who holds
 * it (PID, workflow, start time); that is only for the message: a file whose
 * content cannot be read still blocks while it is locked, and is taken over
 * when it is free.
 *
 * It lives in `agent-config/`, which a contained build does not see at all:
 * a build can neither take the lock (to block the next run) nor delete it
 * (to let two runs in). When `agent-config/` is a link to a folder elsewhere,
 * that folder itself is locked, and nothing is written through the link. In a folder without `agent-config/` (not set up
 * yet), the lock makes it; when the run leaves nothing else in it, the
 * folder is removed again when the lock is released. Released, the lock
 * file is removed: a run that ends leaves no trace of the lock.
 *
 * @module
 */
import { z } from "zod";
import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { formatUtc } from "../text/numbers.ts";

/** The folder of the lock (hidden from contained builds). */
export const LOCK_FOLDER = "agent-config";
/** The lock file, relative to the project root. */
export const LOCK_FILE = `${LOCK_FOLDER}/code-commit.lock`;

/** Who holds the lock, as its file records it. */
const HolderSchema = z.object({
  pid: z.number().int().positive(),
  workflow: z.string().max(200),
  startedAt: z.string().max(100),
});

/** Who holds the lock. */
export type LockHolder = z.infer<typeof HolderSchema>;

/** The lock a run holds until it ends. */
export interface ProjectLock {
  /** The lock file's absolute path. */
  readonly path: string;
  /** Whether taking the lock made `agent-config/` (the folder was not there). */
  readonly madeFolder: boolean;
  /** Releases the lock (the process ending does too). Never throws. */
  release(): void;
}

/** Another code-commit holds the project (exit 6). */
export class ProjectLockedError extends CodeCommitError {
  /** Who holds it, when the lock file says. */
  readonly holder: LockHolder | undefined;

  /**
   * Makes the error naming `holder` (or saying the lock file does not say
   * who); `linked` when the lock is on the folder `agent-config` links to.
   */
  constructor(holder: LockHolder | undefined, linked = false) {
    super(lockedMessage(holder, linked), EXIT.locked);
    this.name = "ProjectLockedError";
    this.holder = holder;
  }
}

/**
 * The one line a second process prints; `linked` when the lock is on the
 * folder `agent-config` links to (nothing is written there, so it cannot
 * say who holds it). Never throws.
 */
export function lockedMessage(holder: LockHolder | undefined, linked = false): string {
  const who = holder === undefined
    ? `(the lock does not say which process)`
    : `(PID ${holder.pid}, ${holder.workflow}, started ${holder.startedAt})`;
  const lock = linked
    ? `the lock is on the folder ${LOCK_FOLDER} links to`
    : `the lock is ${LOCK_FILE}`;
  return `another code-commit is working on this project ${who}; ` +
    `wait for it to end, then run again (${lock}, released when that process ends)`;
}

/** How many bytes of the lock file are read back for the message. */
const HOLDER_BYTES = 4096;

/**
 * Takes the project's lock for `workflow` (a short description such as
 * `--undo`, shown to a second process) in `root`, without waiting.
 *
 * @throws {ProjectLockedError} when another process holds it (exit 6).
 * @throws {CodeCommitError} (exit 3) when `agent-config/` or the lock file
 * is not what it must be (a link, a file, a folder) or cannot be made.
 */
export async function lockProject(
  root: string,
  workflow: string,
  now: Date = new Date(),
): Promise<ProjectLock> {
  const folder = `${root}/${LOCK_FOLDER}`;
  const path = `${root}/${LOCK_FILE}`;
  const linked = await linkedFolder(folder);
  if (linked !== undefined) return linked;
  // A file removed between opening and locking (by a run that released the lock) is not the
  // lock any more: open it again.
  for (let attempt = 0;; attempt++) {
    const { file, madeFolder } = await openLockFile(folder, path);
    try {
      if (!await file.tryLock(true)) throw new ProjectLockedError(await readHolder(file));
      if (!await sameFile(file, path)) {
        if (attempt >= 5) throw setupError(`${LOCK_FILE} keeps being replaced`);
        file.close();
        continue;
      }
      const holder: LockHolder = { pid: Deno.pid, workflow, startedAt: formatUtc(now) };
      await file.truncate(0);
      await file.write(new TextEncoder().encode(`${JSON.stringify(holder)}\n`));
      return heldLock(file, path, folder, madeFolder);
    } catch (error) {
      file.close();
      throw error;
    }
  }
}

/**
 * The lock when `agent-config/` is a link to a folder (the user keeps the
 * keys elsewhere): the folder where it leads is locked itself, and nothing
 * is written through the link, so the lock cannot say who holds it.
 * Undefined when `agent-config/` is no link.
 *
 * @throws {CodeCommitError} (exit 3) when the link leads to no folder.
 */
async function linkedFolder(folder: string): Promise<ProjectLock | undefined> {
  const info = await lstatOrUndefined(folder);
  if (info === undefined || !info.isSymlink) return undefined;
  const target = await Deno.stat(folder).catch(() => undefined);
  if (target === undefined || !target.isDirectory) {
    throw setupError(
      `${LOCK_FOLDER} is a symbolic link that leads to no folder; make it a folder of its own`,
    );
  }
  const handle = await Deno.open(folder, { read: true }).catch((error) => {
    throw setupError(`cannot open ${LOCK_FOLDER}: ${(error as Error).message}`);
  });
  try {
    if (!await handle.tryLock(true)) throw new ProjectLockedError(undefined, true);
  } catch (error) {
    handle.close();
    throw error;
  }
  let released = false;
  return {
    path: folder,
    madeFolder: false,
    release() {
      if (released) return;
      released = true;
      try {
        handle.close();
      } catch {
        // Already closed.
      }
    },
  };
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
        throw setupError(`cannot make ${LOCK_FOLDER}/: ${(error as Error).message}`);
      }
      return ensureFolder(folder);
    }
  }
  if (info.isSymlink || !info.isDirectory) {
    throw setupError(
      `${LOCK_FOLDER} is ${info.isSymlink ? "a symbolic link" : "not a folder"}; ` +
        `make it a folder of its own (code-commit never writes through a link)`,
    );
  }
  return false;
}

/**
 * Opens the lock file for reading and writing, making it (and its folder)
 * when missing, and never through a link: a new file is made exclusively
 * (which does not follow a link), and an existing one must be the regular
 * file at `path`. Tells whether it made the folder.
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
        if (error instanceof Deno.errors.AlreadyExists) continue;
        if (error instanceof Deno.errors.NotFound) continue;
        throw setupError(
          `cannot make ${LOCK_FILE}: ${(error as Error).message}; code-commit keeps its ` +
            `lock and its apply journal in ${LOCK_FOLDER}/, so it cannot run; make ` +
            `${LOCK_FOLDER}/ writable (a read-only mount? a full disk?) and run code-commit ` +
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
    if (await sameFileQuiet(file, path)) return { file, madeFolder };
    file.close();
  }
  throw setupError(`${LOCK_FILE} keeps being replaced`);
}

/** Whether the open `file` is the regular file at `path` now. */
async function sameFile(file: Deno.FsFile, path: string): Promise<boolean> {
  const [open, there] = await Promise.all([file.stat(), lstatOrUndefined(path)]);
  return there !== undefined && there.isFile && open.ino === there.ino && open.dev === there.dev;
}

/** {@link sameFile}, false on any error. */
async function sameFileQuiet(file: Deno.FsFile, path: string): Promise<boolean> {
  try {
    return await sameFile(file, path);
  } catch {
    return false;
  }
}

/** Who the lock file says holds the lock; undefined when it does not say (garbage, empty). */
async function readHolder(file: Deno.FsFile): Promise<LockHolder | undefined> {
  try {
    await file.seek(0, Deno.SeekMode.Start);
    const buffer = new Uint8Array(HOLDER_BYTES);
    let length = 0;
    while (length < buffer.length) {
      const read = await file.read(buffer.subarray(length));
      if (read === null || read === 0) break;
      length += read;
    }
    const text = new TextDecoder().decode(buffer.subarray(0, length));
    const parsed = HolderSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The lock held through `file`. Releasing removes the lock file when it is
 * still this lock's (and the folder, when the lock made it and nothing else
 * is in it), so a run
 * leaves the project as it found it; a process that opened the file just
 * before finds, once it has the lock, that the path is no longer its file,
 * and opens the lock again.
 */
function heldLock(
  file: Deno.FsFile,
  path: string,
  folder: string,
  madeFolder: boolean,
): ProjectLock {
  let released = false;
  return {
    path,
    madeFolder,
    release() {
      if (released) return;
      released = true;
      try {
        // Only this lock's own file: one removed by hand while held may have been made again
        // by the next holder, whose lock must stay.
        if (holdsPath(file, path)) Deno.removeSync(path);
        if (madeFolder && isEmpty(folder)) Deno.removeSync(folder);
      } catch {
        // The kernel releases the lock below in any case.
      }
      try {
        file.close();
      } catch {
        // Already closed.
      }
    },
  };
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
