/**
 * The two orders project paths are listed in, the same everywhere (no `localeCompare`). Pure.
 *
 * @module
 */

/** Orders strings by UTF-16 code units, the same on every machine and locale. Never throws. */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Orders paths segment by segment: a folder comes right before what is inside it. */
export function comparePaths(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const left = a.charCodeAt(index);
    const right = b.charCodeAt(index);
    if (left === right) continue;
    // A folder's `/` sorts before any other character.
    if (left === 0x2f) return -1;
    if (right === 0x2f) return 1;
    return left - right;
  }
  return a.length - b.length;
}
