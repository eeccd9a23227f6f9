/**
 * The name of every temporary file code-commit writes through (a sibling of
 * the file it will become, renamed over it once complete):
 * `.<name>.code-commit-<16 hex digits>.tmp`. This module owns the format: it
 * builds the names ({@link temporaryName}) and recognizes them
 * ({@link isTemporaryName}), so the writer and the journal, which checks the
 * temporary files a record names, agree on it.
 *
 * @module
 */

const encoder = new TextEncoder();

/** File names longer than this many bytes are refused by common file systems. */
const NAME_MAX_BYTES = 255;

/** A temporary name, as {@link temporaryName} makes them. */
const TEMPORARY_NAME = /^\..*\.code-commit-[0-9a-f]{16}\.tmp$/s;

/**
 * A fresh temporary name for a sibling of the file `name` (the last segment
 * of a path): `.<name>.code-commit-<16 hex digits>.tmp`, shortened to at
 * most 255 bytes; the digits are random, or `hex` when given (16 hex
 * digits: a name a later process can find again). Never throws.
 */
export function temporaryName(name: string, hex?: string): string {
  const random = hex ?? Array.from(crypto.getRandomValues(new Uint8Array(8)))
    .map((byte) => byte.toString(16).padStart(2, "0"))
    .join("");
  const suffix = `.code-commit-${random}.tmp`;
  const budget = NAME_MAX_BYTES - 1 - suffix.length;
  let base = name;
  while (encoder.encode(base).length > budget) base = Array.from(base).slice(0, -1).join("");
  return `.${base}${suffix}`;
}

/**
 * Whether `name` (one segment, no folder) has the form {@link temporaryName}
 * gives: `.<name>.code-commit-<16 lowercase hex digits>.tmp`. Never throws.
 */
export function isTemporaryName(name: string): boolean {
  return TEMPORARY_NAME.test(name);
}
