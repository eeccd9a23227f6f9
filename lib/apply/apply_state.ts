/**
 * The state of one apply, shared by its phases; the check every phase makes
 * of a folder it works in ({@link ApplyRun.checkFolder}); and the rollback of
 * an apply that failed. After a folder was found swapped, nothing is decided
 * by absence: a file made counts as removed only once a removal of it
 * succeeded, so the cleanup keeps trying a while.
 *
 * @module
 */

import { messageOf } from "../errors/errors.ts";
import type { EntryInfo, FileIdentity, FileSystem } from "../file_system/file_system.ts";
import { under } from "../file_system/file_system.ts";
import { isMissing } from "../file_system/lstat.ts";
import { lstatStep, parentFolder } from "../file_system/real_folders.ts";
import { FileStepError, step } from "../file_system/file_step_error.ts";
import { temporaryName } from "../file_system/temporary_name.ts";
import { removeIfPresent, writeAtomically } from "../file_system/write_atomically.ts";
import type { AppliedChange, ApplyOperation } from "./apply.ts";
import { contentHash, sameBytes } from "./content_hash.ts";
import type { FileState, PreImage } from "./journal_store.ts";
import type { ApplyRecorder } from "./journal.ts";

/**
 * What the plan expects at a path right before it is changed: nothing, the
 * file it read (its inode, where known), or a file an earlier operation put there.
 */
export type Expected =
  | { readonly kind: "missing" }
  | { readonly kind: "file"; readonly ino: number | null | undefined }
  | { readonly kind: "ours" };

/** One operation, planned. */
export interface PlannedChange {
  readonly operation: ApplyOperation;
  /** Its parent folder (relative; `""` for the root). */
  readonly folder: string;
  /** What it does; `none` for a delete of a file that is not there. */
  readonly kind: AppliedChange["kind"] | "none";
  readonly expected: Expected;
  /** Writes only: the temporary file, the mode (undefined: the file system's), size and hash. */
  readonly temporary?: string;
  readonly mode?: number;
  readonly size?: number;
  /** Recorded before the first write; bytes are encoded again when written (never held twice). */
  readonly hash?: string;
  /** The created temporary file, and the state its write leaves the path in (once made). */
  created?: FileIdentity;
  after?: FileState;
}

/** A folder as the plan found it: a real folder with its identity, or one to make. */
type FolderState =
  | { readonly kind: "real"; readonly dev?: number; readonly ino?: number | null }
  | { readonly kind: "planned" };

const encoder = new TextEncoder();

/** Texts up to this many characters are encoded into an {@link EncodeBuffer}'s reused buffer. */
const REUSED_UP_TO = 256 * 1024;

/**
 * A buffer texts are encoded into, reused (bytes valid until the next call):
 * many small buffers dropped stay with the allocator, raising the peak by as
 * much as the reply; a large text gets its own, which goes back to the system.
 */
export class EncodeBuffer {
  #buffer = new Uint8Array(64 * 1024);

  /** `content`'s bytes: itself when bytes, else its UTF-8 encoding, in this buffer when small. Never throws. */
  bytes(content: string | Uint8Array): Uint8Array {
    if (typeof content !== "string") return content;
    if (content.length > REUSED_UP_TO) return encoder.encode(content);
    for (;;) {
      const { read, written } = encoder.encodeInto(content, this.#buffer);
      if (read === content.length) return this.#buffer.subarray(0, written);
      this.#buffer = new Uint8Array(Math.max(2 * this.#buffer.length, 3 * content.length));
    }
  }
}

/** A folder on the way was swapped (for a link or another folder): everything goes back. */
export class SwapError extends FileStepError {
  /** The error for `folder` (relative), `detail` saying what happened to it. */
  constructor(folder: string, detail: string) {
    super(
      `"${folder}" ${detail} while code-commit was writing into it (another process is changing ` +
        "the project); code-commit never writes through a link",
    );
    this.name = "SwapError";
  }
}

/** One apply, through its phases: what each phase leaves for the next and for the rollback. */
export class ApplyRun {
  /** The folders checked or planned, by relative path (`""` is the root, trusted). */
  readonly folders = new Map<string, FolderState>([["", { kind: "real" }]]);
  /** Folders to make, from the top, and those made. */
  readonly toCreate: string[] = [];
  readonly created: string[] = [];
  /** Temporary files made and not yet renamed or removed, and their identities (`fstat`). */
  readonly temporaries = new Set<string>();
  readonly identities = new Map<string, FileIdentity>();
  /** The buffer a text is encoded into to hash it as the apply is planned. */
  readonly scratch = new EncodeBuffer();
  /** Folders this apply made that landed elsewhere than checked (a swapped folder). */
  readonly strays = new Set<string>();
  readonly done: PlannedChange[] = [];
  /** The change being carried out, named when something fails. */
  culprit: PlannedChange | undefined;
  realRoot: string | undefined;
  /** Set once a folder was found swapped: the cleanup then reaches for files through links too. */
  swapped = false;
  /** The run and number of the apply on disk, for the rollback's temporary names. */
  identity: ApplyRecorder["identity"];

