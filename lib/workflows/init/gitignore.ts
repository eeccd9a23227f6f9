/**
 * The lines `code-commit --init` adds to a project's root `.gitignore`:
 * `/agent-config` (the keys, the query, the rollup) and `/logs` (the run
 * logs), each only when the rules there do not already ignore everything in
 * that folder, judged by the rules' meaning as the precondition check judges
 * it (`folderCoverage`: `agent-config/`, `/agent-config/*` with no negation
 * after it, or `*` all do) rather than by the text. Pure: no I/O.
 *
 * @module
 */

import { parseIgnorePatterns } from "../../guard/ignore_patterns.ts";
import { folderCoverage } from "../../preconditions/ignored_folder.ts";

/** One rule `--init` makes sure of. */
export interface InitRule {
  /** The line added when the folder is not wholly ignored yet: `/agent-config`. */
  readonly line: string;
  /** The top-level folder everything in which must be ignored: `agent-config`. */
  readonly folder: string;
}

/** What to do with `.gitignore`. */
export interface GitignorePlan {
  /** The file's new text, or undefined when it already ignores everything. */
  readonly text: string | undefined;
  /** The lines added, in order. */
  readonly added: readonly string[];
}

/** The comment written above the lines `--init` adds. */
const INIT_COMMENT = "# code-commit: API keys, query and rollup; run logs";

/**
 * Plans the root `.gitignore`: `existing` is its text (undefined when there is
 * none), `folderRules` the text of each folder's own `.gitignore` (which can
 * re-include). Every line already there is kept as it is; the lines of
 * `rules` whose folder is not wholly ignored yet are appended (after a
 * comment: appended last, they win over any earlier negation), and a
 * missing final line break is added first. CRLF files get CRLF lines. When
 * nothing is missing, the text is left alone (undefined), so a second
 * `--init` changes nothing. Never throws.
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
 * `existing` (the text of an ignore file, undefined for none) with `lines`
 * appended after a `comment` line: a missing final line break is added
 * first, and a blank line before the comment; CRLF files get CRLF lines.
 * Every line already there is kept as it is. Never throws.
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

/**
 * Whether the root ignore file `text` decides about the root file `name`:
 * `ignored` (its last matching rule ignores it), `shown` (a `!` rule
 * re-includes it), or undefined when no rule matches it. Never throws.
 */
export function rootFileVerdict(text: string, name: string): "ignored" | "shown" | undefined {
  const match = parseIgnorePatterns(text.replace(/^\uFEFF/, "")).lastMatch(name, false);
  return match === undefined ? undefined : match.negated ? "shown" : "ignored";
}
