/**
 * The rules of ONE ignore file, read and matched as git 2.39 does (`dir.c`): the last matching
 * rule decides, `!` re-includes, a trailing `/` matches folders only, a pattern without another
 * `/` matches the name at any depth, any other the path from the file's folder. Pure.
 *
 * @module
 */

import {
  literalPrefixLength,
  toByteString,
  wildmatch,
  WM_CASEFOLD,
  WM_PATHNAME,
} from "./wildmatch.ts";

/** One rule of an ignore file: its 1-based line, the line as written, whether it is a `!` rule. */
export interface IgnorePattern {
  readonly line: number;
  readonly text: string;
  readonly negated: boolean;
}

/** How a pattern is matched, from the cheapest. */
const LITERAL = 0;
const ENDS_WITH = 1;
const GLOB = 2;

/** A rule, compiled (see {@link IgnoreLine} for the fields they share). */
interface Compiled extends IgnorePattern {
  readonly mustBeFolder: boolean;
  readonly nameOnly: boolean;
  readonly how: number;
  readonly pattern: string;
  /** For {@link ENDS_WITH} (a name rule): what the name must end with. Else the literal start. */
  readonly literal: string;
  /** For {@link GLOB}: the pattern as a byte string, and where its glob part starts in it. */
  readonly bytes: string;
  readonly globStart: number;
}

/** The compiled rules of one ignore file: see {@link parseIgnorePatterns}. */
export class IgnorePatterns {
  readonly #rules: readonly Compiled[];
  readonly #flags: number;

  constructor(rules: readonly Compiled[], caseFold: boolean) {
    this.#rules = rules;
    this.#flags = caseFold ? WM_CASEFOLD : 0;
  }

  /**
   * The last rule that matches `path` itself (relative to the file's folder), tested as a folder
   * when `isFolder`; the folders above are the caller's part. Never throws.
   */
  lastMatch(path: string, isFolder: boolean): IgnorePattern | undefined {
    const name = path.slice(path.lastIndexOf("/") + 1);
    let nameBytes: string | undefined;
    let pathBytes: string | undefined;
    for (let index = this.#rules.length - 1; index >= 0; index--) {
      const rule = this.#rules[index];
      if (rule.mustBeFolder && !isFolder) continue;
      // A rule without a `/` matches the name, any other the path (its literal start first).
      const text = rule.nameOnly ? name : path;
      if (rule.how === LITERAL) {
        if (text === rule.pattern) return rule;
      } else if (rule.how === ENDS_WITH) {
        if (text.endsWith(rule.literal)) return rule;
      } else if (text.startsWith(rule.literal)) {
        const bytes = rule.nameOnly
          ? nameBytes ??= toByteString(name)
          : pathBytes ??= toByteString(path);
        const flags = rule.nameOnly ? this.#flags : this.#flags | WM_PATHNAME;
        if (wildmatch(rule.bytes, bytes, flags, rule.globStart)) return rule;
      }
    }
    return undefined;
  }

  /**
   * These rules less the path rules that cannot match an entry of the folder `prefix` (relative to
   * the file's folder, with a trailing `/`; `""` keeps them all): a walk asks each folder's entries
   * only the rules that can match there. Never throws.
   */
  under(prefix: string): IgnorePatterns {
    if (prefix === "") return this;
    const rules = this.#rules.filter((rule) =>
      rule.nameOnly ||
      (rule.how === LITERAL
        ? rule.pattern.startsWith(prefix)
        : rule.literal.startsWith(prefix) || prefix.startsWith(rule.literal))
    );
    return rules.length === this.#rules.length
      ? this
      : new IgnorePatterns(rules, this.#flags !== 0);
  }

  /** Whether these rules alone ignore `path`, an ignored folder above hiding it. Never throws. */
  ignores(path: string, isFolder: boolean): boolean {
    for (let slash = path.indexOf("/"); slash >= 0; slash = path.indexOf("/", slash + 1)) {
      if (this.lastMatch(path.slice(0, slash), true)?.negated === false) return true;
    }
    return this.lastMatch(path, isFolder)?.negated === false;
  }
}

