/**
 * The transactional applier: carries out the file operations of a reply
 * (already parsed, and their paths already checked by the path guard) all or
 * nothing (every operation is made or none is), in phases:
 *
 * 1. **Plan** (reads only): each parent folder is checked once per apply
 *    (real folders, never a link; the missing ones are to be made), and
 *    what each path holds is read: its bytes and mode, or that nothing is
 *    there. A temporary name is drawn for each file to write.
 * 2. **Journal**: all of it, and the state each operation means to leave
 *    its path in (mode, size, hash of the bytes), is recorded in the
 *    journal and synced (`journal.ts`) before anything is written, so that
 *    even a killed process is rolled back at the next start, and only over
 *    states the apply itself could have left.
 * 3. **Folders**, from the top, then **temporary files**: each write goes to
 *    a temporary sibling, created exclusively, several at a time. Right
 *    after each is created, before a byte is written to it, its folder is
 *    checked again: the real path must still be the folder checked, inside
 *    the project, and the new file (its device and inode, from its open
 *    descriptor) must be the one at its name, with the folder checked
 *    right before and right after that look.
 * 4. **Renames and deletes**, in the reply's order, each right after its
 *    folder, its temporary file and its destination are checked again. Every
 *    temporary file exists before the first rename.
 * 5. **Complete**: the journal records the state each path was left in.
 *
 * If any step fails, every temporary file is removed (a file that landed
 * outside the project through a folder swapped for a link is removed
 * through that link, by the exact name it was made with), every change made
 * is undone from the journal's pre-images, in reverse order, the folders
 * made are removed, and an {@link ApplyError} says which path failed and
 * whether the undo was complete.
 *
 * After a folder was found swapped, nothing is decided by absence: a file
 * this apply made (a temporary file, or a new file renamed into place)
 * counts as removed only once a removal of it succeeded, by its unique
 * name or once the file at its path is that very file (device and inode).
 * A name not found only means that the look went elsewhere (the folder was
 * a link, or moved aside, at that moment); the cleanup keeps trying.
 *
 * What remains a race: Deno has no `openat`, so every call goes through
 * the folder's name again, and looks before and after a call narrow the
 * window without closing it. A process that swaps a folder for a link
 * and back between two looks (twice within microseconds, unless this
 * process is descheduled there) can still make a check pass for a file
 * that landed outside, a rename or removal after its check go through the
 * link, or a replaced file be restored through it.
 *
 * All file system calls go through {@link ApplyFileSystem}, so tests can make
 * any single call fail.
 *
 * @module
 */

import { CodeCommitError, messageOf } from "../errors/errors.ts";
import {
  denoFileSystem,
  type EntryInfo,
  type FileIdentity,
  type FileSystem,
  under,
} from "../file_system/file_system.ts";
import { isMissing } from "../file_system/lstat.ts";
import { lstatStep, parentFolder } from "../file_system/real_folders.ts";
import { FileStepError, step } from "../file_system/file_step_error.ts";
import {
  removeIfPresent,
  temporaryName,
  writeAtomically,
  writeTemporary,
} from "../file_system/write_atomically.ts";
import { countLines } from "../text/diff.ts";
import { nameSome } from "../text/change_list.ts";
import { plural } from "../text/plural.ts";
import {
  type ApplyJournal,
  type ApplyRecorder,
  contentHash,
  type FileState,
  type IntendedState,
  memoryJournal,
  type PostState,
  type PreImage,
} from "./journal.ts";
import { rollbackTemporary } from "./rollback_names.ts";

/** What `lstat` reports about a path, as far as the applier needs it. */
export type ApplyFileInfo = EntryInfo;

/**
 * The file system calls the applier makes (`lib/file_system/`'s
 * `FileSystem`). Paths are absolute or relative to the current directory, as
 * given to {@link applyOperations}'s `root`. Every method rejects with the
 * platform's error (for example `Deno.errors.NotFound`) when the call fails.
 * The mutating calls are `writeNewFile`, `rename`, `remove` and `mkdir`.
 */
export type ApplyFileSystem = FileSystem;

export { denoFileSystem };

/**
 * One operation the applier carries out: a reply's `FileOperation`, or a
 * write with bytes and exact permission bits (as `--undo` restores a file).
 */
export type ApplyOperation =
  | {
    readonly kind: "write";
    /** Relative, `/`-separated. */
    readonly path: string;
    /** The new content. */
    readonly content: string | Uint8Array;
    /** The permission bits; by default a replaced file keeps its own, a new one gets the file system's. */
    readonly mode?: number;
  }
  | { readonly kind: "delete"; readonly path: string };

/** One file a reply changed. */
export interface AppliedChange {
  /** The operation's path, relative to the project root, `/`-separated. */
  readonly path: string;
  /** `created`: the file did not exist; `replaced`: it did; `deleted`: it was removed. */
  readonly kind: "created" | "replaced" | "deleted";
}