  /** The state of an apply to the project at `root`, through `fs`, before anything is done. */
  constructor(
    readonly root: string,
    readonly fs: FileSystem,
    readonly parallelism: number,
    readonly temporaryName?: (path: string) => string,
  ) {}

  /** `lstat`, or null when nothing is at `path`. */
  async lstat(path: string): Promise<EntryInfo | null> {
    return (await lstatStep(this.fs, this.root, path)) ?? null;
  }

  /**
   * Checks that `folder` is still the real folder the plan found: its real
   * path is the root's plus `folder` (no link on the way) and, with `same`,
   * it is the same folder (device and inode). Deno has no `openat`: each look
   * goes through the folder's name again, so checks narrow a swap race, not close it.
   *
   * @throws {SwapError} naming the folder (the link, when there is one) otherwise.
   */
  async checkFolder(folder: string, same = true): Promise<void> {
    const realRoot = this.realRoot ??= await step(
      "resolving the project folder",
      () => this.fs.realPath(this.root === "" ? "." : this.root),
    );
    let real: string | undefined;
    try {
      real = await this.fs.realPath(under(this.root, folder));
    } catch (error) {
      if (!isMissing(error)) throw new FileStepError(`checking "${folder}"`, error);
    }
    if (real !== under(realRoot, folder)) {
      throw await this.swapError(
        folder,
        real === undefined ? "was moved away" : "was swapped for a symbolic link",
      );
    }
    if (folder === "" || !same) return;
    const known = this.folders.get(folder);
    const info = await this.lstat(folder);
    if (info === null || !info.isDirectory || (known?.kind === "real" && !sameFile(info, known))) {
      throw await this.swapError(folder, "was swapped for another folder");
    }
  }

  /**
   * `error`, or, when it says a path in `folder` was not there (a folder the
   * plan made sure of cannot lose a path by itself), the {@link SwapError}.
   */
  async explain(folder: string, error: unknown): Promise<unknown> {
    const cause = error instanceof FileStepError && error.cause !== undefined ? error.cause : error;
    if (error instanceof SwapError || !isMissing(cause)) return error;
    try {
      await this.checkFolder(folder);
    } catch (swap) {
      if (swap instanceof SwapError) return swap;
    }
    return await this.swapError(folder, "was moved away for a moment");
  }

