/**
 * The files the preprocessing LLM chooses (its `%%%files` list), and the codebase made of them.
 * @module
 */
import { CODECOMMIT_IGNORE_FILE, CodeCommitIgnore } from "../guard/codecommit_ignore.ts";
import type { IgnoreRules } from "../guard/ignore_rules.ts";
import { normalizeProjectPath } from "../guard/path_syntax.ts";
import { blockOf } from "../project_files/file_block.ts";
import { readProjectFile } from "../project_files/read_file.ts";
import { unwrapPath } from "../reply/parse.ts";

const FILES_OPEN = "%%%files";
const FILES_CLOSE = "%%%end";

/** The paths of the list, or why the reply has no usable list. */
export type FileListResult =
  | { readonly ok: true; readonly paths: readonly string[] }
  | { readonly ok: false; readonly reason: string };

/** Reads the one `%%%files` … `%%%end` list of a reply; no path checked. Never throws. */
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
  const byKey = new Map<string, string>(); // the first way each path was written, in order
  for (const written of lines.slice(opens[0] + 1, closes[0])) {
    if (written === "" || /^(```+|~~~+)[\w.+-]*$/.test(written)) continue; // a fence line
    const line = unwrapPath(written.replace(/^[-*+]\s+/, "")).inner; // without a list marker
    if (line === "") continue;
    const key = normalizeProjectPath(line);
    if (!byKey.has(key)) byKey.set(key, line);
  }
  return { ok: true, paths: [...byKey.values()] };
}

/**
 * Reads `paths` into `--- path ---` blocks, each file once; a path the guard refuses is never named
 * in the text. @throws {CodeCommitError} only when the ignore rules cannot be read.
 */
export async function assembleChosenFiles(
  root: string,
  paths: readonly string[],
  rules: IgnoreRules,
  exclude: CodeCommitIgnore = CodeCommitIgnore.NONE,
): Promise<{ text: string; included: string[]; dropped: { path: string; reason: string }[] }> {
  const blocks: string[] = [];
  const included: string[] = [];
  const dropped: { path: string; reason: string }[] = [];
  const shown = new Set<string>();
  for (const path of paths) {
    if (exclude.excludes(normalizeProjectPath(path))) {
      dropped.push({ path, reason: `${CODECOMMIT_IGNORE_FILE} leaves it out of every prompt` });
      continue;
    }
    const outcome = await readProjectFile(root, path, rules);
    if (shown.has(outcome.path)) continue;
    if (outcome.ok) included.push(outcome.path);
    else dropped.push({ path, reason: outcome.reason });
    const block = blockOf(outcome);
    if (block === undefined) continue;
    shown.add(outcome.path);
    blocks.push(block);
  }
  return { text: blocks.join(""), included, dropped };
}