/** What {@link applyOperations} did. */
export interface ApplyResult {
  /** The files changed, in the order of the operations (a delete of a missing file is absent). */
  readonly changes: AppliedChange[];
  /** Operations that changed nothing (deleting a file that does not exist), one sentence each. */
  readonly warnings: string[];
}

/** Options of {@link applyOperations}. */
export interface ApplyOptions {
  /** The file system to work on; {@link denoFileSystem} by default. Tests inject faults here. */
  readonly fs?: ApplyFileSystem;
  /**
   * Where the apply is recorded before it writes; by default a journal in
   * memory (a rollback in this process only). Workflows pass the run's
   * journal on disk.
   */
  readonly journal?: ApplyJournal;
  /** How many temporary files are written at once (default {@link WRITES_IN_FLIGHT}). */
  readonly parallelism?: number;
  /** A recorder already begun (by `--undo`, which records its own apply); `journal` is then unused. */
  readonly recorder?: ApplyRecorder;
  /**
   * The temporary file (relative) each write goes through; by default a
   * fresh name. Recovery passes names the next recovery can find again.
   */
  readonly temporaryName?: (path: string) => string;
}

/**
 * How many temporary files are written at once by default: enough to keep
 * the disk busy while each write waits, few enough that the bytes in flight
 * stay small.
 */
const WRITES_IN_FLIGHT = 16;

/**
 * A reply could not be applied. By the time it is thrown every change already
 * made has been undone, except the paths in {@link ApplyError.notRestored}.
 * Exit status 1.
 */
export class ApplyError extends CodeCommitError {
  /** The path of the operation that failed (relative, as in the reply). */
  readonly path: string;
  /**
   * Paths the rollback could not put back (folders end with `/`, leftover
   * temporary files are listed too); empty when the project is exactly as before.
   */
  readonly notRestored: readonly string[];

  /** Makes the error; `message` is the whole user-facing line. */
  constructor(
    message: string,
    path: string,
    notRestored: readonly string[] = [],
    options?: ErrorOptions,
  ) {
    super(message, undefined, options);
    this.name = "ApplyError";
    this.path = path;
    this.notRestored = notRestored;
  }
}

/**
 * A folder on the way to a path was swapped (for a symbolic link, or for
 * another folder) while the applier worked in it: stop, everything goes back.
 */
