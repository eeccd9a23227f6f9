/**
 * The rules of ONE ignore file (a `.gitignore`, `.git/info/exclude`), read
 * and matched as git 2.39 reads and matches them (`dir.c`): the last rule
 * that matches a path decides, `!` re-includes, a trailing `/` matches
 * folders only, a pattern without a `/` (other than a trailing one) matches
 * the name at any depth, any other pattern the path relative to the file's
 * folder. Globs are {@link wildmatch}'s. Pure: no I/O.
 *
 * How several files combine (the nearest `.gitignore` first, a folder that
 * is ignored hiding all below it) is `ignore_rules.ts`'s job.
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

/** One rule of an ignore file, as git reads its line. */
export interface IgnorePattern {
  /** 1-based line number in its file. */
  readonly line: number;
  /** The line as written, without its line end. */
  readonly text: string;
  /** A `!` rule: a path it matches is not ignored. */
  readonly negated: boolean;
}

/** How a pattern is matched, from the cheapest. */
const LITERAL = 0;
const ENDS_WITH = 1;
const GLOB = 2;

/** A rule, compiled. */
interface Compiled extends IgnorePattern {
  /** Matches folders only (the pattern ended with `/`). */
  readonly mustBeFolder: boolean;
  /** Matched against the last segment of a path (the pattern held no `/` but a trailing one). */
  readonly nameOnly: boolean;
  /** {@link LITERAL}, {@link ENDS_WITH} or {@link GLOB}. */
  readonly how: number;
  /** The pattern: without `!`, the trailing `/`, and (for a path pattern) a leading `/`. */
  readonly pattern: string;
  /** For {@link ENDS_WITH}: what the name must end with. For {@link GLOB}: the literal start. */
  readonly literal: string;
  /** For {@link GLOB}: the pattern as a byte string, and where its glob part starts in it. */
  readonly bytes: string;
  readonly globStart: number;
}

/**
 * The compiled rules of one ignore file. Build it with
 * {@link parseIgnorePatterns}; ask it with {@link IgnorePatterns.lastMatch}.
 */
export class IgnorePatterns {
  /** Whether ASCII letters were compared without regard to case (git's `WM_CASEFOLD`). */
  readonly caseFold: boolean;
  /**
   * Whether every rule is ASCII without capitals or `[` classes: folding
   * the rules changes none of them, and a name folding leaves alone gets the
   * same answer folded or not.
   */
  readonly caseNeutral: boolean;
  readonly #rules: readonly Compiled[];

  /** Wraps compiled rules; use {@link parseIgnorePatterns}. */
  constructor(rules: readonly Compiled[], caseFold: boolean) {
    this.#rules = rules;
    this.caseFold = caseFold;
    this.caseNeutral = rules.every((rule) => isCaseNeutralText(rule.pattern));
  }

  /**
   * The last rule that matches `path` itself (relative to the file's folder,
   * `/`-separated, no leading or trailing `/`), tested as a folder when
   * `isFolder`; undefined when none does. The folders above `path` are not
   * consulted: that is the caller's part of git's rules. Never throws.
   */
  lastMatch(path: string, isFolder: boolean): IgnorePattern | undefined {
    const slash = path.lastIndexOf("/");
    return this.inFolder(slash < 0 ? "" : path.slice(0, slash + 1))?.lastMatch(
      slash < 0 ? path : path.slice(slash + 1),
      isFolder,
    );
  }

  /**
   * The rules that can match an entry of one folder, the folder's path
   * relative to this file's folder being `prefix` (`""`, or ending with
   * `/`): the same answers as {@link IgnorePatterns.lastMatch} on
   * `prefix + name`, with the path rules that cannot match there (their
   * literal start leads elsewhere) left out. Undefined when no rule is left.
   * Never throws.
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

  /**
   * Whether these rules alone ignore `path` (relative to the file's folder),
   * as git would with no other ignore file: a folder above it that they
   * ignore hides it whatever its own match says; otherwise the last rule
   * that matches it decides. Never throws.
   */
  ignores(path: string, isFolder: boolean): boolean {
    for (let slash = path.indexOf("/"); slash >= 0; slash = path.indexOf("/", slash + 1)) {
      const above = this.lastMatch(path.slice(0, slash), true);
      if (above !== undefined && !above.negated) return true;
    }
    const own = this.lastMatch(path, isFolder);
    return own !== undefined && !own.negated;
  }
}

