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
import { KEY_RUN_LENGTH, KeyRuns } from "./key_runs.ts";

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
