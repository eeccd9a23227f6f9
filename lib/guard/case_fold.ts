/**
 * Case folding the way case-insensitive file systems compare names, so that
 * the path guard can tell when two spellings land on the same file.
 *
 * macOS (APFS, HFS+) and Windows (NTFS) compare names without regard to case,
 * NTFS with an upper-case table that maps `ſ` (U+017F) to `S` and `ı` (U+0131)
 * to `I`, APFS without regard to Unicode normalization (`é` precomposed or as
 * `e` + U+0301), and HFS+ skips a handful of invisible code points entirely
 * (git's CVE-2014-9390: `.g\u200cit` is `.git` there). The fold below maps
 * every such spelling of a name onto one string.
 *
 * @module
 */

/**
 * Code points HFS+ ignores in names (the list git's `is_hfs_dotgit` skips):
 * zero-width (non-)joiners and marks, bidi embeddings and overrides, the
 * deprecated format characters U+206A–U+206F, and the byte order mark.
 */
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

// deno-lint-ignore no-control-regex -- the whole ASCII range, controls included
const ASCII = /^[\x00-\x7f]*$/;

/** ASCII without capitals and without `[` (the rest of ASCII, controls included). */
// deno-lint-ignore no-control-regex -- the whole ASCII range but A-Z and [
const CASE_NEUTRAL_TEXT = /^[\x00-\x40\x5c-\x7f]*$/;

/** ASCII without capitals (the rest of ASCII, controls included). */
// deno-lint-ignore no-control-regex -- the whole ASCII range but A-Z
const CASE_NEUTRAL_NAME = /^[\x00-\x40\x5b-\x7f]*$/;

/**
 * Whether ignore-rule or path text is case-neutral: ASCII without capitals
 * and without `[`, so folding leaves it alone and it holds no glob class
 * (whose ranges may span capitals). The one definition for the ignore
 * rules' shortcut. Never throws.
 */
export function isCaseNeutralText(text: string): boolean {
  return CASE_NEUTRAL_TEXT.test(text);
}

/**
 * Whether {@link foldCase} leaves the name `name` as it is: ASCII without
 * capitals. Never throws.
 */
export function foldLeavesAlone(name: string): boolean {
  return CASE_NEUTRAL_NAME.test(name);
}

/**
 * Folds a name or path for a case-insensitive comparison: drops the code
 * points HFS+ ignores, normalizes to NFC, then maps `s.toUpperCase().toLowerCase()`
 * (so `ſ`, `ı` and the Kelvin sign `K` fold onto `s`, `i` and `k`).
 * Never throws; `/` is left in place, so a folded path still splits into
 * the folded segments.
 */
export function foldCase(s: string): string {
  // Plain ASCII (almost every file name) folds with toLowerCase alone: no
  // ignorable code point, nothing to normalize, no special upper-case mapping.
  if (ASCII.test(s)) return s.toLowerCase();
  return s.replace(HFS_IGNORABLE, "").normalize("NFC").toUpperCase().toLowerCase().normalize(
    "NFC",
  );
}
