/**
 * Temporary files' names, `.<name>.code-commit-<16 hex digits>.tmp`, in one place.
 * @module
 */

const encoder = new TextEncoder();

/** File names over this many bytes are refused by common file systems. */
const NAME_MAX_BYTES = 255;

/** A temporary name for a sibling of `name`, at most 255 bytes; digits random or `hex`. */
export function temporaryName(name: string, hex?: string): string {
  const random = hex ?? crypto.getRandomValues(new Uint8Array(8)).toHex();
  const suffix = `.code-commit-${random}.tmp`;
  const budget = NAME_MAX_BYTES - 1 - suffix.length;
  let base = name;
  while (encoder.encode(base).length > budget) base = Array.from(base).slice(0, -1).join("");
  return `.${base}${suffix}`;
}

/** Whether `name` (one segment) has the form {@link temporaryName} gives. Never throws. */
export function isTemporaryName(name: string): boolean {
  return /^\..*\.code-commit-[0-9a-f]{16}\.tmp$/s.test(name);
}
