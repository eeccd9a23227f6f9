/**
 * Key redaction: everything code-commit writes to a log, prints, or would
 * send passes through here: every occurrence of a key becomes `********`
 * and its last two characters.
 *
 * @module
 */
import {
  type DecodedText,
  decodeJsonEscapes,
  escapeJsonString,
  keyEscapeWindows,
  mayHoldKeyEscapes,
} from "./json_escapes.ts";

/** How a key looks after redaction: eight asterisks and its last two characters. */
function maskKey(key: string): string {
  return `********${key.slice(-2)}`;
}

/**
 * An API's own masked echo of a key: up to {@link ECHO_PREFIX} leading word
 * characters, three or more asterisks, up to {@link ECHO_MIDDLE} characters,
 * and the key's last four characters, not followed by a word character.
 * OpenAI's 401 message spells a rejected key `sk-proj-********abcd`, which
 * shows more of the key than the two characters redaction allows.
 */
interface Echo {
  /** The key's last four characters. */
  readonly tail: string;
  /** What the echo is replaced with. */
  readonly mask: string;
}

/** Longest prefix an echo keeps before its asterisks (OpenAI keeps 8: `sk-proj-`). */
const ECHO_PREFIX = 64;
/** Longest run of characters an echo keeps between its asterisks and the key's last four. */
const ECHO_MIDDLE = 16;

const isWord = (c: string | undefined) => c !== undefined && /[\w-]/.test(c);
const isMiddle = (c: string | undefined) => c !== undefined && /[\w.-]/.test(c);

/** A stretch of a text to mask, and what it becomes. */
interface Span {
  readonly start: number;
  readonly end: number;
  readonly mask: string;
}

/**
 * Every echo in `text`, in order. A hand-written scan rather than a regular
 * expression: it visits each run of asterisks once and looks at a bounded
 * window around it, so it stays linear on any input (a backtracking pattern
 * can take minutes on long runs of word characters or asterisks, freezing the
 * tool and Ctrl-C with it).
 */
function findEchoes(text: string, echoes: readonly Echo[]): Span[] {
  const found: Span[] = [];
  let cursor = 0;
  for (let stars = text.indexOf("***"); stars !== -1; stars = text.indexOf("***", cursor)) {
    let end = stars;
    while (text[end] === "*") end++;
    let match: Span | undefined;
    for (let middle = 0; middle <= ECHO_MIDDLE && match === undefined; middle++) {
      if (middle > 0 && !isMiddle(text[end + middle - 1])) break;
      for (const echo of echoes) {
        const tailEnd = end + middle + echo.tail.length;
        if (text.startsWith(echo.tail, end + middle) && !isWord(text[tailEnd])) {
          let start = stars;
          while (start > cursor && stars - start < ECHO_PREFIX && isWord(text[start - 1])) start--;
          match = { start, end: tailEnd, mask: echo.mask };
          break;
        }
      }
    }
    if (match !== undefined) {
      found.push(match);
      end = match.end;
    }
    cursor = end;
  }
  return found;
}

/** `text` with each of `spans` (in order, apart) replaced by its mask, as `escape` writes it. */
function applySpans(
  text: string,
  spans: readonly Span[],
  where: (at: number) => number = (at) => at,
  escape: (mask: string) => string = (mask) => mask,
): string {
  if (spans.length === 0) return text;
  let out = "";
  let cursor = 0;
  for (const span of spans) {
    const start = where(span.start);
    out += text.slice(cursor, start) + escape(span.mask);
    cursor = where(span.end);
  }
  return out + text.slice(cursor);
}

/** Masks every echo in `text` (see {@link findEchoes}). */
function maskEchoes(text: string, echoes: readonly Echo[]): string {
  return applySpans(text, findEchoes(text, echoes));
}

/**
 * How many times JSON escapes are decoded in turn when looking for a key:
 * a key escaped in a JSON string, in a JSON text quoted in a JSON string
 * (an API error that quotes another's body), and once more.
 */
const ESCAPE_LEVELS = 3;

/**
 * The forms a key takes when a program prints it encoded: base64 (standard
 * and URL-safe, unpadded, so they also match inside padded output) of the
 * key alone and of the key file's content with its line end (what
 * `base64 agent-config/gemini-key.txt` prints), and hex. A build runs code
 * the model wrote; it can read the key file and print it in any form, and
 * these are the ones a debugging line most likely uses. Never throws.
 */
