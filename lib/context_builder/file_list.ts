/**
 * The preprocessing LLM's reply: one list of paths between `%%%files` and `%%%end`.
 * @module
 */

import { normalizeProjectPath } from "../guard/path_syntax.ts";
import { unwrapPath } from "../reply/parse.ts";

/** The line that opens the list. */
const FILES_OPEN = "%%%files";
/** The line that closes the list. */
const FILES_CLOSE = "%%%end";

/** The paths of the list, or why the reply has no usable list. */
export type FileListResult =
  | { readonly ok: true; readonly paths: readonly string[] }
  | { readonly ok: false; readonly reason: string };

/**
 * Reads the file list of a reply: one `%%%files` line, then one `%%%end`; blank and fence lines,
 * list markers and wrappings dropped, a path given twice kept once, none checked. Never throws.
 */
export function parseFileList(reply: string): FileListResult {
  const lines = reply.split("\n").map((line) => line.trim());
  const indexesOf = (marker: string) => lines.flatMap((line, at) => line === marker ? [at] : []);
  const opens = indexesOf(FILES_OPEN);
  const closes = indexesOf(FILES_CLOSE);
  const problem = opens.length === 0
    ? `the reply has no ${FILES_OPEN} line, so it names no files`
    : opens.length > 1
    ? `the reply has ${opens.length} ${FILES_OPEN} lines; it must hold exactly one list`
    : closes.length === 0
    ? `the list opened by ${FILES_OPEN} (line ${opens[0] + 1}) has no ${FILES_CLOSE} line; ` +
      "the reply may have been cut off"
    : closes.length > 1
    ? `the reply has ${closes.length} ${FILES_CLOSE} lines; it must hold exactly one list`
    : closes[0] < opens[0]
    ? `the ${FILES_CLOSE} line (line ${closes[0] + 1}) comes before ` +
      `the ${FILES_OPEN} line (line ${opens[0] + 1})`
    : undefined;
  if (problem !== undefined) return { ok: false, reason: problem };
  const seen = new Set<string>();
  const paths: string[] = [];
  for (const written of lines.slice(opens[0] + 1, closes[0])) {
    if (written === "" || /^(```+|~~~+)[\w.+-]*$/.test(written)) continue; // a fence line
    const line = unwrapPath(written.replace(/^[-*+]\s+/, "")); // without a list item's marker
    if (line === "") continue;
    const key = normalizeProjectPath(line);
    if (seen.has(key)) continue;
    seen.add(key);
    paths.push(line);
  }
  return { ok: true, paths };
}