class SwapError extends FileStepError {
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

/**
 * Applies `operations` to the project at `root`, all or nothing: writes each
 * file atomically (temporary sibling, then rename), keeps the mode of replaced
 * files, creates missing parent folders, and removes deleted files. Paths must
 * be relative and `/`-separated (the path guard has checked them).
 *
 * Deleting a file that does not exist changes nothing and adds a warning.
 *
 * Throws {@link ApplyError} when an operation cannot be carried out (an
 * operating-system error, a symbolic link or folder in the way, a path that is
 * not relative, a journal that cannot be written): every change already made
 * is first rolled back, and the error names the failing path, the cause, and
 * any path the rollback could not restore.
 */
export async function applyOperations(
  root: string,
  operations: readonly ApplyOperation[],
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  for (const operation of operations) {
    const problem = relativePathProblem(operation.path);
    if (problem !== null) {
      throw new ApplyError(
        `refusing to apply the reply: the path "${operation.path}" ${problem}; ` +
          `nothing was changed`,
        operation.path,
      );
    }
  }
  if (operations.length === 0) return { changes: [], warnings: [] };
  const apply = new Apply(
    root,
    options.fs ?? denoFileSystem,
    Math.max(1, options.parallelism ?? WRITES_IN_FLIGHT),
    options.temporaryName,
  );
  return await apply.run(operations, options.recorder ?? await beginRecord(options.journal));
}

/** Begins the journal's record, as an {@link ApplyError} when it cannot. */
async function beginRecord(journal: ApplyJournal | undefined): Promise<ApplyRecorder> {
  try {
    return await (journal ?? memoryJournal()).begin();
  } catch (error) {
    throw new ApplyError(
      `refusing to apply the reply: ${messageOf(error)}`,
      "",
      [],
      { cause: error },
    );
  }
}

/** Why `path` is not a plain relative `/`-separated path, or null if it is one. */
function relativePathProblem(path: string): string | null {
  if (path === "") return "is empty";
  if (path.includes("\0")) return "contains a NUL character";
  if (path.startsWith("/")) return "is absolute";
  const bad = path.split("/").find((segment) =>
    segment === "" || segment === "." || segment === ".."
  );
  if (bad !== undefined) {
    return bad === "" ? "has an empty segment" : `has a "${bad}" segment`;
  }
  return null;
}

/** An undo-path that could not be restored, and why. */
interface RollbackFailure {
  readonly path: string;
  readonly reason: string;
}

/** Builds the error for a failed operation after its rollback. */
function applyError(
  operation: ApplyOperation,
  error: unknown,
  failures: readonly RollbackFailure[],
  kept: boolean,
): ApplyError {
  const verb = operation.kind === "write" ? "write" : "delete";
  const head = `could not ${verb} "${operation.path}": ${messageOf(error)}`;
  if (failures.length === 0) {
    return new ApplyError(
      `${head}. Every change already made by this reply was rolled back: the project is ` +
        `exactly as it was before. Fix the cause above and run code-commit again.`,
      operation.path,
      [],
      { cause: error },
    );
  }
  const list = nameSome(failures.map((failure) => `"${failure.path}" (${failure.reason})`), {
    separator: "; ",
  });
  return new ApplyError(
    `${head}. Rolling back failed for ${plural(failures.length, "path")}, which may be left ` +
      `changed, missing or extra: ${list}. Every other change was rolled back. ` +
      (kept
        ? "The journal keeps what they held: the next start of code-commit (any command, " +
          "once the disk takes writes again) restores them first; or check them (git " +
          "status, git diff) and restore them by hand."
        : "Check these paths (git status, git diff) and restore them by hand."),
    operation.path,
    failures.map((failure) => failure.path),
    { cause: error },
  );
}

/** What the plan expects at a path right before it is changed. */
type Expected =
  /** Nothing. */
  | { readonly kind: "missing" }
  /** The file the plan read (its inode, where known). */
  | { readonly kind: "file"; readonly ino: number | null | undefined }
  /** A file an earlier operation of this apply put there. */
  | { readonly kind: "ours" };

/** What a path holds as the plan goes (after the operations planned so far). */
interface Planned {
  readonly expected: Expected;
  /** Its permission bits, when it is a file and they are known. */
  readonly mode: number | undefined;
}

/** One operation, planned. */
interface Step {
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
type FolderState =
  | { readonly kind: "real"; readonly dev?: number; readonly ino?: number | null }
  | { readonly kind: "planned" };

/** How long, after a folder was swapped, the cleanup keeps trying to reach a stray file. */
const STRAY_WAIT_MS = 2_000;

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
class EncodeBuffer {
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

/** One apply, through its phases. */
class Apply {
  readonly #root: string;
  readonly #fs: ApplyFileSystem;
  readonly #parallelism: number;
  /** The folders checked or planned, by relative path (`""` is the root, trusted). */
  readonly #folders = new Map<string, FolderState>([["", { kind: "real" }]]);
  /** Folders to make, from the top. */
  readonly #toCreate: string[] = [];
  /** Folders this apply made (relative), in the order made. */
  readonly #created: string[] = [];
  /** Temporary files made and not yet renamed or removed (relative; see `WriteOptions.temporaries`). */
  readonly #temporaries = new Set<string>();
  /** The identity of each temporary file made, where Deno could tell it (`fstat` of its descriptor). */
  readonly #identities = new Map<string, FileIdentity>();
  /** The buffer a text is encoded into to hash it as the apply is planned. */
  readonly #scratch = new EncodeBuffer();
  /** Folders this apply made that landed elsewhere than checked (a swapped folder). */
  readonly #strays = new Set<string>();
  /** Steps whose change was made, in order. */
  readonly #done: Step[] = [];
  /** The step being carried out, named when something fails. */
  #culprit: Step | undefined;
  /** The real path of the root, resolved once. */
  #realRoot: string | undefined;
  /** Set once a folder was found swapped: the cleanup then reaches for files through links too. */
  #swapped = false;

  readonly #temporaryName: ((path: string) => string) | undefined;
  /** The run and number of the apply on disk, for the rollback's temporary names. */
  #identity: ApplyRecorder["identity"];

  constructor(
    root: string,
    fs: ApplyFileSystem,
    parallelism: number,
    temporaryName?: (path: string) => string,
  ) {
    this.#root = root;
    this.#fs = fs;
    this.#parallelism = parallelism;
    this.#temporaryName = temporaryName;
  }

  async run(
    operations: readonly ApplyOperation[],
    recorder: ApplyRecorder,
  ): Promise<ApplyResult> {
    const steps: Step[] = [];
    this.#identity = recorder.identity;
    try {
      await this.#plan(operations, steps, recorder);
    } catch (error) {
      await recorder.discard();
      throw applyError(operations[steps.length], error, [], false);
    }
    const writes = steps.filter((step) => step.temporary !== undefined);
    try {
      await recorder.commit({
        folders: this.#toCreate,
        temporaries: writes.map((step) => step.temporary!),
        intended: intendedStates(steps),
      });
    } catch (error) {
      await recorder.discard();
      throw new ApplyError(
        `refusing to apply the reply: ${messageOf(error)}; nothing was changed`,
        "",
        [],
        { cause: error },
      );
    }

    try {
      await this.#makeFolders(steps);
      await this.#writeTemporaries(writes);
      for (const step of steps) {
        this.#culprit = step;
        await this.#change(step);
      }
      this.#culprit = steps.at(-1);
      await recorder.complete(postStates(steps));
    } catch (error) {
      const failures = await this.#rollback(recorder);
      if (failures.length === 0) await recorder.discard();
      const operation = this.#culprit?.operation ?? operations[0];
      throw applyError(operation, error, failures, recorder.identity !== undefined);
    }
    const warnings = steps.filter((step) => step.kind === "none").map((step) =>
      `"${step.operation.path}" was to be deleted but does not exist; nothing to delete`
    );
    const changes: AppliedChange[] = [];
    for (const step of steps) {
      if (step.kind !== "none") changes.push({ path: step.operation.path, kind: step.kind });
    }
    return { changes, warnings };
  }

