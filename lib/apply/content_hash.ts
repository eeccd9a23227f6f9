/**
 * The hash the journal records of every file an apply writes: is this still
 * the file the run left? And the exact comparison of two files' bytes.
 *
 * @module
 */

/** Whether `a` and `b` hold the same bytes. Never throws. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

/**
 * A 64-bit hash of `data` (two 32-bit MurmurHash3-style lanes), in 16 hex
 * digits. Not cryptographic: it tells a hand edit from none, where SHA-256
 * would slow a large apply. Never throws.
 */
export function contentHash(data: Uint8Array): string {
  let h1 = 0x9747b28c ^ data.length;
  let h2 = 0x85ebca6b ^ data.length;
  const words = data.length & ~3;
  for (let i = 0; i < words; i += 4) {
    let k = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h1 ^= k;
    h1 = (h1 << 13) | (h1 >>> 19);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
    h2 = Math.imul(h2 ^ k, 0x27d4eb2d);
    h2 ^= h2 >>> 15;
  }
  let tail = 0;
  for (let i = words; i < data.length; i++) tail |= data[i] << ((i - words) * 8);
  h1 ^= Math.imul(tail, 0x1b873593);
  h2 ^= Math.imul(tail, 0xcc9e2d51);
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h2 ^= h2 >>> 16;
  h2 = Math.imul(h2, 0xc2b2ae35);
  h2 ^= h2 >>> 16;
  return (h1 >>> 0).toString(16).padStart(8, "0") + (h2 >>> 0).toString(16).padStart(8, "0");
}