/** A rule kept for one folder, and how it is tested on a name there. */
interface Specialized {
  readonly rule: Compiled;
  /** {@link LITERAL}, {@link ENDS_WITH} or {@link GLOB} on the name; {@link PATH_GLOB} on the path. */
  readonly how: number;
  /** The name itself ({@link LITERAL}), its end ({@link ENDS_WITH}) or the literal start. */
  readonly text: string;
}

/** A path rule tested on the whole path (the folder's prefix and the name). */
const PATH_GLOB = 3;

/**
 * The rules of one ignore file that can match an entry of one folder: what
 * {@link IgnorePatterns.inFolder} returns.
 */
export class FolderPatterns {
  readonly #rules: readonly Specialized[];
  readonly #prefix: string;
  readonly #flags: number;

  /** Use {@link IgnorePatterns.inFolder}. */
  constructor(rules: readonly Specialized[], prefix: string, caseFold: boolean) {
    this.#rules = rules;
    this.#prefix = prefix;
    this.#flags = caseFold ? WM_CASEFOLD : 0;
  }

  /**
   * The last rule that matches the entry `name` (one segment) of the folder,
   * tested as a folder when `isFolder`; undefined when none does. Never throws.
   */
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
  /** 1-based line number in its file. */
  readonly line: number;
  /** The line as written, without its line end. */
  readonly written: string;
  /** The rule: the line cut at a NUL, the trailing spaces git drops removed. */
  readonly rule: string;
  /** A `!` rule: a path it matches is not ignored. */
  readonly negated: boolean;
  /** The rule ended with `/`: it matches folders only. */
  readonly mustBeFolder: boolean;
  /** The rule held no `/` but a trailing one: it is matched against the name at any depth. */
  readonly nameOnly: boolean;
  /** The pattern: without `!`, the trailing `/`, and (for a path pattern) a leading `/`; never empty. */
  readonly pattern: string;
}

/**
 * Reads the rule lines of an ignore file's `text` as git does: lines split
 * at LF (a CR before it dropped), blank lines and `#` comments skipped,
 * trailing spaces dropped unless escaped with `\`, `!` for a negation, a
 * line cut at a NUL, a rule whose pattern is empty (``, `!`, `/`; git keeps
 * it, to no effect) left out. The one reader of ignore-file lines: the
 * matcher compiles these, the `agent-config/` coverage check analyses them.
 * Never throws.
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

/**
 * Reads the rules of an ignore file's `text` as git does (see
 * {@link readIgnoreLines}) and compiles them. With `caseFold`, ASCII letters
 * are compared without regard to case (fold the text beforehand for more).
 * Never throws.
 */
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
    } else if (c === 0x5c /* \ */) {
      i++;
      if (i >= line.length) return line;
      lastSpace = -1;
    } else {
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
  return {
    line,
    text,
    negated,
    mustBeFolder,
    nameOnly,
    how,
    pattern,
    literal,
    bytes,
    globStart: how === GLOB ? toByteString(literal).length : 0,
  };
}

/**
 * The ignore-file line that re-includes the root file `name` after a rule
 * that ignores it (`/*`, `*.sh`): `!/build.sh`, with the characters a
 * pattern gives a meaning (`* ? [ \\`) escaped. Written last in the root
 * `.gitignore`, it wins over every rule before it there and over
 * `.git/info/exclude`. Never throws.
 */
export function negationLine(name: string): string {
  return `!/${name.replace(/[*?[\\]/g, (c) => `\\${c}`)}`;
}
