/**
 * Case folding as case-insensitive file systems compare names: NTFS's upper-case table (`ſ` is
 * `S`), APFS ignoring normalization, HFS+ skipping some invisible code points (`.g\u200cit` is
 * `.git`, git's CVE-2014-9390). Every such spelling of a name folds onto one string.
 *
 * @module
 */

/** Code points HFS+ ignores in names (the list git's `is_hfs_dotgit` skips). */
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

// deno-lint-ignore no-control-regex -- the whole ASCII range, controls included
const ASCII = /^[\x00-\x7f]*$/;

/** Folds a name or path (`/` kept): HFS+ ignorables dropped, NFC, then upper- and lower-cased. */
export function foldCase(s: string): string {
  // Plain ASCII (almost every name) folds with toLowerCase alone.
  if (ASCII.test(s)) return s.toLowerCase();
  return s.replace(HFS_IGNORABLE, "").normalize("NFC").toUpperCase().toLowerCase().normalize("NFC");
}
