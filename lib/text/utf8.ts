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
    let length: number;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) length = 2;
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead === 0xe0) low = 0xa0; // overlong
      if (lead === 0xed) high = 0x9f; // surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead === 0xf0) low = 0x90; // overlong
      if (lead === 0xf4) high = 0x8f; // past U+10FFFF
    } else return i;
    for (let k = 1; k < length; k++) {
      const byte = bytes[i + k];
      if (byte === undefined) return i;
      const [min, max] = k === 1 ? [low, high] : [0x80, 0xbf];
      if (byte < min || byte > max) return i;
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