/** One rule line of an ignore file, read as git reads it, before it is compiled. */
export interface IgnoreLine {
  readonly line: number;
  /** The line as written, without its line end. */
  readonly written: string;
  /** The line cut at a NUL, the trailing spaces git drops removed. */
  readonly rule: string;
  readonly negated: boolean;
  /** The rule ended with `/`: it matches folders only. */
  readonly mustBeFolder: boolean;
  /** The rule held no `/` but a trailing one: it matches the name at any depth. */
  readonly nameOnly: boolean;
  /** Without `!`, the trailing `/`, and (for a path pattern) a leading `/`; never empty. */
  readonly pattern: string;
}

/**
 * Reads the rule lines of an ignore file as git does: LF (or CRLF) lines, blanks and `#`
 * comments skipped, unescaped trailing spaces dropped, cut at a NUL, empty patterns left out.
 * The one reader of ignore-file lines. Never throws.
 */
export function readIgnoreLines(text: string): IgnoreLine[] {
  const read: IgnoreLine[] = [];
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    let line = lines[index];
    if (line === "" || line.charCodeAt(0) === 0x23 /* # */) continue;
    if (line.endsWith("\r")) line = line.slice(0, -1);
    const written = line;
    const nul = line.indexOf("\0");
    if (nul >= 0) line = line.slice(0, nul);
    const rule = trimTrailingSpaces(line);
    const negated = rule.startsWith("!");
    let pattern = negated ? rule.slice(1) : rule;
    const mustBeFolder = pattern.endsWith("/");
    if (mustBeFolder) pattern = pattern.slice(0, -1);
    const nameOnly = !pattern.includes("/");
    if (!nameOnly && pattern.startsWith("/")) pattern = pattern.slice(1);
    if (pattern === "") continue;
    read.push({ line: index + 1, written, rule, negated, mustBeFolder, nameOnly, pattern });
  }
  return read;
}

/** Reads and compiles an ignore file's rules; `caseFold` folds ASCII letters only. Never throws. */
export function parseIgnorePatterns(text: string, caseFold = false): IgnorePatterns {
  return new IgnorePatterns(readIgnoreLines(text).map(compile), caseFold);
}

/** Drops trailing spaces (not tabs) unless the first of them is escaped, as git does. */
function trimTrailingSpaces(line: string): string {
  let lastSpace = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 0x20) {
      if (lastSpace < 0) lastSpace = i;
    } else {
      // An escaped character (a space too) is kept; a `\` at the very end keeps the line whole.
      if (c === 0x5c /* \ */ && ++i >= line.length) return line;
      lastSpace = -1;
    }
  }
  return lastSpace < 0 ? line : line.slice(0, lastSpace);
}

function compile(
  { line, written: text, negated, mustBeFolder, nameOnly, pattern }: IgnoreLine,
): Compiled {
  const prefix = literalPrefixLength(pattern);
  let how = prefix === pattern.length ? LITERAL : GLOB;
  let literal = pattern.slice(0, prefix);
  if (
    how === GLOB && nameOnly && pattern.charCodeAt(0) === 0x2a /* * */ &&
    literalPrefixLength(pattern.slice(1)) === pattern.length - 1
  ) {
    how = ENDS_WITH;
    literal = pattern.slice(1);
  }
  const bytes = how === GLOB ? toByteString(pattern) : "";
  const globStart = how === GLOB ? toByteString(literal).length : 0;
  return { line, text, negated, mustBeFolder, nameOnly, how, pattern, literal, bytes, globStart };
}

/** The line re-including the root file `name` (`!/build.sh`), glob characters escaped. */
export function negationLine(name: string): string {
  return `!/${name.replace(/[*?[\\]/g, (c) => `\\${c}`)}`;
}
