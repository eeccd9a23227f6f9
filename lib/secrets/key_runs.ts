/**
 * The scanning core of key redaction: every run of {@link KEY_RUN_LENGTH}
 * characters of the keys and their encoded forms, found in a text in one
 * linear pass through two bit filters ({@link KeyRuns}). What each run
 * found is replaced with is `redact.ts`'s business.
 *
 * @module
 */

/**
 * Shortest run of a key's characters that is masked on its own: an API
 * error that quotes the start of a key (`API key AIzaSyFAKE-key-f... is
 * invalid`), or a build that prints part of one, shows no 12 characters of
 * it. Shorter runs are left alone: 11 characters of a random key are no
 * more than chance.
 */
export const KEY_RUN_LENGTH = 12;

/** Bits of each of the two filters of {@link KeyRuns}: 2^20 bits, 128 KiB. */
const FILTER_BITS = 20;
/** Length of the pieces the first filter knows. */
const PIECE = 4;
/**
 * How far apart the first filter looks: a run of {@link KEY_RUN_LENGTH}
 * characters holds a whole piece starting at every one of its first
 * `KEY_RUN_LENGTH - PIECE + 1` positions, so looking every
 * `KEY_RUN_LENGTH - PIECE` characters never misses one.
 */
const STRIDE = KEY_RUN_LENGTH - PIECE;
/** The rolling hash's base (odd, so powers stay odd modulo 2^32). */
const HASH_BASE = 0x01000193;
/** HASH_BASE^(KEY_RUN_LENGTH - 1) modulo 2^32: takes the leaving character out of a window's hash. */
const HASH_TOP = (() => {
  let top = 1;
  for (let i = 1; i < KEY_RUN_LENGTH; i++) top = Math.imul(top, HASH_BASE);
  return top;
})();

/** The rolling hash of the {@link KEY_RUN_LENGTH} characters of `text` at `at`. */
function windowHash(text: string, at: number): number {
  let hash = 0;
  for (let i = 0; i < KEY_RUN_LENGTH; i++) {
    hash = (Math.imul(hash, HASH_BASE) + text.charCodeAt(at + i)) | 0;
  }
  return hash;
}

/** The second filter's bit for a window's rolling hash. */
function windowBit(hash: number): number {
  return Math.imul(hash ^ (hash >>> 16), 0x45d9f3b) >>> (32 - FILTER_BITS);
}

/**
 * The four characters of `text` at `at` packed into one number, the first
 * in the lowest byte: for ASCII text, exactly the little-endian 32-bit word
 * of its bytes, which is how {@link KeyRuns.scan} reads them. Characters
 * past U+007F overlap other bits; the packing stays the same function of
 * the characters, which is all the filter needs.
 */
function packPiece(text: string, at: number): number {
  return text.charCodeAt(at) | (text.charCodeAt(at + 1) << 8) |
    (text.charCodeAt(at + 2) << 16) | (text.charCodeAt(at + 3) << 24);
}

/** The first filter's bit for a piece packed by {@link packPiece}. */
function pieceBit(piece: number): number {
  return Math.imul(piece ^ (piece >>> 15), 0x2c1b3c6d) >>> (32 - FILTER_BITS);
}

/**
 * Characters of ASCII text encoded at a time by {@link KeyRuns.scan}, whose
 * pieces it then reads a 32-bit word each (a chunk starts at a piece, so
 * each of its pieces starts a multiple of {@link STRIDE} bytes in).
 */
const CHUNK = 16 * 1024;

/**
 * Whether the scan may read a chunk's pieces as words: a Uint32Array reads
 * bytes little-endian, as {@link packPiece} packs them, and every piece of
 * a chunk starts on a word ({@link STRIDE} a multiple of 4). Otherwise it
 * reads characters throughout.
 */
const WORDS = STRIDE % 4 === 0 && new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

const chunkEncoder = new TextEncoder();

/** Whether `filter` has `bit` set. */
function has(filter: Uint32Array, bit: number): boolean {
  return (filter[bit >>> 5] & (1 << (bit & 31))) !== 0;
}

/**
 * Every {@link KEY_RUN_LENGTH}-character run of the keys and their forms,
 * found in text in one pass. Every {@link STRIDE} characters, a first bit
 * set tells whether the {@link PIECE} characters there could be part of a
 * key; almost never in ordinary text. Where they could, the windows that
 * hold them are hashed (rolling), a second bit set rules out almost every
 * one, and the rest are compared exactly. Each character is read a bounded
 * number of times, so the scan is linear in the text whatever it holds:
 * ordinary text costs a look every 8 characters, and text made of pieces of
 * keys a rolling hash per character. ASCII text is read a chunk at a time,
 * each look one 32-bit word of its bytes (a few times faster than four
 * `charCodeAt` calls per look).
 */
export class KeyRuns {
  readonly #runs: Set<string>;
  readonly #pieces = new Uint32Array(2 ** (FILTER_BITS - 5));
  readonly #windows = new Uint32Array(2 ** (FILTER_BITS - 5));
  /** A chunk of ASCII text, encoded, and the same bytes as words. */
  readonly #bytes = new Uint8Array(CHUNK + PIECE);
  readonly #words = new Uint32Array(this.#bytes.buffer);