  /** The error for a folder found swapped: names the symbolic link on the way, when one is there now. */
  async swapError(folder: string, detail: string): Promise<SwapError> {
    this.swapped = true;
    const segments = folder === "" ? [] : folder.split("/");
    for (let depth = 1; depth <= segments.length; depth++) {
      const current = segments.slice(0, depth).join("/");
      const info = await this.lstat(current).catch(() => null);
      if (info?.isSymlink) return new SwapError(current, "was swapped for a symbolic link");
    }
    return new SwapError(folder === "" ? "." : folder, detail);
  }
}

/** A temporary sibling of `path` (relative), named from `hex` or at random. Never throws. */
export function temporarySibling(path: string, hex?: string): string {
  const slash = path.lastIndexOf("/");
  return `${path.slice(0, slash + 1)}${temporaryName(path.slice(slash + 1), hex)}`;
}

/** Whether `info` is the file or folder `identity` (same device and inode, where known). */
export function sameFile(
  info: EntryInfo,
  identity: { readonly dev?: number; readonly ino?: number | null } | undefined,
): boolean {
  if (identity === undefined) return false;
  if (!isKnown(info.ino) || !isKnown(identity.ino)) return true;
  return info.ino === identity.ino && (info.dev === undefined || info.dev === identity.dev);
}

/** Whether the plan knows the inode of the file it expects. */
export function knownIno(expected: Expected): expected is { kind: "file"; ino: number } {
  return expected.kind === "file" && isKnown(expected.ino);
}

/** Whether an inode number is there (some platforms have none). */
export function isKnown(ino: number | null | undefined): ino is number {
  return typeof ino === "number";
}

/** Throws unless `info` describes a regular file. */
export function refuseNonFile(path: string, info: EntryInfo): void {
  if (info.isSymlink) {
    throw new FileStepError(
      `"${path}" is a symbolic link; code-commit never writes through a link`,
    );
  }
  if (info.isDirectory) {
    throw new FileStepError(`"${path}" is a folder; a reply can only replace or delete files`);
  }
  if (!info.isFile) {
    throw new FileStepError(`"${path}" is not a regular file (a device, socket or pipe)`);
  }
}

/**
 * The temporary sibling through which a rollback of apply `n` of `run`
 * restores `path`: the same in every process, so that the next recovery
 * removes it first should the rollback be killed before its rename. Never throws.
 */
export function rollbackTemporary(run: string, n: number, path: string): string {
  return temporarySibling(path, contentHash(encoder.encode(`rollback\0${run}\0${n}\0${path}`)));
}

/** A path that could not be restored, and why. */
export interface RollbackFailure {
  readonly path: string;
  readonly reason: string;
}

/** How long, after a folder was swapped, the cleanup keeps trying to reach a stray file. */
const STRAY_WAIT_MS = 2_000;

/**
 * Removes every temporary file, puts back every path changed (newest first)
 * from the journal's pre-images, and removes the folders made. Never
 * throws: returns the paths that could not be restored.
 */
export async function rollBack(run: ApplyRun, recorder: ApplyRecorder): Promise<RollbackFailure[]> {
  // Temporaries first: one left in a folder this reply created would keep that folder.
  const strays = await removeTemporaries(run);
  const failures: RollbackFailure[] = [];
  const restored = new Set<string>();
  for (const change of run.done.reverse()) {
    const { path } = change.operation;
    if (restored.has(path)) continue;
    restored.add(path);
    try {
      const before = await recorder.preImage(path);
      if (before === undefined) throw new FileStepError(`no copy of "${path}" was kept`);
      const created = change.created;
      if (before === null && run.swapped && created !== undefined) {
        // Through whatever `path` leads to now (a link too), once the file there is the one made.
        if (!await removeWhenFound(run, path, (info) => info.isFile && sameFile(info, created))) {
          throw new FileStepError(
            `the file this reply created there was not found since a folder on its way was ` +
              `swapped for a symbolic link or moved away: look for it where the link led`,
          );
        }
        continue;
      }
      await persist(run, async () => {
        await restore(run, path, before);
        await confirm(run, parentFolder(path), async () => await holds(run, path, before));
      });
    } catch (error) {
      // One pass: a path that cannot be restored now (a full or read-only disk) is named.
      failures.push({ path, reason: messageOf(error) });
    }
  }
  run.done.length = 0;
  // The temporary files left: those that resisted the first removal (tried again only after a
  // swap, which may be undone by now), and those a restore left.
  failures.push(...strays);
  const known = new Set(run.swapped ? [] : strays.map((stray) => stray.path));
  if ([...run.temporaries].some((temporary) => !known.has(temporary))) {
    failures.push(...await removeTemporaries(run, known));
  }
  for (const folder of [...run.created].reverse()) {
    try {
      if (run.strays.has(folder)) {
        if (!await removeWhenFound(run, folder, (info) => info.isDirectory)) {
          throw new Error("out of reach");
        }
        run.strays.delete(folder);
      } else {
        await persist(run, async () => {
          await removeIfPresent(run.fs, run.root, folder);
          await confirm(run, parentFolder(folder), async () => await run.lstat(folder) === null);
        });
      }
    } catch (error) {
      failures.push({ path: `${folder}/`, reason: messageOf(error) });
    }
  }
  // A temporary file that resisted removal twice is listed once.
  const named = new Set<string>();
  return failures.filter((failure) => !named.has(failure.path) && named.add(failure.path));
}

/** Calls `attempt` (at least once) until it returns true or `ms` pass; whether it did. */
async function keepTrying(ms: number, attempt: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (let round = 0;; round++) {
    if (await attempt()) return true;
    if (Date.now() >= deadline) return false;
    await pause(round < 50 ? 1 : 10);
  }
}

/** Runs `action`, after a swap again for a while on failure (a link may go); throws the last. */
async function persist(run: ApplyRun, action: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + (run.swapped ? STRAY_WAIT_MS : 0);
  for (let round = 0;; round++) {
    try {
      return await action();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
    }
    await pause(round < 50 ? 1 : 10);
  }
}

/**
 * After a folder was found swapped (a removal or rename may have gone
 * elsewhere), checks that `holds()` with `folder` in place right before and
 * right after the look; nothing otherwise.
 *
 * @throws {FileStepError} when it does not hold (yet).
 */
async function confirm(
  run: ApplyRun,
  folder: string,
  holds: () => Promise<boolean>,
): Promise<void> {
  if (!run.swapped) return;
  await run.checkFolder(folder);
  const held = await holds();
  await run.checkFolder(folder);
  if (!held) throw new FileStepError(`"${folder}" keeps changing; trying again`);
}

/** Removes `path` once what is there `is` the entry made; whether it did in {@link STRAY_WAIT_MS}. */
function removeWhenFound(
  run: ApplyRun,
  path: string,
  is: (info: EntryInfo) => boolean,
): Promise<boolean> {
  return keepTrying(STRAY_WAIT_MS, async () => {
    const info = await run.lstat(path).catch(() => null);
    return info !== null && is(info) && await removeFound(run, path);
  });
}

/** Removes `path`: true once removed, false when it was not found. */
async function removeFound(run: ApplyRun, path: string): Promise<boolean> {
  try {
    await run.fs.remove(under(run.root, path));
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

/** Whether `path` holds exactly `before` (its bytes and mode, or nothing). */
async function holds(run: ApplyRun, path: string, before: PreImage): Promise<boolean> {
  const info = await run.lstat(path);
  if (before === null || info === null) return before === null && info === null;
  if (!info.isFile) return false;
  if (before.mode !== null && info.mode !== null && (info.mode & 0o7777) !== before.mode) {
    return false;
  }
  const data = await run.fs.readFile(under(run.root, path));
  return sameBytes(data, before.data);
}

/** Puts `path` back to `before`: its bytes and mode, or nothing. */
async function restore(run: ApplyRun, path: string, before: PreImage): Promise<void> {
  if (before === null) {
    await removeIfPresent(run.fs, run.root, path);
    return;
  }
  // A name the next start's recovery knows, should this process be killed before the rename.
  const temporary = run.identity === undefined
    ? undefined
    : rollbackTemporary(run.identity.run, run.identity.n, path);
  if (temporary !== undefined && await run.lstat(temporary).catch(() => null) !== null) {
    await removeIfPresent(run.fs, run.root, temporary); // left by a rollback stopped before
  }
  await writeAtomically(run.fs, run.root, path, before.data, {
    name: temporary?.slice(temporary.lastIndexOf("/") + 1),
    mode: before.mode ?? undefined,
    temporaries: run.temporaries,
    beforeRename: async () => {
      const info = await run.lstat(path);
      if (info !== null) refuseNonFile(path, info);
    },
  });
}

/**
 * Removes every temporary file left (but those in `skip`) by its exact name,
 * through whatever path reaches it now (no one else made that name); returns
 * those it could not. After a swap it keeps trying until {@link STRAY_WAIT_MS}
 * pass without one removed; otherwise one pass (a refusing disk keeps refusing).
 */
async function removeTemporaries(
  run: ApplyRun,
  skip: ReadonlySet<string> = new Set(),
): Promise<RollbackFailure[]> {
  const reasons = new Map<string, string>();
  const wait = run.swapped ? STRAY_WAIT_MS : 0;
  let deadline = Date.now() + wait;
  let pending = [...run.temporaries].filter((temporary) => !skip.has(temporary));
  for (let round = 0; pending.length > 0; round++) {
    const left: string[] = [];
    for (const temporary of pending) {
      try {
        if (await removeMade(run, temporary)) {
          run.temporaries.delete(temporary);
          continue;
        }
      } catch (error) {
        reasons.set(temporary, messageOf(error));
      }
      left.push(temporary);
    }
    if (left.length < pending.length) deadline = Date.now() + wait;
    pending = left;
    if (pending.length === 0 || Date.now() >= deadline) break;
    await pause(round < 50 ? 1 : 10);
  }
  return pending.map((temporary) => ({
    path: temporary,
    reason: reasons.get(temporary) ??
      "it was made, and was not found since (a folder on its way was swapped for a " +
        "symbolic link or moved away): it is out of reach, look for it where the link led",
  }));
}

/** Removes `temporary` when the file there is the one made; false while it is not found. */
async function removeMade(run: ApplyRun, temporary: string): Promise<boolean> {
  const info = await run.lstat(temporary);
  if (info === null || !info.isFile) return false;
  const identity = run.identities.get(temporary);
  if (identity !== undefined && !sameFile(info, identity)) return false;
  if (!await removeFound(run, temporary)) return false;
  run.identities.delete(temporary);
  return true;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
