/**
 * Strict UTF-8: invalid text is refused, never silently replaced with U+FFFD.
 *
 * @module
 */

const strict = new TextDecoder("utf-8", { fatal: true });

/** The offset of the first byte not in a valid UTF-8 sequence, or undefined. Never throws. */
export function firstInvalidUtf8(bytes: Uint8Array): number | undefined {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i];
    if (lead < 0x80) {
      i++;
      continue;
    }
    // The sequence's length and its second byte's range: no overlong form, surrogate or code
    // point past U+10FFFF. A lead byte that starts none has length 0.
    const [length, low, high] = lead < 0xc2 || lead > 0xf4
      ? [0, 0, 0]
      : lead < 0xe0
      ? [2, 0x80, 0xbf]
      : lead < 0xf0
      ? [3, lead === 0xe0 ? 0xa0 : 0x80, lead === 0xed ? 0x9f : 0xbf]
      : [4, lead === 0xf0 ? 0x90 : 0x80, lead === 0xf4 ? 0x8f : 0xbf];
    if (length === 0) return i;
    for (let k = 1; k < length; k++) {
      const [min, max] = k === 1 ? [low, high] : [0x80, 0xbf];
      const byte = bytes[i + k]; // undefined past the end: no range holds it
      if (!(byte >= min && byte <= max)) return i;
    }
    i += length;
  }
  return undefined;
}

/** `bytes` decoded as UTF-8; undefined when they are not valid UTF-8. Never throws. */
export function decodeStrictly(bytes: Uint8Array): string | undefined {
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}
