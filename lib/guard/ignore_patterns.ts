/**
 * The rules of ONE ignore file, read and matched as git 2.39 does (`dir.c`): the last matching
 * rule decides, `!` re-includes, a trailing `/` matches folders only, a pattern without another
 * `/` matches the name at any depth, any other the path from the file's folder. Pure.
 *
 * @module
 */

import { isCaseNeutralText } from "./case_fold.ts";
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
  /** For {@link ENDS_WITH}: what the name must end with. For {@link GLOB}: the literal start. */
  readonly literal: string;
  /** For {@link GLOB}: the pattern as a byte string, and where its glob part starts in it. */
  readonly bytes: string;
  readonly globStart: number;
}

/** The compiled rules of one ignore file: see {@link parseIgnorePatterns}. */
export class IgnorePatterns {
  /** Whether ASCII letters are compared without regard to case (git's `WM_CASEFOLD`). */
  readonly caseFold: boolean;
  /** Every rule is ASCII without capitals or `[`: folding changes none of them. */
  readonly caseNeutral: boolean;
  readonly #rules: readonly Compiled[];

  constructor(rules: readonly Compiled[], caseFold: boolean) {
    this.#rules = rules;
    this.caseFold = caseFold;
    this.caseNeutral = rules.every((rule) => isCaseNeutralText(rule.pattern));
  }

  /**
   * The last rule that matches `path` itself (relative to the file's folder), tested as a folder
   * when `isFolder`; the folders above are the caller's part. Never throws.
   */
  lastMatch(path: string, isFolder: boolean): IgnorePattern | undefined {
    const slash = path.lastIndexOf("/");
    return this.inFolder(slash < 0 ? "" : path.slice(0, slash + 1))?.lastMatch(
      slash < 0 ? path : path.slice(slash + 1),
      isFolder,
    );
  }

  /**
   * The rules that can match an entry of the folder `prefix` (`""` or ending with `/`): path
   * rules whose literal start leads elsewhere left out; undefined when none is left. Never throws.
   */
  inFolder(prefix: string): FolderPatterns | undefined {
    const kept: Specialized[] = [];
    for (const rule of this.#rules) {
      if (rule.nameOnly) {
        kept.push({
          rule,
          how: rule.how,
          text: rule.how === LITERAL ? rule.pattern : rule.literal,
        });
      } else if (rule.how === LITERAL) {
        const rest = rule.pattern.slice(prefix.length);
        if (rule.pattern.startsWith(prefix) && !rest.includes("/")) {
          kept.push({ rule, how: LITERAL, text: rest });
        }
      } else if (
        rule.literal.length <= prefix.length
          ? prefix.startsWith(rule.literal)
          : rule.literal.startsWith(prefix) && !rule.literal.includes("/", prefix.length)
      ) {
        kept.push({ rule, how: PATH_GLOB, text: rule.literal });
      }
    }
    return kept.length === 0 ? undefined : new FolderPatterns(kept, prefix, this.caseFold);
  }

  /** Whether these rules alone ignore `path`, an ignored folder above hiding it. Never throws. */
  ignores(path: string, isFolder: boolean): boolean {
    for (let slash = path.indexOf("/"); slash >= 0; slash = path.indexOf("/", slash + 1)) {
      const above = this.lastMatch(path.slice(0, slash), true);
      if (above !== undefined && !above.negated) return true;
    }
    const own = this.lastMatch(path, isFolder);
    return own !== undefined && !own.negated;
  }
}

/** A rule kept for one folder: how it is tested on a name there, and against what text. */
interface Specialized {
  readonly rule: Compiled;
  readonly how: number;
  readonly text: string;
}

/** A path rule tested on the whole path (the folder's prefix and the name). */
const PATH_GLOB = 3;

/** The rules of one ignore file that can match an entry of one folder. */
export class FolderPatterns {
  readonly #rules: readonly Specialized[];
  readonly #prefix: string;
  readonly #flags: number;

  constructor(rules: readonly Specialized[], prefix: string, caseFold: boolean) {
    this.#rules = rules;
    this.#prefix = prefix;
    this.#flags = caseFold ? WM_CASEFOLD : 0;
  }

  /** The last rule that matches the entry `name`, tested as a folder when `isFolder`. */
  lastMatch(name: string, isFolder: boolean): IgnorePattern | undefined {
    const rules = this.#rules;
    let nameBytes: string | undefined;
    for (let index = rules.length - 1; index >= 0; index--) {
      const { rule, how, text } = rules[index];
      if (rule.mustBeFolder && !isFolder) continue;
      switch (how) {
        case LITERAL:
          if (name === text) return rule;
          break;
        case ENDS_WITH:
          if (name.endsWith(text)) return rule;
          break;
        case GLOB:
          if (name.startsWith(text)) {
            nameBytes ??= toByteString(name);
            if (wildmatch(rule.bytes, nameBytes, this.#flags, rule.globStart, rule.globStart)) {
              return rule;
            }
          }
          break;
        default: {
          const path = this.#prefix + name;
          if (
            path.startsWith(text) &&
            wildmatch(
              rule.bytes,
              toByteString(path),
              this.#flags | WM_PATHNAME,
              rule.globStart,
              rule.globStart,
            )
          ) {
            return rule;
          }
        }
      }
    }
    return undefined;
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

/** Compiles one rule line. */
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