  /**
   * The filters and runs of `sources` (the keys and their forms); a source
   * shorter than a run adds none.
   */
  constructor(sources: readonly string[]) {
    this.#runs = new Set();
    for (const source of sources) {
      if (source.length < KEY_RUN_LENGTH) continue;
      // Each piece and window of a source once (runs overlap: a piece lies in up to 9 of them).
      // Every piece of a source at least a run long lies in one of its runs.
      // Each piece's bit and each window's bit set here, without helper calls: a few thousand
      // calls would have the JIT compile the helpers, for a run that may do little else.
      const pieces = this.#pieces;
      const windows = this.#windows;
      let hash = windowHash(source, 0);
      for (let at = 0; at + PIECE <= source.length; at++) {
        const piece = source.charCodeAt(at) | (source.charCodeAt(at + 1) << 8) |
          (source.charCodeAt(at + 2) << 16) | (source.charCodeAt(at + 3) << 24);
        const pieceBit = Math.imul(piece ^ (piece >>> 15), 0x2c1b3c6d) >>> (32 - FILTER_BITS);
        pieces[pieceBit >>> 5] |= 1 << (pieceBit & 31);
        if (at + KEY_RUN_LENGTH > source.length) continue;
        this.#runs.add(source.slice(at, at + KEY_RUN_LENGTH));
        const windowBit = Math.imul(hash ^ (hash >>> 16), 0x45d9f3b) >>> (32 - FILTER_BITS);
        windows[windowBit >>> 5] |= 1 << (windowBit & 31);
        if (at + KEY_RUN_LENGTH < source.length) {
          hash = (Math.imul(hash - Math.imul(source.charCodeAt(at), HASH_TOP), HASH_BASE) +
            source.charCodeAt(at + KEY_RUN_LENGTH)) | 0;
        }
      }
    }
  }

  /**
   * Calls `found` with each stretch of `text[from, to)` covered by runs
   * (overlapping runs joined), in order; stops early when `found` returns
   * true.
   */
  scan(
    text: string,
    found: (start: number, end: number) => boolean | void,
    from = 0,
    to = text.length,
  ): void {
    const length = KEY_RUN_LENGTH;
    if (to - from < length || this.#runs.size === 0) return;
    const pieces = this.#pieces;
    const windows = this.#windows;
    const runs = this.#runs;
    let runStart = -1;
    let runEnd = -1;
    // Window starts are checked in increasing order, each at most once.
    let nextStart = from;
    // The last window hashed and its hash: the next look's windows often start right after it
    // (text that shares pieces with a key hits look after look), and are rolled to from there.
    let hashed = -1;
    let hash = 0;
    // The pieces at from, from + STRIDE, ...: a chunk of them at a time. Where the chunk is
    // ASCII, its bytes are its characters, and each piece is read as one word of them (this runs
    // for every 8 characters of everything redacted: a 20 MB reply is 2.5 million pieces).
    // After a chunk that was not ASCII, the next 1, 3, 7, ... (at most 31) are read as
    // characters without trying: text that is not ASCII throughout is not encoded in vain.
    const bytes = this.#bytes;
    const words = this.#words;
    let misses = 0;
    let untried = WORDS ? 0 : Infinity;
    for (let at = from; at + PIECE <= to;) {
      const limit = Math.min(to - PIECE + 1, at + CHUNK); // the chunk's pieces start before it
      const characters = limit + PIECE - 1 - at;
      let ascii = false;
      if (untried > 0) {
        untried--;
      } else {
        const { read, written } = chunkEncoder.encodeInto(text.slice(at, at + characters), bytes);
        ascii = read === characters && written === characters;
        misses = ascii ? 0 : Math.min(misses + 1, 5);
        untried = ascii ? 0 : 2 ** misses - 1;
      }
      for (let piece = at; piece < limit; piece += STRIDE) {
        const bit = pieceBit(ascii ? words[(piece - at) >>> 2] : packPiece(text, piece));
        if ((pieces[bit >>> 5] & (1 << (bit & 31))) === 0) continue;
        // The windows that hold the piece whole start in [piece + PIECE - length, piece].
        const first = Math.max(nextStart, piece + PIECE - length);
        const last = Math.min(piece, to - length);
        if (first > last) continue;
        if (hashed !== -1 && first - hashed <= length) {
          for (let start = hashed; start < first; start++) {
            hash = (Math.imul(hash - Math.imul(text.charCodeAt(start), HASH_TOP), HASH_BASE) +
              text.charCodeAt(start + length)) | 0;
          }
        } else {
          hash = windowHash(text, first);
        }
        for (let start = first;; start++) {
          if (has(windows, windowBit(hash)) && runs.has(text.slice(start, start + length))) {
            if (start < runEnd) {
              runEnd = start + length;
            } else {
              if (runEnd !== -1 && found(runStart, runEnd) === true) return;
              runStart = start;
              runEnd = start + length;
            }
          }
          if (start === last) break;
          hash = (Math.imul(hash - Math.imul(text.charCodeAt(start), HASH_TOP), HASH_BASE) +
            text.charCodeAt(start + length)) | 0;
        }
        hashed = last;
        nextStart = last + 1;
      }
      at += Math.ceil((limit - at) / STRIDE) * STRIDE;
    }
    if (runEnd !== -1) found(runStart, runEnd);
  }
}
