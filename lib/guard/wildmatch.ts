/**
 * git's glob matching (`wildmatch`) as git 2.39 matches `.gitignore` patterns, written from its
 * observed behaviour (the agreement tests compare it with `git check-ignore`). git compares
 * bytes, so both strings are byte strings, one char per UTF-8 byte ({@link toByteString}). Pure.
 *
 * @module
 */

/** Match path names: `*`, `?` and classes never match `/`; `**` segments match folders. */
export const WM_PATHNAME = 1;
/** Compare ASCII letters without regard to case (git's `core.ignorecase`). */
export const WM_CASEFOLD = 2;

const MATCH = 0;
const NO_MATCH = 1;
/** No match, and no later position of an enclosing `*` can match either. */
const ABORT_ALL = -1;
/** No match before the next `/`: an enclosing `**` may still match further on. */
const ABORT_TO_STARSTAR = -2;

const SLASH = 0x2f;
const STAR = 0x2a;
const QUESTION = 0x3f;
const BACKSLASH = 0x5c;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const BANG = 0x21;
const CARET = 0x5e;
const DASH = 0x2d;
const COLON = 0x3a;

/** Whether `c` starts glob syntax: `*`, `?`, `[` or `\`. */
function isGlobSpecial(c: number): boolean {
  return c === STAR || c === QUESTION || c === OPEN || c === BACKSLASH;
}

/** The length of the literal start of `pattern`, before its first `*`, `?`, `[` or `\`. */
export function literalPrefixLength(pattern: string): number {
  for (let i = 0; i < pattern.length; i++) {
    if (isGlobSpecial(pattern.charCodeAt(i))) return i;
  }
  return pattern.length;
}

// deno-lint-ignore no-control-regex -- the whole ASCII range, controls included
const ASCII = /^[\x00-\x7f]*$/;
const encoder = new TextEncoder();

/** `text` as a byte string: one char per byte of its UTF-8 form. Never throws. */
export function toByteString(text: string): string {
  if (ASCII.test(text)) return text;
  const bytes = encoder.encode(text);
  let out = "";
  for (let i = 0; i < bytes.length; i += 4096) {
    out += String.fromCharCode(...bytes.subarray(i, i + 4096));
  }
  return out;
}

/**
 * Whether byte string `text` matches `pattern`, both from `start` (where git's own call begins
 * them: a `**` is a whole segment only after a `/` or there), as git's `wildmatch`. Never throws.
 */
export function wildmatch(pattern: string, text: string, flags: number, start = 0): boolean {
  return match(pattern, start, text, start, flags) === MATCH;
}

/** The char code at `i`, or 0 past the end (C's terminating NUL). */
function at(s: string, i: number): number {
  return i < s.length ? s.charCodeAt(i) : 0;
}

const isUpper = (c: number) => c >= 0x41 && c <= 0x5a;
const isLower = (c: number) => c >= 0x61 && c <= 0x7a;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isAlpha = (c: number) => isUpper(c) || isLower(c);

/** The POSIX classes (C locale): whether the byte `c` is in each. */
const CLASSES = new Map<string, (c: number, casefold: boolean) => boolean>([
  ["alnum", (c) => isAlpha(c) || isDigit(c)],
  ["alpha", isAlpha],
  ["blank", (c) => c === 0x20 || c === 0x09],
  ["cntrl", (c) => c < 0x20 || c === 0x7f],
  ["digit", isDigit],
  ["graph", (c) => c > 0x20 && c < 0x7f],
  ["lower", isLower],
  ["print", (c) => c >= 0x20 && c < 0x7f],
  ["punct", (c) => c > 0x20 && c < 0x7f && !isAlpha(c) && !isDigit(c)],
  ["space", (c) => c === 0x20 || (c >= 0x09 && c <= 0x0d)],
  ["upper", (c, casefold) => isUpper(c) || (casefold && isLower(c))],
  ["xdigit", (c) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)],
]);