export function encodedForms(key: string): string[] {
  const forms: string[] = [];
  for (const content of [key, `${key}\n`, `${key}\r\n`]) {
    const bytes = new TextEncoder().encode(content);
    const base64 = btoa(String.fromCharCode(...bytes)).replace(/=+$/, "");
    forms.push(base64, base64.replaceAll("+", "-").replaceAll("/", "_"));
  }
  const hex = Array.from(new TextEncoder().encode(key), (b) => b.toString(16).padStart(2, "0"))
    .join("");
  forms.push(hex, hex.toUpperCase());
  return forms;
}

/**
 * Shortest run of a key's characters that is masked on its own: an API
 * error that quotes the start of a key (`API key AIzaSyFAKE-key-f... is
 * invalid`), or a build that prints part of one, shows no 12 characters of
 * it. Shorter runs are left alone: 11 characters of a random key are no
 * more than chance.
 */
export const KEY_RUN_LENGTH = 12;

/** Encodes bytes as base64 (standard alphabet, with padding). */
function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * The base64 characters of `key` that do not depend on what stands around
 * it, for each of the three byte offsets the key can start at (after `K=`,
 * inside a `user:key` Basic-auth value, ...), in the standard and the
 * URL-safe alphabet. At offset 1 the first two characters also hold bits of
 * the byte before the key, at offset 2 the first three; the last character
 * holds bits of the byte after the key unless the key ends a 3-byte group:
 * those are left out. Never throws.
 */
export function unalignedBase64Forms(key: string): string[] {
  const bytes = new TextEncoder().encode(key);
  const forms: string[] = [];
  for (const offset of [0, 1, 2]) {
    const padded = new Uint8Array(offset + bytes.length);
    padded.set(bytes, offset);
    const encoded = base64(padded).replace(/=+$/, "");
    const head = [0, 2, 3][offset];
    const tail = padded.length % 3 === 0 ? 0 : 1;
    const core = encoded.slice(head, encoded.length - tail);
    forms.push(core, core.replaceAll("+", "-").replaceAll("/", "_"));
  }
  return forms;
}

/** What a part of a key (or of an encoded form) becomes: the asterisks alone, no character of it. */
const PART_MASK = "********";

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
class KeyRuns {
  readonly #runs: Set<string>;
  readonly #pieces = new Uint32Array(2 ** (FILTER_BITS - 5));
  readonly #windows = new Uint32Array(2 ** (FILTER_BITS - 5));
  /** A chunk of ASCII text, encoded, and the same bytes as words. */
  readonly #bytes = new Uint8Array(CHUNK + PIECE);
  readonly #words = new Uint32Array(this.#bytes.buffer);

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

/**
 * Replaces every occurrence of the known keys in text: each whole key and
 * each of its encoded forms, every run of {@link KEY_RUN_LENGTH} or more
 * characters of one (a key's first characters quoted in an API error, say),
 * base64 of a key at any byte offset, and an API's masked echo of a key;
 * each as it stands and written with JSON escapes (`\u0041`, `\/`), whole
 * or in part, escaped once or JSON in JSON. Neither it nor any of its
 * methods throws.
 */
export class Redactor {
  readonly #given: readonly string[];
  readonly #keys: readonly string[];
  /**
   * The entries of `#keys` that the scan for runs does not find by itself:
   * those shorter than a run, or not among its sources (a key file's whole
   * text with white space in it, a key under 8 characters). Every other
   * entry holds a run wherever it occurs, so text in which the scan finds
   * no run and which holds none of these holds no key at all (an `indexOf`
   * pass per key and form would cost many times the one scan over a long reply).
   */
  readonly #unscanned: readonly string[];
  readonly #echoes: readonly Echo[];
  readonly #runs: KeyRuns;
  /** The characters of the keys and their forms (and of an echo's asterisks), bar white space. */
  readonly #characters: ReadonlySet<string>;
  /** The length of the longest key or form. */
  readonly #longest: number;
  /** The last text found to hold no key (a prompt is logged, then checked before it is sent). */
  #lastClean: string | undefined;