  // -------------------------------------------------------------------------
  // 1. Plan

  /**
   * Checks every path and reads what it holds into the journal, adding one
   * step per operation to `steps`; on a failure, `steps.length` is the
   * index of the operation that failed.
   */
  async #plan(
    operations: readonly ApplyOperation[],
    steps: Step[],
    recorder: ApplyRecorder,
  ): Promise<void> {
    const state = new Map<string, Planned>();
    for (const operation of operations) {
      steps.push(await this.#planOne(operation, state, recorder));
    }
  }

  async #planOne(
    operation: ApplyOperation,
    state: Map<string, Planned>,
    recorder: ApplyRecorder,
  ): Promise<Step> {
    const { path } = operation;
    const folder = parentFolder(path);
    if (this.#folders.get(path)?.kind === "planned") {
      throw new FileStepError(`"${path}" is a folder this reply creates; a reply writes files`);
    }
    const reachable = await this.#planFolder(folder, operation.kind === "write");
    // Nothing can be in a folder this reply makes: no look (and no NotFound to build) there.
    const planned = state.get(path) ??
      await this.#readOriginal(
        path,
        reachable && this.#folders.get(folder)?.kind !== "planned",
        recorder,
      );

    const { expected } = planned;
    if (operation.kind === "delete") {
      state.set(path, { expected: { kind: "missing" }, mode: undefined });
      return {
        operation,
        folder,
        kind: expected.kind === "missing" ? "none" : "deleted",
        expected,
      };
    }
    const name = path.slice(folder === "" ? 0 : folder.length + 1);
    const temporary = this.#temporaryName?.(path) ??
      (folder === "" ? temporaryName(name) : `${folder}/${temporaryName(name)}`);
    const mode = operation.mode ?? planned.mode;
    state.set(path, { expected: { kind: "ours" }, mode });
    const kind = expected.kind === "missing" ? "created" : "replaced";
    const data = this.#scratch.bytes(operation.content);
    return {
      operation,
      folder,
      kind,
      expected,
      temporary,
      mode,
      size: data.length,
      hash: contentHash(data),
    };
  }

  /**
   * Reads what `path` holds now into the journal: its bytes and mode, or
   * nothing (`reachable` false: a folder on the way is missing).
   */
  async #readOriginal(
    path: string,
    reachable: boolean,
    recorder: ApplyRecorder,
  ): Promise<Planned> {
    const info = reachable ? await this.#lstat(path) : null;
    if (info === null) {
      await recorder.add(path, null);
      return { expected: { kind: "missing" }, mode: undefined };
    }
    refuseNonFile(path, info);
    const data = await step(
      `reading "${path}" (to keep a copy for rollback)`,
      () => this.#fs.readFile(under(this.#root, path)),
    );
    const mode = info.mode === null ? undefined : info.mode & 0o7777;
    await recorder.add(path, { data, mode: mode ?? null });
    return { expected: { kind: "file", ino: info.ino }, mode };
  }

