/**
 * The state of one apply, shared by its phases (`apply_plan.ts`,
 * `apply_stage.ts`, `apply_commit.ts`, `apply_rollback.ts`): the folders
 * checked, planned and made, the temporary files made, the changes done,
 * and whether a folder was found swapped; and the checks every phase makes
 * of a folder it works in ({@link ApplyRun.checkFolder}).
 *
 * @module
 */

import type { EntryInfo, FileIdentity, FileSystem } from "../file_system/file_system.ts";
import { under } from "../file_system/file_system.ts";
import { isMissing } from "../file_system/lstat.ts";
import { lstatStep } from "../file_system/real_folders.ts";
import { FileStepError, step } from "../file_system/file_step_error.ts";
import type { AppliedChange, ApplyOperation } from "./apply.ts";
import type { FileState } from "./journal_schema.ts";
import type { ApplyRecorder } from "./journal_recorder.ts";

/** What the plan expects at a path right before it is changed. */
export type Expected =
  /** Nothing. */
  | { readonly kind: "missing" }
  /** The file the plan read (its inode, where known). */
  | { readonly kind: "file"; readonly ino: number | null | undefined }
  /** A file an earlier operation of this apply put there. */
  | { readonly kind: "ours" };

/** One operation, planned. */
export interface PlannedChange {
  readonly operation: ApplyOperation;
  /** Its parent folder (relative; `""` for the root). */
  readonly folder: string;
  /** What it does; `none` for a delete of a file that is not there. */
  readonly kind: AppliedChange["kind"] | "none";
  /** What must be at the path right before the change. */
  readonly expected: Expected;
  /** The temporary file's path (writes only). */
  readonly temporary?: string;
  /** The mode the new file gets; undefined: the file system's. */
  readonly mode?: number;
  /** The size in bytes of what it writes (writes only). */
  readonly size?: number;
  /**
   * The {@link contentHash} of what it writes (writes only): recorded in the
   * journal before the first write. The bytes themselves are encoded again
   * as each is written, so a 20 MB reply is never held twice, as text and
   * as bytes.
   */
  readonly hash?: string;
  /** The created temporary file (writes, once made). */
  created?: FileIdentity;
  /** The state the write leaves the path in (writes, once made). */
  after?: FileState;
}

/** A folder as the plan found it: a real folder with its identity, or one to make. */
export type FolderState =
  | { readonly kind: "real"; readonly dev?: number; readonly ino?: number | null }
  | { readonly kind: "planned" };

const encoder = new TextEncoder();

/** Texts up to this many characters are encoded into an {@link EncodeBuffer}'s reused buffer. */
const REUSED_UP_TO = 256 * 1024;

/**
 * A buffer texts are encoded into, reused from one text to the next: the
 * bytes {@link EncodeBuffer.bytes} returns are valid until its next call.
 * Many small buffers made and dropped stay with the allocator, raising the
 * peak by as much as the reply; a large text gets a
 * buffer of its own, which goes straight back to the system.
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

/**
 * A folder on the way to a path was swapped (for a symbolic link, or for
 * another folder) while the applier worked in it: stop, everything goes back.
 */
export class SwapError extends FileStepError {
  /** The folder, relative to the root. */
  readonly folder: string;

  constructor(folder: string, detail: string) {
    super(
      `"${folder}" ${detail} while code-commit was writing into it (another process is changing ` +
        "the project); code-commit never writes through a link",
    );
    this.name = "SwapError";
    this.folder = folder;
  }
}

/** One apply, through its phases: what each phase leaves for the next and for the rollback. */
export class ApplyRun {
  /** The project root, absolute or relative to the current directory. */
  readonly root: string;
  /** The file system every call goes through (tests inject faults there). */
  readonly fs: FileSystem;
  /** How many temporary files are written at once. */
  readonly parallelism: number;
  /** The folders checked or planned, by relative path (`""` is the root, trusted). */
  readonly folders = new Map<string, FolderState>([["", { kind: "real" }]]);
  /** Folders to make, from the top. */
  readonly toCreate: string[] = [];
  /** Folders this apply made (relative), in the order made. */
  readonly created: string[] = [];
  /** Temporary files made and not yet renamed or removed (relative; see `WriteOptions.temporaries`). */
  readonly temporaries = new Set<string>();
  /** The identity of each temporary file made, where Deno could tell it (`fstat` of its descriptor). */
  readonly identities = new Map<string, FileIdentity>();
  /** The buffer a text is encoded into to hash it as the apply is planned. */
  readonly scratch = new EncodeBuffer();
  /** Folders this apply made that landed elsewhere than checked (a swapped folder). */
  readonly strays = new Set<string>();
  /** The changes made, in order. */
  readonly done: PlannedChange[] = [];
  /** The change being carried out, named when something fails. */
  culprit: PlannedChange | undefined;
  /** The real path of the root, resolved once. */
  realRoot: string | undefined;
  /** Set once a folder was found swapped: the cleanup then reaches for files through links too. */
  swapped = false;
  /** The temporary file (relative) each write goes through; a fresh name when undefined. */
  readonly temporaryName: ((path: string) => string) | undefined;
  /** The run and number of the apply on disk, for the rollback's temporary names. */
  identity: ApplyRecorder["identity"];

  /** The state of an apply to the project at `root`, through `fs`, before anything is done. */
  constructor(
    root: string,
    fs: FileSystem,
    parallelism: number,
    temporaryName?: (path: string) => string,
  ) {
    this.root = root;
    this.fs = fs;
    this.parallelism = parallelism;
    this.temporaryName = temporaryName;
  }

  /** `lstat`, or null when nothing is at `path`. */
  async lstat(path: string): Promise<EntryInfo | null> {
    return (await lstatStep(this.fs, this.root, path)) ?? null;
  }

  /**
   * Checks that `folder` (relative) is still the real folder the plan
   * found: its real path is the root's plus `folder` (no link anywhere on
   * the way), and, with `same` (the default), it is the same folder (device
   * and inode). A caller that checks the identity of a file in it right
   * after need not check the folder's.
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
    if (
      info === null || !info.isDirectory || (known?.kind === "real" && !sameFolder(info, known))
    ) {
      throw await this.swapError(folder, "was swapped for another folder");
    }
  }

  /**
   * `error`, or, when it says that a path in `folder` was not there (a
   * folder the plan found, and made sure of, cannot lose a path by itself),
   * the {@link SwapError} for `folder`: swapped, or moved away for a moment.
   */
  async explain(folder: string, error: unknown): Promise<unknown> {
    if (error instanceof SwapError || !isMissing(causeOf(error))) return error;
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

/** The operating system's error inside a `FileStepError` (its cause), or `error` itself. */
function causeOf(error: unknown): unknown {
  return error instanceof FileStepError && error.cause !== undefined ? error.cause : error;
}

/** Whether `info` is the file `identity` describes (same device and inode, where both are known). */
export function sameFile(info: EntryInfo, identity: FileIdentity | undefined): boolean {
  if (identity === undefined) return false;
  if (!isKnown(info.ino) || !isKnown(identity.ino)) return true;
  return info.ino === identity.ino && (info.dev === undefined || info.dev === identity.dev);
}

/** Whether `info` is the folder the plan found (same device and inode, where both are known). */
function sameFolder(info: EntryInfo, known: { dev?: number; ino?: number | null }): boolean {
  if (!isKnown(info.ino) || !isKnown(known.ino)) return true;
  return info.ino === known.ino && info.dev === known.dev;
}

/** Whether the plan knows the inode of the file it expects (to check it is the same one). */
export function knownIno(expected: Expected): boolean {
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