  /** Makes a redactor for these keys (empty strings are ignored). Never throws. */
  constructor(keys: readonly string[] = []) {
    this.#given = [...new Set(keys.filter((key) => key.length > 0))];
    const real = this.#given.filter((key) => key.length >= 8);
    // Longest first, so that a key containing another is masked whole.
    this.#keys = [...new Set([...this.#given, ...real.flatMap(encodedForms)])]
      .sort((a, b) => b.length - a.length);
    this.#echoes = real.map((key) => ({ tail: key.slice(-4), mask: maskKey(key) }));
    // Runs of a key are looked for in key-shaped entries only (no white space): a key file's
    // whole text may hold a note, whose words must not be masked everywhere.
    const tokens = real.filter((key) => !/\s/.test(key));
    const sources = tokens.flatMap((key) => [
      key,
      ...encodedForms(key),
      ...unalignedBase64Forms(key),
    ]);
    this.#runs = new KeyRuns(sources);
    this.#longest = Math.max(0, ...[...this.#keys, ...sources].map((key) => key.length));
    this.#characters = new Set(
      [...this.#keys, ...sources, this.#echoes.length > 0 ? "*" : ""].join("").replace(/\s/g, ""),
    );
    const scanned = new Set(sources.filter((source) => source.length >= KEY_RUN_LENGTH));
    this.#unscanned = this.#keys.filter((key) => !scanned.has(key));
  }

  /**
   * Whether `text` holds no key in any form {@link containsKey} looks for,
   * as it stands and with its JSON escapes decoded. Remembers the last text
   * it cleared.
   */
  #clean(text: string): boolean {
    if (text === this.#lastClean) return true;
    if (!this.#plainClean(text) || this.#escapedKey(text)) return false;
    this.#lastClean = text;
    return true;
  }

  /**
   * Whether `text`, as it stands, holds no key in any form {@link
   * containsKey} looks for: one scan for runs, and an `indexOf` for each
   * key the scan does not find by itself.
   */
  #plainClean(text: string): boolean {
    if (text === this.#lastClean) return true;
    let found = false;
    this.#runs.scan(text, () => (found = true));
    return !found && !this.#unscanned.some((key) => text.includes(key));
  }

  /** Whether `text` may hold a JSON escape that stands for a character of a key (or an echo). */
  #mayEscape(text: string): boolean {
    return this.#characters.size > 0 && mayHoldKeyEscapes(text, this.#characters);
  }

  /**
   * The stretches of `text` around the escapes that may write a key's
   * character (see {@link keyEscapeWindows}): only they are decoded.
   */
  #windows(text: string): [number, number][] {
    return this.#characters.size === 0
      ? []
      : keyEscapeWindows(text, this.#characters, this.#longest);
  }

  /**
   * Whether `text` holds a key once its JSON escapes are decoded, once or
   * up to {@link ESCAPE_LEVELS} times in turn.
   */
  #escapedKey(text: string): boolean {
    return this.#windows(text).some(([start, end]) => this.#escapedKeyIn(text.slice(start, end)));
  }

  /** As {@link #escapedKey}, in one window. */
  #escapedKeyIn(text: string): boolean {
    let below = text;
    for (let level = 1; level <= ESCAPE_LEVELS && this.#mayEscape(below); level++) {
      const decoded = decodeJsonEscapes(below).text;
      if (decoded === below) return false;
      if (!this.#plainClean(decoded)) return true;
      below = decoded;
    }
    return false;
  }

