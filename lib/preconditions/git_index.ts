/**
 * Which paths git tracks, read from `.git/index` (versions 2 to 4, SHA-1 and SHA-256) without
 * running git, which could start programs its configuration names (`core.fsmonitor`, hooks).
 * @module
 */
import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { readBounded } from "../file_system/bounded_read.ts";
import { lstatOrUndefined } from "../file_system/lstat.ts";
import { READ_LIMITS } from "../file_system/read_limits.ts";
import { under } from "../file_system/file_system.ts";

// A name may begin with U+FEFF: it is part of the name, not a byte-order mark.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const strictDecoder = new TextDecoder("utf-8", { ignoreBOM: true, fatal: true });

interface TrackedPaths {
  /** Every path in the index, in order (a conflict up to three times); not UTF-8: U+FFFD where not. */
  readonly paths: string[];
  /**
   * Paths from names not UTF-8: they name no file as git means it (another file may have that
   * very name), so nothing is read by them.
   */
  readonly notUtf8: ReadonlySet<string>;
}

/**
 * The paths git tracks at `root`, none without a `.git` folder (a worktree's `.git` file points
 * outside: not read) or an index. @throws {CodeCommitError} when `.git/index` is unreadable.
 */
export async function trackedPaths(root: string): Promise<TrackedPaths> {
  const none: TrackedPaths = { paths: [], notUtf8: new Set() };
  const git = await lstatOrUndefined(under(root, ".git"));
  if (git === undefined || !git.isDirectory) return none;
  const bytes = await readBounded(under(root, ".git/index"), {
    limit: READ_LIMITS.gitIndex,
    followSymlink: true,
    name: ".git/index",
  });
  if (bytes === undefined) return none;
  const paths = parseIndex(bytes, 20) ?? parseIndex(bytes, 32);
  if (paths === undefined) {
    throw new CodeCommitError(
      ".git/index is not a git index code-commit can read (versions 2 to 4), so it cannot " +
        "tell which files git tracks (a tracked key file?); if git status fails too, the " +
        "index is damaged: remove .git/index, then run git reset (your files stay as they are)",
      EXIT.setup,
    );
  }
  return paths;
}

/** The entries of an index with `hashLength`-byte object ids; undefined when they do not parse so. */
function parseIndex(bytes: Uint8Array, hashLength: number): TrackedPaths | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 12 || decoder.decode(bytes.subarray(0, 4)) !== "DIRC") return undefined;
  const version = view.getUint32(4);
  if (version < 2 || version > 4) return undefined;
  const count = view.getUint32(8);
  const paths: string[] = [];
  const notUtf8 = new Set<string>();
  let offset = 12;
  let previous: Uint8Array = new Uint8Array(0);
  for (let entry = 0; entry < count; entry++) {
    const start = offset;
    offset += 40 + hashLength; // ctime, mtime, dev, ino, mode, uid, gid, size; object id
    if (offset + 2 > bytes.length) return undefined;
    const flags = view.getUint16(offset);
    offset += 2;
    if (flags & 0x4000) {
      if (version < 3) return undefined;
      offset += 2; // extended flags
    }
    let raw: Uint8Array;
    if (version === 4) {
      // The previous path, less `strip` bytes, plus a NUL-terminated suffix. `strip` is refused
      // once past the previous path's length, so it never outgrows a safe integer.
      let strip = 0;
      let byte: number;
      do {
        if (offset >= bytes.length) return undefined;
        byte = bytes[offset++];
        strip = strip * 128 + (byte & 0x7f);
        if (byte & 0x80) strip++;
        if (strip > previous.length) return undefined;
      } while (byte & 0x80);
      const end = bytes.indexOf(0, offset);
      if (end === -1) return undefined;
      const kept = previous.length - strip;
      raw = new Uint8Array(kept + end - offset);
      raw.set(previous.subarray(0, kept));
      raw.set(bytes.subarray(offset, end), kept);
      offset = end + 1;
    } else {
      const end = bytes.indexOf(0, offset);
      if (end === -1) return undefined;
      raw = bytes.subarray(offset, end);
      // Entries are padded with 1 to 8 NUL bytes to a multiple of 8.
      offset = start + ((end - start + 8) & ~7);
    }
    // git counts a name's bytes, whatever they are (a name need not be UTF-8).
    if ((flags & 0xfff) !== Math.min(raw.length, 0xfff)) return undefined;
    const path = decodePath(raw);
    paths.push(path.text);
    if (!path.utf8) notUtf8.add(path.text);
    previous = raw;
  }
  return { paths, notUtf8 };
}

function decodePath(raw: Uint8Array): { text: string; utf8: boolean } {
  try {
    return { text: strictDecoder.decode(raw), utf8: true };
  } catch {
    return { text: decoder.decode(raw), utf8: false };
  }
}
