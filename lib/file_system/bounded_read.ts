/**
 * The one bounded read of every file code-commit reads itself: `lstat` first, so a fifo or device
 * is refused unopened, and a file over its limit unread; the open has a timer (Deno cannot open
 * with `O_NONBLOCK`), so a fifo swapped in cannot hang the run; the opened file must be the one
 * checked (`fstat`); at most the limit plus one byte is read, so a growing file cannot grow memory.
 * @module
 */
import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import { formatBytes } from "../text/sizes.ts";
import { describeSpecial, isMissing } from "./lstat.ts";
import { OPEN_TIMEOUT_MS, type ReadLimit } from "./read_limits.ts";

/** Why a bounded read refused a file (`special`: fifo, socket, device; `changed`: swapped). */
export type ReadProblem =
  | "symlink"
  | "folder"
  | "special"
  | "too-large"
  | "changed"
  | "hard-link"
  | "open-timeout"
  | "unreadable";

/** A file a bounded read refused, named as messages name it; exit 3 (`EXIT.setup`). */
export class FileReadError extends CodeCommitError {
  /** For `too-large`: the size the file reported; undefined when it grew while read. */
  readonly size?: number;

  /** Makes the error; `message` is the whole user-facing line. */
  constructor(
    message: string,
    readonly path: string,
    readonly problem: ReadProblem,
    options?: ErrorOptions & { size?: number },
  ) {
    super(message, EXIT.setup, options);
    this.name = "FileReadError";
    this.size = options?.size;
  }
}

/** Options of {@link readBounded}. */
export interface ReadBoundedOptions {
  readonly limit: ReadLimit;
  /** Follow a final link (its target checked the same way), or refuse it; folders above: the caller's. */
  readonly followSymlink: boolean;
  readonly name?: string;
  readonly openTimeoutMs?: number;
  /** Refuse a file with more than one hard link: another name may be outside the project. */
  readonly refuseHardLinks?: boolean;
  /** Runs between the check and the open (for tests). */
  readonly beforeOpen?: () => Promise<void>;
}

/**
 * Reads the whole regular file at `path`; `undefined` when nothing is there (nor at a link's target).
 * @throws {FileReadError} naming the file and the {@link ReadProblem}.
 */