  /**
   * Checks `folder` and the folders above it, each once per apply: a real
   * folder (remembered with its identity), or missing (with `create`: to be
   * made, from the top). Returns false when a folder is missing or a file
   * and none is to be made (nothing can be there).
   *
   * @throws {FileStepError} on a symbolic link, or (with `create`) a file where a folder must be.
   */
  async #planFolder(folder: string, create: boolean): Promise<boolean> {
    if (this.#folders.has(folder)) return true;
    const segments = folder.split("/");
    for (let depth = 1; depth <= segments.length; depth++) {
      const current = segments.slice(0, depth).join("/");
      if (this.#folders.has(current)) continue;
      const info = await this.#lstat(current);
      if (info === null) {
        if (!create) return false;
        for (let rest = depth; rest <= segments.length; rest++) {
          const planned = segments.slice(0, rest).join("/");
          this.#folders.set(planned, { kind: "planned" });
          this.#toCreate.push(planned);
        }
        return true;
      }
      if (info.isSymlink) {
        throw new FileStepError(
          `"${current}" is a symbolic link; code-commit never writes through a link`,
        );
      }
      if (!info.isDirectory) {
        if (!create) return false;
        throw new FileStepError(`"${current}" is a file, not a folder`);
      }
      this.#folders.set(current, { kind: "real", dev: info.dev, ino: info.ino });
    }
    return true;
  }

  /** `lstat`, or null when nothing is at `path`. */
  async #lstat(path: string): Promise<ApplyFileInfo | null> {
    return (await lstatStep(this.#fs, this.#root, path)) ?? null;
  }

  // -------------------------------------------------------------------------
  // 3. Folders and temporary files

  /** Makes the planned folders from the top, each checked right after it is made. */
  async #makeFolders(steps: readonly Step[]): Promise<void> {
    for (const folder of this.#toCreate) {
      this.#culprit = steps.find((step) =>
        step.folder === folder || step.folder.startsWith(`${folder}/`)
      );
      await this.#checkFolder(parentFolder(folder));
      try {
        await this.#fs.mkdir(under(this.#root, folder));
        this.#created.push(folder);
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) {
          throw new FileStepError(`creating the folder "${folder}"`, error);
        }
        // Another process made it meanwhile: checked below, never removed.
      }
      const info = await this.#lstat(folder);
      if (info === null || info.isSymlink || !info.isDirectory) {
        if (this.#created.at(-1) === folder) this.#strays.add(folder);
        throw await this.#swapError(parentFolder(folder), "was swapped for another folder");
      }
      this.#folders.set(folder, { kind: "real", dev: info.dev, ino: info.ino });
      try {
        await this.#checkFolder(folder);
      } catch (error) {
        if (this.#created.at(-1) === folder) this.#strays.add(folder);
        throw error;
      }
    }
  }

  /**
   * Writes every temporary file, at most `parallelism` at once; on the
   * first failure no more are started, those in flight finish, and the
   * failure is thrown (its step is the culprit).
   */
  async #writeTemporaries(writes: readonly Step[]): Promise<void> {
    let next = 0;
    let failure: { error: unknown } | undefined;
    const worker = async () => {
      // Each worker encodes into a buffer of its own, reused file after file: a 20 MB reply
      // is not 20 MB of buffers made and dropped (which the allocator keeps).
      const buffer = new EncodeBuffer();
      while (failure === undefined && next < writes.length) {
        const step = writes[next++];
        try {
          await this.#writeTemporary(step, buffer);
        } catch (error) {
          if (failure === undefined) {
            failure = { error };
            this.#culprit = step;
          }
        }
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(this.#parallelism, writes.length) }, worker),
    );
    if (failure !== undefined) throw failure.error;
  }

  /** Writes one step's temporary file (its text encoded into `buffer`), checked right after it is created. */
  async #writeTemporary(step: Step, buffer: EncodeBuffer): Promise<void> {
    const { content } = step.operation as { content: string | Uint8Array };
    const data = buffer.bytes(content);
    const name = step.temporary!.slice(step.folder === "" ? 0 : step.folder.length + 1);
    try {
      await writeTemporary(this.#fs, this.#root, step.operation.path, data, {
        name,
        mode: step.mode,
        temporaries: this.#temporaries,
        onCreated: (identity) => this.#checkCreated(step, identity),
      });
    } catch (error) {
      throw await this.#explain(step.folder, error);
    }
    const created = step.created?.mode;
    const mode = step.mode ?? (typeof created === "number" ? created & 0o7777 : null);
    step.after = { mode, size: data.length, hash: step.hash!, lines: countLines(data) };
  }

