/**
 * The two orders project paths are listed in, the same on every machine and
 * in every locale (no `localeCompare`): {@link compareCodePoints} for a flat
 * list of paths or names, {@link comparePaths} for a tree, where a folder
 * comes right before what is inside it. Pure: no I/O.
 *
 * @module
 */

/**
 * Orders strings by their UTF-16 code units, which is code-point order for
 * every character except one case: a character above U+FFFF (a surrogate
 * pair) sorts before U+E000–U+FFFF. The same on every machine and locale.
 * Use it with `Array.prototype.sort`. Never throws.
 */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Orders project paths in tree order: segment by segment, each compared as
 * {@link compareCodePoints} compares them, so a folder comes right before
 * what is inside it (`src/a`, `src/a/b`, `src/a-b`). Never throws.
 */
export function comparePaths(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const left = a.charCodeAt(index);
    const right = b.charCodeAt(index);
    if (left === right) continue;
    if (left === SLASH) return -1;
    if (right === SLASH) return 1;
    return left - right;
  }
  return a.length - b.length;
}

const SLASH = 0x2f;