export async function readBounded(
  path: string,
  options: ReadBoundedOptions,
): Promise<Uint8Array | undefined> {
  const name = options.name ?? path;
  const { bytes: limit, what } = options.limit;
  const timeoutMs = options.openTimeoutMs ?? OPEN_TIMEOUT_MS;
  const fail = (problem: ReadProblem, message: string, extra?: ErrorOptions & { size?: number }) =>
    new FileReadError(`${name} ${message}`, name, problem, extra);
  const unreadable = (error: unknown) =>
    error instanceof FileReadError
      ? error
      : fail("unreadable", `cannot be read: ${messageOf(error)}`, { cause: error });
  const inspect = (follow: boolean) => {
    try {
      // Synchronous: it never blocks on what the path names, and a walk reads thousands.
      return follow ? Deno.statSync(path) : Deno.lstatSync(path);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw unreadable(error);
    }
  };
  const refuseSizeAndLinks = (info: Deno.FileInfo) => {
    if (info.size > limit) {
      throw fail(
        "too-large",
        `is ${formatBytes(info.size)}, more than the ${
          formatBytes(limit)
        } code-commit reads from ${what}: make it smaller, or check that it is the file you meant`,
        { size: info.size },
      );
    }
    if (options.refuseHardLinks && info.nlink !== null && info.nlink > 1) {
      throw fail(
        "hard-link",
        `has ${info.nlink} hard links, so the same file has another name that may be outside ` +
          "the project; code-commit does not read it: replace it with a copy (cp, then mv)",
      );
    }
  };

  let checked = inspect(false);
  if (checked === undefined) return undefined;
  let through = "";
  if (checked.isSymlink) {
    if (!options.followSymlink) {
      throw fail(
        "symlink",
        `is a symbolic link; code-commit reads ${what} only from a regular file, never through ` +
          "a link: put the file itself there",
      );
    }
    checked = inspect(true);
    if (checked === undefined) return undefined;
    through = " (through a symbolic link)";
  }
  const is = through === "" ? "is" : "leads to";
  if (checked.isDirectory) {
    throw fail(
      "folder",
      `${is} a folder${through}; code-commit reads ${what} only from a regular file: put one there`,
    );
  }
  if (!checked.isFile) {
    throw fail(
      "special",
      `${is} ${describeSpecial(checked)}${through}; code-commit reads ${what} only from a ` +
        "regular file: put a regular file there",
    );
  }
  refuseSizeAndLinks(checked);
  const { dev, ino } = checked;
  const isChecked = (info?: Deno.FileInfo) => info?.isFile && info.dev === dev && info.ino === ino;

  await options.beforeOpen?.();
  const opening = Deno.open(path, { read: true });
  const file = await within(opening, timeoutMs, () => {
    opening.then((file) => file.close(), () => {}); // closed if it ever opens
    return fail(
      "open-timeout",
      `did not open within ${timeoutMs / 1000} s, as a fifo does not until something writes ` +
        "to it (was it replaced after it was checked?); make it a regular file, then run " +
        "code-commit again",
    );
  }).catch((error) => {
    if (isMissing(error)) return undefined;
    throw unreadable(error);
  });
  if (file === undefined) return undefined;
  const changed = () =>
    fail(
      "changed",
      "changed while code-commit was opening it (what was opened is not the regular file " +
        "that was checked); make sure nothing replaces it, then run code-commit again",
    );
  const grew = () =>
    fail(
      "too-large",
      `grew past the ${formatBytes(limit)} code-commit reads from ${what} while it was read`,
    );
  try {
    let opened: Deno.FileInfo;
    try {
      opened = file.statSync();
    } catch (error) {
      if (!(error instanceof Deno.errors.NotCapable)) throw error;
      // Outside the project (`--allow-read=.`): unfollowed, the file checked was swapped;
      // followed, it must seek to the size checked (a pipe cannot, `/dev/zero` says 0), the
      // read is bounded in time too, and the path must still lead to it after.
      if (!options.followSymlink) throw changed();
      const size = await file.seek(0, Deno.SeekMode.End)
        .then(async (end) => (await file.seek(0, Deno.SeekMode.Start), end))
        .catch(() => -1);
      if (size !== checked.size) throw changed();
      const bytes = await within(
        readAtMost((buffer) => file.read(buffer), size, limit, grew),
        timeoutMs,
        () =>
          fail(
            "open-timeout",
            `did not finish reading within ${timeoutMs / 1000} s (was it replaced after it was ` +
              "checked?); make it a regular file, then run code-commit again",
          ),
      );
      if (!isChecked(inspect(true))) throw changed();
      return bytes;
    }
    if (!isChecked(opened)) throw changed();
    refuseSizeAndLinks(opened);
    // Synchronous reads: a regular file's reads never wait on anyone.
    return await readAtMost((buffer) => file.readSync(buffer), opened.size, limit, grew);
  } catch (error) {
    throw unreadable(error);
  } finally {
    file.close();
  }
}

/** `promise`, or a rejection with `timeout()` after `ms` milliseconds. */
async function within<T>(promise: Promise<T>, ms: number, timeout: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  promise.catch(() => {}); // a later failure has no one left to tell
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => timer = setTimeout(() => reject(timeout()), ms)),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads to the end, never over `limit + 1` bytes; `tooLarge()` past `limit`. */
async function readAtMost(
  read: (buffer: Uint8Array) => number | null | Promise<number | null>,
  size: number,
  limit: number,
  tooLarge: () => FileReadError,
): Promise<Uint8Array> {
  let buffer = new Uint8Array(Math.min(size, limit) + 1);
  let total = 0;
  for (;;) {
    if (total === buffer.length) {
      if (total > limit) throw tooLarge();
      const grown = new Uint8Array(Math.min(limit + 1, Math.max(2 * total, 64 * 1024)));
      grown.set(buffer);
      buffer = grown;
    }
    const count = await read(buffer.subarray(total));
    if (count === null) break;
    total += count;
  }
  return buffer.subarray(0, total);
}

/**
 * Reads a small regular file synchronously, checked as above but with no timer on the open: only
 * for files a contained build cannot write. Undefined for anything it will not read. Never throws.
 */
export function readSmallFileSync(path: string, maxBytes: number): Uint8Array | undefined {
  try {
    const checked = Deno.lstatSync(path);
    if (!checked.isFile || checked.size > maxBytes) return undefined;
    using file = Deno.openSync(path, { read: true });
    const opened = file.statSync();
    if (!opened.isFile || opened.dev !== checked.dev || opened.ino !== checked.ino) {
      return undefined;
    }
    const bytes = new Uint8Array(Math.min(opened.size, maxBytes));
    let read = 0;
    while (read < bytes.length) {
      const got = file.readSync(bytes.subarray(read));
      if (got === null || got === 0) break;
      read += got;
    }
    return bytes.subarray(0, read);
  } catch {
    return undefined;
  }
}
