/**
 * The scanning core of key redaction: runs of key characters found in one linear pass.
 * @module
 */

/**
 * Shortest run of a key's characters masked on its own (an API error quoting
 * a key's start shows no 12 of them); 11 of a random key are no more than chance.
 */
export const KEY_RUN_LENGTH = 12;

/** Bits of each filter: 2^20 bits, 128 KiB. */
const FILTER_BITS = 20;
const PIECE = 4;
/** A run holds a whole piece at each of its first `KEY_RUN_LENGTH - PIECE + 1` positions: no look misses one. */
const STRIDE = KEY_RUN_LENGTH - PIECE;
/** Odd, so powers stay odd modulo 2^32. */
const HASH_BASE = 0x01000193;
/** HASH_BASE^(KEY_RUN_LENGTH - 1) modulo 2^32: takes the leaving character out of a hash. */
const HASH_TOP = Array.from({ length: KEY_RUN_LENGTH - 1 })
  .reduce<number>((top) => Math.imul(top, HASH_BASE), 1);

function windowHash(text: string, at: number): number {
  let hash = 0;
  for (let i = 0; i < KEY_RUN_LENGTH; i++) {
    hash = (Math.imul(hash, HASH_BASE) + text.charCodeAt(at + i)) | 0;
  }
  return hash;
}

/** `hash` of the window at `at` rolled to the window at `at + 1`. */
function roll(hash: number, text: string, at: number): number {
  return (Math.imul(hash - Math.imul(text.charCodeAt(at), HASH_TOP), HASH_BASE) +
    text.charCodeAt(at + KEY_RUN_LENGTH)) | 0;
}

function windowBit(hash: number): number {
  return Math.imul(hash ^ (hash >>> 16), 0x45d9f3b) >>> (32 - FILTER_BITS);
}

/** The four characters at `at`, the first in the lowest byte: for ASCII, the little-endian word. */
function packPiece(text: string, at: number): number {
  return text.charCodeAt(at) | (text.charCodeAt(at + 1) << 8) |
    (text.charCodeAt(at + 2) << 16) | (text.charCodeAt(at + 3) << 24);
}

function pieceBit(piece: number): number {
  return Math.imul(piece ^ (piece >>> 15), 0x2c1b3c6d) >>> (32 - FILTER_BITS);
}

/** Characters of ASCII text encoded at a time, its pieces then read a word each. */
const CHUNK = 16 * 1024;

/** Whether pieces may be read as words: little-endian, as {@link packPiece} packs, and aligned. */
const WORDS = STRIDE % 4 === 0 && new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

const chunkEncoder = new TextEncoder();

function has(filter: Uint32Array, bit: number): boolean {
  return (filter[bit >>> 5] & (1 << (bit & 31))) !== 0;
}

function set(filter: Uint32Array, bit: number): void {
  filter[bit >>> 5] |= 1 << (bit & 31);
}

/**
 * Every {@link KEY_RUN_LENGTH}-character run of the keys and their forms, found in one linear pass:
 * every {@link STRIDE} characters a first bit set says whether the piece there could be part of a
 * key; where it could, the windows holding it are hashed (rolling), a second bit set rules out
 * almost all, the rest are compared.
 */
export class KeyRuns {
  readonly #runs: Set<string>;
  readonly #pieces = new Uint32Array(2 ** (FILTER_BITS - 5));
  readonly #windows = new Uint32Array(2 ** (FILTER_BITS - 5));
  readonly #bytes = new Uint8Array(CHUNK + PIECE);
  readonly #words = new Uint32Array(this.#bytes.buffer);

  /** The filters and runs of `sources` (the keys and their forms). Never throws. */
  constructor(sources: readonly string[]) {
    this.#runs = new Set();
    for (const source of sources) {
      if (source.length < KEY_RUN_LENGTH) continue;
      let hash = windowHash(source, 0);
      for (let at = 0; at + PIECE <= source.length; at++) {
        set(this.#pieces, pieceBit(packPiece(source, at)));
        if (at + KEY_RUN_LENGTH > source.length) continue;
        this.#runs.add(source.slice(at, at + KEY_RUN_LENGTH));
        set(this.#windows, windowBit(hash));
        if (at + KEY_RUN_LENGTH < source.length) hash = roll(hash, source, at);
      }
    }
  }

  /** Calls `found` with each stretch of `text[from, to)` covered by runs, in order, until it returns true. */
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
    let nextStart = from; // window starts are checked in order, each at most once
    // The last window hashed: the next look's windows, often right after it, are rolled to.
    let hashed = -1;
    let hash = 0;
    // After a chunk that was not ASCII, the next 1, 3, 7, ... (at most 31) are read as
    // characters without trying to encode them.
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
          for (let start = hashed; start < first; start++) hash = roll(hash, text, start);
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
          hash = roll(hash, text, start);
        }
        hashed = last;
        nextStart = last + 1;
      }
      at += Math.ceil((limit - at) / STRIDE) * STRIDE;
    }
    if (runEnd !== -1) found(runStart, runEnd);
  }
}