  /**
   * `text` with every key written with JSON escapes masked (see {@link
   * #maskEscapedIn}), window by window. The same string when there is none.
   */
  #maskEscaped(text: string): string {
    let out = "";
    let cursor = 0;
    for (const [start, end] of this.#windows(text)) {
      const window = text.slice(start, end);
      const masked = this.#maskEscapedIn(window);
      if (masked === window) continue;
      out += text.slice(cursor, start) + masked;
      cursor = end;
    }
    return cursor === 0 ? text : out + text.slice(cursor);
  }

  /**
   * `text` (a window) with every key written with JSON escapes masked: the escapes
   * are decoded (once, then in turn up to {@link ESCAPE_LEVELS} times), the
   * keys and echoes found in the decoded text, and each stretch of `text`
   * that decodes to one replaced by its mask, escaped as the level needs
   * (so a JSON body stays JSON). The same string when there is none.
   */
  #maskEscapedIn(text: string): string {
    let current = text;
    // The decodings of `current`, level by level: chain[i] decodes chain[i - 1].text.
    let chain: DecodedText[] = [];
    for (let level = 1; level <= ESCAPE_LEVELS; level++) {
      const below = chain.length === 0 ? current : chain[chain.length - 1].text;
      if (!this.#mayEscape(below)) break;
      const decoded = decodeJsonEscapes(below);
      if (decoded.text === below) break;
      chain.push(decoded);
      const spans = this.#spans(decoded.text);
      if (spans.length === 0) continue;
      const levels = chain;
      current = applySpans(
        current,
        spans,
        (at) => levels.reduceRight((position, step) => step.source(position), at),
        (mask) => {
          for (let i = 0; i < level; i++) mask = escapeJsonString(mask);
          return mask;
        },
      );
      chain = [];
      for (let i = 0; i < level; i++) {
        chain.push(decodeJsonEscapes(i === 0 ? current : chain[i - 1].text));
      }
    }
    return current;
  }

  /**
   * The stretches of `text` to mask, in order and apart: whole keys and
   * encoded forms, runs of keys between them, and echoes elsewhere.
   */
  #spans(text: string): Span[] {
    const spans = this.#plainClean(text) ? [] : this.#keySpans(text);
    if (this.#echoes.length === 0 || !text.includes("***")) return spans;
    const echoes = findEchoes(text, this.#echoes)
      .filter((echo) => !spans.some((span) => span.start < echo.end && echo.start < span.end));
    return echoes.length === 0 ? spans : [...spans, ...echoes].sort((a, b) => a.start - b.start);
  }

  /**
   * The whole keys and encoded forms in `text`, found first (so that
   * overlapping keys are masked whole, together), and the runs of keys in
   * the text between them, in order and apart.
   */
  #keySpans(text: string): Span[] {
    const wholes: { start: number; end: number; key: string }[] = [];
    for (const key of this.#keys) {
      for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + 1)) {
        wholes.push({ start: at, end: at + key.length, key });
      }
    }
    wholes.sort((a, b) => a.start - b.start || b.end - a.end);
    const spans: Span[] = [];
    // Parts of keys are looked for in the text between whole keys (a whole key holds no part
    // to look for): each becomes the part mask.
    const part = (start: number, end: number) => {
      spans.push({ start, end, mask: PART_MASK });
    };
    let cursor = 0;
    for (let i = 0; i < wholes.length;) {
      let { end, key } = wholes[i];
      const { start } = wholes[i];
      // Whole keys that overlap are merged: the mask shows the tail of the one ending last.
      for (i++; i < wholes.length && wholes[i].start < end; i++) {
        if (wholes[i].end > end) ({ end, key } = wholes[i]);
      }
      this.#runs.scan(text, part, cursor, start);
      spans.push({ start, end, mask: maskKey(key) });
      cursor = end;
    }
    this.#runs.scan(text, part, cursor, text.length);
    return spans;
  }

  /** Returns a redactor that also knows `keys`. Never throws. */
  with(keys: readonly string[]): Redactor {
    return new Redactor([...this.#given, ...keys]);
  }

  /**
   * Returns `text` with every key in it masked (see {@link Redactor}): a
   * whole key or encoded form becomes `********` and its last two
   * characters, a part of one `********` alone, as it stands and where it
   * is written with JSON escapes (`\u0073k-…`, `\/`). Occurrences are found
   * in the original text first, so overlapping keys are masked whole,
   * together. Never throws.
   */
  redact(text: string): string {
    const unescaped = this.#maskEscaped(text);
    if (this.#plainClean(unescaped)) {
      // Nothing escaped was found either: the text holds no key in any form.
      if (unescaped === text) this.#lastClean = text;
      return this.#maskEchoes(unescaped);
    }
    return this.#maskEchoes(applySpans(unescaped, this.#keySpans(unescaped)));
  }

  /** `text` with every API's masked echo of a key masked (see {@link maskEchoes}). */
  #maskEchoes(text: string): string {
    return this.#echoes.length > 0 && text.includes("***") ? maskEchoes(text, this.#echoes) : text;
  }

  /**
   * Tells whether `text` holds a key in any form {@link redact} masks,
   * except an API's masked echo (which shows no more than the last four
   * characters): a whole key, an encoded form, a run of
   * {@link KEY_RUN_LENGTH} characters of one, as it stands or written with
   * JSON escapes. Never throws.
   */
  containsKey(text: string): boolean {
    return !this.#clean(text);
  }
}