/** One step of the matcher: `pattern` from `start` against `text` from `ti`. */
function match(pattern: string, start: number, text: string, ti: number, flags: number): number {
  const casefold = (flags & WM_CASEFOLD) !== 0;
  const pathname = (flags & WM_PATHNAME) !== 0;
  for (let pi = start; pi < pattern.length; ti++, pi++) {
    let pc = pattern.charCodeAt(pi);
    let tc = at(text, ti);
    if (tc === 0 && pc !== STAR) return ABORT_ALL;
    if (casefold && isUpper(tc)) tc += 0x20;
    if (casefold && isUpper(pc)) pc += 0x20;
    switch (pc) {
      case BACKSLASH:
        // The next character, literally (not folded: git folds only the text here).
        pi++;
        if (tc !== at(pattern, pi)) return NO_MATCH;
        continue;
      case QUESTION:
        if (pathname && tc === SLASH) return NO_MATCH;
        continue;
      case STAR: {
        let matchSlash: boolean;
        pi++;
        if (at(pattern, pi) === STAR) {
          const before = pi - 2;
          while (at(pattern, ++pi) === STAR) { /* a run of stars is one */ }
          const next = at(pattern, pi);
          if (!pathname) {
            matchSlash = true;
          } else if (
            (before < start || pattern.charCodeAt(before) === SLASH) &&
            (next === 0 || next === SLASH || (next === BACKSLASH && at(pattern, pi + 1) === SLASH))
          ) {
            // `**/` may match no folder at all: try the rest right here.
            if (next === SLASH && match(pattern, pi + 1, text, ti, flags) === MATCH) return MATCH;
            matchSlash = true;
          } else {
            matchSlash = false;
          }
        } else {
          matchSlash = !pathname;
        }
        const next = at(pattern, pi);
        if (next === 0) {
          // A trailing `**` matches everything; a trailing `*` only up to the next slash.
          if (!matchSlash && text.indexOf("/", ti) >= 0) return NO_MATCH;
          return MATCH;
        }
        if (!matchSlash && next === SLASH) {
          // One `*` before a slash matches the rest of this folder name.
          const slash = text.indexOf("/", ti);
          if (slash < 0) return NO_MATCH;
          ti = slash; // the loop steps over both slashes
          continue;
        }
        for (;;) {
          if (tc === 0) break;
          if (!isGlobSpecial(next)) {
            // Skip ahead to the next place the literal after the star can match.
            const literal = casefold && isUpper(next) ? next + 0x20 : next;
            for (;;) {
              tc = at(text, ti);
              if (tc === 0 || (!matchSlash && tc === SLASH)) break;
              if (casefold && isUpper(tc)) tc += 0x20;
              if (tc === literal) break;
              ti++;
            }
            if (tc !== literal) return NO_MATCH;
          }
          const result = match(pattern, pi, text, ti, flags);
          if (result !== NO_MATCH) {
            if (!matchSlash || result !== ABORT_TO_STARSTAR) return result;
          } else if (!matchSlash && tc === SLASH) {
            return ABORT_TO_STARSTAR;
          }
          tc = at(text, ++ti);
        }
        return ABORT_ALL;
      }
      case OPEN: {
        let c = at(pattern, ++pi);
        if (c === CARET) c = BANG;
        const negated = c === BANG;
        if (negated) c = at(pattern, ++pi);
        let previous = 0;
        let matched = false;
        do {
          if (c === 0) return ABORT_ALL;
          if (c === BACKSLASH) {
            c = at(pattern, ++pi);
            if (c === 0) return ABORT_ALL;
            if (tc === c) matched = true;
          } else if (
            c === DASH && previous !== 0 && at(pattern, pi + 1) !== 0 &&
            at(pattern, pi + 1) !== CLOSE
          ) {
            c = at(pattern, ++pi);
            if (c === BACKSLASH) {
              c = at(pattern, ++pi);
              if (c === 0) return ABORT_ALL;
            }
            if (tc <= c && tc >= previous) matched = true;
            else if (casefold && isLower(tc)) {
              const upper = tc - 0x20;
              if (upper <= c && upper >= previous) matched = true;
            }
            c = 0; // a range is never the start of another
          } else if (c === OPEN && at(pattern, pi + 1) === COLON) {
            const nameStart = pi + 2;
            let end = nameStart;
            while (at(pattern, end) !== 0 && at(pattern, end) !== CLOSE) end++;
            if (at(pattern, end) === 0) return ABORT_ALL;
            if (end - nameStart - 1 < 0 || at(pattern, end - 1) !== COLON) {
              // No `:]`: the `[` is an ordinary member.
              c = OPEN;
              if (tc === c) matched = true;
              previous = c;
              c = at(pattern, ++pi);
              if (c === CLOSE) break;
              continue;
            }
            const inClass = CLASSES.get(pattern.slice(nameStart, end - 1));
            if (inClass === undefined) return ABORT_ALL; // an unknown class name
            if (inClass(tc, casefold)) matched = true;
            pi = end;
            c = 0;
          } else if (tc === c) {
            matched = true;
          }
          previous = c;
          c = at(pattern, ++pi);
        } while (c !== CLOSE);
        if (matched === negated || (pathname && tc === SLASH)) return NO_MATCH;
        continue;
      }
      default:
        if (tc !== pc) return NO_MATCH;
        continue;
    }
  }
  return ti < text.length ? NO_MATCH : MATCH;
}
