/**
 * The lines `--init` adds to the root `.gitignore`: `/agent-config` and
 * `/logs`, each only when the rules do not already ignore everything in that
 * folder, judged by their meaning (`folderCoverage`), not their text. Pure: no I/O.
 *
 * @module
 */

import { parseIgnorePatterns } from "../../guard/ignore_patterns.ts";
import { folderCoverage } from "../../preconditions/ignored_folder.ts";

/** One rule `--init` makes sure of: the `line` added unless `folder` is wholly ignored. */
export interface InitRule {
  readonly line: string;
  readonly folder: string;
}

/** The new text of `.gitignore` (undefined when nothing is missing), and the lines added. */
export interface GitignorePlan {
  readonly text: string | undefined;
  readonly added: readonly string[];
}

const INIT_COMMENT = "# code-commit: API keys, query and rollup; run logs";

/**
 * Plans the root `.gitignore` (`existing`, undefined for none; `folderRules`,
 * each folder's own `.gitignore`, which can re-include): the lines of `rules`
 * whose folder is not wholly ignored yet are appended, last so that they win
 * over any earlier negation. Nothing missing: text undefined. Never throws.
 */
export function planGitignore(
  existing: string | undefined,
  rules: readonly InitRule[],
  folderRules: Readonly<Record<string, string | undefined>> = {},
): GitignorePlan {
  // git skips a UTF-8 byte order mark at the start of an ignore file.
  const rootText = (existing ?? "").replace(/^\uFEFF/, "");
  const added = rules
    .filter((rule) => !folderCoverage(rule.folder, rootText, folderRules[rule.folder]).ignored)
    .map((rule) => rule.line);
  if (added.length === 0) return { text: undefined, added };
  return { text: appendLines(existing, INIT_COMMENT, added), added };
}

/**
 * `existing` (undefined for none) with `lines` appended after a blank line and
 * `comment`; every line there kept, CRLF files get CRLF lines. Never throws.
 */
export function appendLines(
  existing: string | undefined,
  comment: string,
  lines: readonly string[],
): string {
  const before = existing ?? "";
  if (lines.length === 0) return before;
  const newline = before.includes("\r\n") ? "\r\n" : "\n";
  const separator = before === "" || before.endsWith("\n") ? "" : newline;
  const gap = before === "" || /\n\r?\n$/.test(before) ? "" : newline;
  const text = [comment, ...lines].map((line) => `${line}${newline}`).join("");
  return `${before}${separator}${gap}${text}`;
}

/** What the root ignore file `text`'s last rule matching the root file `name` says, if any. */
export function rootFileVerdict(text: string, name: string): "ignored" | "shown" | undefined {
  const match = parseIgnorePatterns(text.replace(/^\uFEFF/, "")).lastMatch(name, false);
  return match === undefined ? undefined : match.negated ? "shown" : "ignored";
}