  /**
   * Checks a temporary file right after it was created, before anything is
   * written to it: Deno could `fstat` it (so it is inside the folders it may
   * read), and the file at its name is the one just made (device and inode)
   * with its folder the one checked (its real path and identity) right
   * before and right after that look.
   *
   * Not a proof: Deno cannot look up a name in a folder it holds open
   * (`openat`), so each look goes through the folder's name again, and a
   * process that swaps the folder for a link and back between two looks
   * (twice, within microseconds, unless this process is descheduled there)
   * can show the file in place when it is not. The cleanup does not rely on
   * it: it removes every file made by its exact name, wherever it is.
   *
   * @throws {SwapError} otherwise.
   */
  async #checkCreated(step: Step, identity: FileIdentity | undefined): Promise<void> {
    const temporary = step.temporary!;
    if (identity === undefined) {
      throw await this.#swapError(step.folder, "was swapped for a symbolic link");
    }
    this.#identities.set(temporary, identity);
    step.created = identity;
    await this.#checkFolder(step.folder);
    const info = await this.#lstat(temporary);
    if (info === null || !info.isFile || !sameFile(info, identity)) {
      throw await this.#swapError(step.folder, "was swapped for another folder");
    }
    await this.#checkFolder(step.folder);
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
  async #checkFolder(folder: string, same = true): Promise<void> {
    const realRoot = this.#realRoot ??= await step(
      "resolving the project folder",
      () => this.#fs.realPath(this.#root === "" ? "." : this.#root),
    );
    let real: string | undefined;
    try {
      real = await this.#fs.realPath(under(this.#root, folder));
    } catch (error) {
      if (!isMissing(error)) throw new FileStepError(`checking "${folder}"`, error);
    }
    if (real !== under(realRoot, folder)) {
      throw await this.#swapError(
        folder,
        real === undefined ? "was moved away" : "was swapped for a symbolic link",
      );
    }
    if (folder === "" || !same) return;
    const known = this.#folders.get(folder);
    const info = await this.#lstat(folder);
    if (
      info === null || !info.isDirectory || (known?.kind === "real" && !sameFolder(info, known))
    ) {
      throw await this.#swapError(folder, "was swapped for another folder");
    }
  }

  /**
   * `error`, or, when it says that a path in `folder` was not there (a
   * folder the plan found, and made sure of, cannot lose a path by itself),
   * the {@link SwapError} for `folder`: swapped, or moved away for a moment.
   */
  async #explain(folder: string, error: unknown): Promise<unknown> {
    if (error instanceof SwapError || !isMissing(causeOf(error))) return error;
    try {
      await this.#checkFolder(folder);
    } catch (swap) {
      if (swap instanceof SwapError) return swap;
    }
    return await this.#swapError(folder, "was moved away for a moment");
  }

  /** The error for a folder found swapped: names the symbolic link on the way, when one is there now. */
  async #swapError(folder: string, detail: string): Promise<SwapError> {
    this.#swapped = true;
    const segments = folder === "" ? [] : folder.split("/");
    for (let depth = 1; depth <= segments.length; depth++) {
      const current = segments.slice(0, depth).join("/");
      const info = await this.#lstat(current).catch(() => null);
      if (info?.isSymlink) return new SwapError(current, "was swapped for a symbolic link");
    }
    return new SwapError(folder === "" ? "." : folder, detail);
  }

  // -------------------------------------------------------------------------
  // 4. Renames and deletes

  /** Carries out one step, after checking its folder, its temporary file and its path again. */
  async #change(step: Step): Promise<void> {
    if (step.kind === "none") return;
    const { path } = step.operation;
    // The real path, then the identity of the file in it (the temporary file, or the one deleted).
    await this.#checkFolder(step.folder, step.temporary === undefined && !knownIno(step.expected));
    if (step.temporary !== undefined) {
      const temporary = await this.#lstat(step.temporary);
      if (temporary === null || !temporary.isFile || !sameFile(temporary, step.created)) {
        throw new FileStepError(
          `the temporary file "${step.temporary}" was removed or replaced before it was renamed`,
        );
      }
    }
    await this.#checkExpected(step);
    try {
      if (step.temporary !== undefined) {
        const temporary = step.temporary;
        await step_(
          `renaming "${temporary}" to "${path}"`,
          () => this.#fs.rename(under(this.#root, temporary), under(this.#root, path)),
        );
        this.#temporaries.delete(temporary);
      } else {
        await step_(`removing "${path}"`, () => this.#fs.remove(under(this.#root, path)));
      }
    } catch (error) {
      throw await this.#explain(step.folder, error);
    }
    this.#done.push(step);
  }

  /** Checks that `step`'s path holds what the plan expects (nothing, or the same regular file). */
  async #checkExpected(step: Step): Promise<void> {
    const { path } = step.operation;
    const info = await this.#lstat(path);
    const expected = step.expected;
    if (info === null) {
      if (expected.kind === "missing") return;
      throw new FileStepError(`"${path}" vanished while the reply was being applied`);
    }
    refuseNonFile(path, info);
    if (expected.kind === "missing") {
      throw new FileStepError(
        `"${path}" was created by another process while the reply was being applied`,
      );
    }
    if (
      expected.kind === "file" && isKnown(expected.ino) && isKnown(info.ino) &&
      expected.ino !== info.ino
    ) {
      throw new FileStepError(
        `"${path}" was replaced by another process while the reply was being applied`,
      );
    }
  }

  // -------------------------------------------------------------------------
  // Rollback

  /**
   * Removes every temporary file, puts back every path a step changed
   * (newest first) from the journal's pre-images, and removes the folders
   * made. Never throws: returns the paths that could not be restored.
   */
  async #rollback(recorder: ApplyRecorder): Promise<RollbackFailure[]> {
    // Temporaries first: one left in a folder this reply created would keep
    // that folder from being removed.
    const strays = await this.#removeTemporaries();
    const failures: RollbackFailure[] = [];
    const restored = new Set<string>();
    for (const step of this.#done.reverse()) {
      const { path } = step.operation;
      if (restored.has(path)) continue;
      restored.add(path);
      try {
        const before = await recorder.preImage(path);
        if (before === undefined) throw new FileStepError(`no copy of "${path}" was kept`);
        if (before === null && this.#swapped && step.created !== undefined) {
          await this.#removeCreated(path, step.created);
          continue;
        }
        await this.#persist(async () => {
          await this.#restore(path, before);
          await this.#confirm(parentFolder(path), async () => await this.#holds(path, before));
        });
      } catch (error) {
        // One pass: a path that cannot be restored now (a disk full or turned read-only) is
        // named, and the next one tried; the temporary files left go once, below.
        failures.push({ path, reason: messageOf(error) });
      }
    }
    this.#done.length = 0;
    // The paths first, then the temporary files left: those that resisted the first removal
    // (tried again only after a swap, which may be undone by now), and those a restore left.
    failures.push(...strays);
    const known = new Set(this.#swapped ? [] : strays.map((stray) => stray.path));
    if ([...this.#temporaries].some((temporary) => !known.has(temporary))) {
      failures.push(...await this.#removeTemporaries(known));
    }
    for (const folder of [...this.#created].reverse()) {
      try {
        if (this.#strays.has(folder)) {
          if (!await this.#removeStray(folder)) throw new Error("out of reach");
        } else {
          await this.#persist(async () => {
            await removeIfPresent(this.#fs, this.#root, folder);
            await this.#confirm(
              parentFolder(folder),
              async () => await this.#lstat(folder) === null,
            );
          });
        }
      } catch (error) {
        failures.push({ path: `${folder}/`, reason: messageOf(error) });
      }
    }
    // A temporary file that resisted removal twice is listed once.
    const unique = new Map<string, RollbackFailure>();
    for (const failure of failures) {
      if (!unique.has(failure.path)) unique.set(failure.path, failure);
    }
    return [...unique.values()];
  }

  /**
   * Runs `action`; after a folder was found swapped, a failure is tried
   * again for a while (the swap may be undone: a link in the way now may be
   * gone in a moment), and the last failure is thrown.
   */
  async #persist(action: () => Promise<void>): Promise<void> {
    const deadline = Date.now() + (this.#swapped ? STRAY_WAIT_MS : 0);
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
   * After a folder was found swapped, a removal or rename through a path may
   * have hit the wrong folder (the path led elsewhere for a moment): checks
   * that `holds()` is true with `folder` in place right before and right
   * after the look. Does nothing when no swap was found.
   *
   * @throws {FileStepError} when it does not hold (yet).
   */
  async #confirm(folder: string, holds: () => Promise<boolean>): Promise<void> {
    if (!this.#swapped) return;
    await this.#checkFolder(folder);
    const held = await holds();
    await this.#checkFolder(folder);
    if (!held) throw new FileStepError(`"${folder}" keeps changing; trying again`);
  }

  /**
   * After a folder was found swapped, removes the file `created` that a
   * step put at `path` where nothing was before: through whatever `path`
   * leads to now (a link too), once the file there is that very file
   * (device and inode), and only a removal that succeeded counts: not found
   * is not removed (the folder may be swapped for a link, or moved aside,
   * for a moment, the file elsewhere). Keeps trying for
   * {@link STRAY_WAIT_MS}.
   *
   * @throws {FileStepError} when it was not found there in that time.
   */
  async #removeCreated(path: string, created: FileIdentity): Promise<void> {
    const deadline = Date.now() + STRAY_WAIT_MS;
    for (let round = 0;; round++) {
      const info = await this.#lstat(path).catch(() => null);
      if (info !== null && info.isFile && sameFile(info, created)) {
        try {
          return await this.#fs.remove(under(this.#root, path));
        } catch (error) {
          if (!isMissing(error)) throw error;
        }
      }
      if (Date.now() >= deadline) {
        throw new FileStepError(
          `the file this reply created there was not found since a folder on its way was ` +
            `swapped for a symbolic link or moved away: look for it where the link led`,
        );
      }
      await pause(round < 50 ? 1 : 10);
    }
  }

  /** Whether `path` holds exactly `before` (its bytes and mode, or nothing). */
  async #holds(path: string, before: PreImage): Promise<boolean> {
    const info = await this.#lstat(path);
    if (before === null || info === null) return before === null && info === null;
    if (!info.isFile) return false;
    if (before.mode !== null && info.mode !== null && (info.mode & 0o7777) !== before.mode) {
      return false;
    }
    const data = await this.#fs.readFile(under(this.#root, path));
    return data.length === before.data.length && data.every((byte, i) => byte === before.data[i]);
  }

  /** Puts `path` back to `before`: its bytes and mode, or nothing. */
  async #restore(path: string, before: PreImage): Promise<void> {
    if (before === null) {
      await removeIfPresent(this.#fs, this.#root, path);
      return;
    }
    // A name the next start's recovery knows, should this process be killed before the rename.
    const temporary = this.#identity === undefined
      ? undefined
      : rollbackTemporary(this.#identity.run, this.#identity.n, path);
    if (temporary !== undefined && await this.#lstat(temporary).catch(() => null) !== null) {
      await removeIfPresent(this.#fs, this.#root, temporary); // left by a rollback stopped before
    }
    await writeAtomically(this.#fs, this.#root, path, before.data, {
      name: temporary?.slice(temporary.lastIndexOf("/") + 1),
      mode: before.mode ?? undefined,
      temporaries: this.#temporaries,
      beforeRename: async () => {
        const info = await this.#lstat(path);
        if (info !== null) refuseNonFile(path, info);
      },
    });
  }

  /**
   * Removes every temporary file this apply made and did not rename (but
   * those in `skip`);
   * returns those that could not be removed. Each is removed by the exact
   * name it was made with, through whatever path reaches it now (a folder
   * swapped for a link too: no one else made that name), and only a removal
   * that succeeded counts: a name not found is never taken for removed (the
   * folder may be swapped for a link, or moved aside, for a moment, the
   * file elsewhere). After a folder was found swapped, while some are left,
   * the cleanup keeps trying, until {@link STRAY_WAIT_MS} pass without one
   * removed; otherwise it makes one pass (a disk that refuses a removal
   * now will refuse it in a moment too).
   */
  async #removeTemporaries(skip: ReadonlySet<string> = new Set()): Promise<RollbackFailure[]> {
    const reasons = new Map<string, string>();
    const wait = this.#swapped ? STRAY_WAIT_MS : 0;
    let deadline = Date.now() + wait;
    let pending = [...this.#temporaries].filter((temporary) => !skip.has(temporary));
    for (let round = 0; pending.length > 0; round++) {
      const left: string[] = [];
      for (const temporary of pending) {
        try {
          if (await this.#removeMade(temporary)) {
            this.#temporaries.delete(temporary);
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

  /**
   * Removes the temporary file `temporary` this apply made, through
   * whatever its path leads to now, when a file is there that is the one
   * made (its identity, where known); true once a removal succeeded, false
   * while it is not found.
   */
  async #removeMade(temporary: string): Promise<boolean> {
    const info = await this.#lstat(temporary);
    if (info === null || !info.isFile) return false;
    const identity = this.#identities.get(temporary);
    if (identity !== undefined && !sameFile(info, identity)) return false;
    try {
      await this.#fs.remove(under(this.#root, temporary));
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
    this.#identities.delete(temporary);
    return true;
  }

  /**
   * Removes an empty folder this apply made that landed elsewhere than
   * checked, through whatever its path leads to now (a link too): only this
   * apply made that exact name. True once removed; false when nothing was
   * found there for {@link STRAY_WAIT_MS} (it may be behind a link that
   * comes back).
   */
  async #removeStray(folder: string): Promise<boolean> {
    const deadline = Date.now() + STRAY_WAIT_MS;
    for (let round = 0;; round++) {
      const info = await this.#lstat(folder).catch(() => null);
      if (info !== null && info.isDirectory) {
        try {
          await this.#fs.remove(under(this.#root, folder));
          this.#strays.delete(folder);
          return true;
        } catch (error) {
          if (!isMissing(error)) throw error;
        }
      }
      if (Date.now() >= deadline) return false;
      await pause(round < 50 ? 1 : 10);
    }
  }
}

/** Waits `ms` milliseconds (only after a folder was found swapped: never on a run's ordinary path). */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The operating system's error inside a `FileStepError` (its cause), or `error` itself. */
function causeOf(error: unknown): unknown {
  return error instanceof FileStepError && error.cause !== undefined ? error.cause : error;
}

/** `step` of `file_system/step.ts`, where a variable named `step` hides it. */
const step_ = step;

/** Whether `info` is the file `identity` describes (same device and inode, where both are known). */
function sameFile(info: EntryInfo, identity: FileIdentity | undefined): boolean {
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
function knownIno(expected: Expected): boolean {
  return expected.kind === "file" && isKnown(expected.ino);
}

/** Whether an inode number is there (some platforms have none). */
function isKnown(ino: number | null | undefined): ino is number {
  return typeof ino === "number";
}

/** Throws unless `info` describes a regular file. */
function refuseNonFile(path: string, info: ApplyFileInfo): void {
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

/** The state each path touched was left in, the last step of each deciding. */
function postStates(steps: readonly Step[]): PostState[] {
  const last = new Map<string, FileState>();
  for (const step of steps) {
    const written = step.kind === "created" || step.kind === "replaced";
    last.set(step.operation.path, written ? step.after ?? null : null);
  }
  return [...last].map(([path, after]) => ({ path, after }));
}

/**
 * Every state the steps leave each path in, in order: what the journal
 * records before the first write, so that recovery can tell a state the
 * apply itself could have left from a change made since.
 */
function intendedStates(steps: readonly Step[]): Map<string, IntendedState[]> {
  const states = new Map<string, IntendedState[]>();
  for (const step of steps) {
    if (step.kind === "none") continue;
    const { path } = step.operation;
    const state: IntendedState = step.size === undefined
      ? null
      : { mode: step.mode ?? null, size: step.size, hash: step.hash! };
    const list = states.get(path);
    if (list === undefined) states.set(path, [state]);
    else list.push(state);
  }
  return states;
}
