/**
 * The state of one apply, shared by its phases, and the check every phase
 * makes of a folder it works in ({@link ApplyRun.checkFolder}).
 *
 * @module
 */

import type { EntryInfo, FileIdentity, FileSystem } from "../file_system/file_system.ts";
import { under } from "../file_system/file_system.ts";
import { isMissing } from "../file_system/lstat.ts";
import { lstatStep } from "../file_system/real_folders.ts";
import { FileStepError, step } from "../file_system/file_step_error.ts";
import { temporaryName } from "../file_system/temporary_name.ts";
import type { AppliedChange, ApplyOperation } from "./apply.ts";
import type { FileState } from "./journal_store.ts";
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
