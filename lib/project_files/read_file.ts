/**
 * Reads one project file for a prompt (the context builder's codebase and
 * summary, an auto-workflow task's codebase), only if the path guard lets it
 * be read (`guardRead`: no ignored file, no protected folder, no traversal,
 * no symbolic link anywhere along the path), and only if it is text of a
 * sensible size. What cannot be read is refused with a reason; nothing the
 * guard refuses is ever opened.
 *
 * @module
 */

import { join } from "node:path";
import { messageOf } from "../errors/errors.ts";
import { guardRead } from "../guard/guard.ts";
import type { IgnoreRules } from "../guard/ignore_rules.ts";
import { normalizeProjectPath } from "../guard/path_syntax.ts";
import { formatBytes } from "../text/sizes.ts";

/**
 * The largest file pasted into a prompt: 1 MiB, about a quarter of a million
 * tokens. A larger file is withheld: its content is never read (see
 * {@link ReadOutcome}).
 */
const MAX_FILE_BYTES = 1024 * 1024;

/**
 * A file read, or why it was not. `withheld` tells the two kinds of
 * failure apart: `true` when the guard let the file be read and it is a
 * regular file, but its content cannot go into a prompt (larger than
 * {@link MAX_FILE_BYTES}, or binary), so a prompt may name it with a note;
 * `false` when the path itself was refused or could not be read (the guard
 * refused it, it is missing, it changed meanwhile), so a prompt must not
 * name it.
 */
export type ReadOutcome =
  | { readonly ok: true; readonly path: string; readonly text: string }
  | {
    readonly ok: false;
    readonly path: string;
    readonly reason: string;
    readonly withheld: boolean;
  };

/**
 * Reads the file `path` (relative to `root`, as an LLM or the summary names
 * it) as UTF-8 text, after `guardRead` accepts it, with `rules` shared
 * across calls. Refused, without reading: what the guard refuses, a file
 * that changed into something else between the check and the read;
 * withheld, without reading its content: a file larger than
 * {@link MAX_FILE_BYTES}; withheld after reading: a binary file (one holding
 * a NUL byte). Invalid UTF-8 is decoded with U+FFFD replacement characters.
 * The returned `path` has no leading `./` (except for a path the guard
 * refused, which is returned as given).
 *
 * Never throws for a file that cannot be read (the reason says why).
 *
 * @throws {CodeCommitError} only when the ignore rules cannot be read.
 */
export async function readProjectFile(
  root: string,
  path: string,
  rules: IgnoreRules,
): Promise<ReadOutcome> {
  const refused = await guardRead(root, path, rules);
  if (refused !== undefined) return refusedNow(path, refused);
  const normalized = normalizeProjectPath(path);
  const absolute = join(root, normalized);
  let file: Deno.FsFile | undefined;
  try {
    const before = await Deno.lstat(absolute);
    if (!before.isFile) return refusedNow(normalized, "is no longer a regular file");
    if (before.size > MAX_FILE_BYTES) {
      return withheld(
        normalized,
        `is ${formatBytes(before.size)}, more than the ${
          formatBytes(MAX_FILE_BYTES)
        } a file may have in a prompt`,
      );
    }
    file = await Deno.open(absolute, { read: true });
    const opened = await file.stat();
    // The path was checked with lstat; if what was opened is another file (the
    // path was swapped for a link meanwhile), refuse it.
    if (!opened.isFile || opened.ino !== before.ino || opened.dev !== before.dev) {
      return refusedNow(normalized, "changed while it was being read");
    }
    const bytes = await readAtMost(file, MAX_FILE_BYTES + 1);
    if (bytes.length > MAX_FILE_BYTES) {
      return withheld(normalized, `grew past ${formatBytes(MAX_FILE_BYTES)} while it was read`);
    }
    if (bytes.includes(0)) return withheld(normalized, "is a binary file (it holds NUL bytes)");
    return { ok: true, path: normalized, text: new TextDecoder().decode(bytes) };
  } catch (error) {
    return refusedNow(normalized, `could not be read: ${messageOf(error)}`);
  } finally {
    file?.close();
  }
}

function refusedNow(path: string, reason: string): ReadOutcome {
  return { ok: false, path, reason, withheld: false };
}

function withheld(path: string, reason: string): ReadOutcome {
  return { ok: false, path, reason, withheld: true };
}

/** Reads from `file` until its end or until `limit` bytes. */
async function readAtMost(file: Deno.FsFile, limit: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (total < limit) {
    const chunk = new Uint8Array(Math.min(64 * 1024, limit - total));
    const read = await file.read(chunk);
    if (read === null) break;
    chunks.push(chunk.subarray(0, read));
    total += read;
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}
