/**
 * Key redaction: everything code-commit logs, prints or would send passes through here.
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
const maskKey = (key: string) => `********${key.slice(-2)}`;

/**
 * An API's own masked echo of a key (OpenAI's 401 says `sk-proj-********abcd`): up to 64 word
 * characters, 3+ asterisks, up to 16 more, the key's last four (`tail`), no word character after.
 */
type Echo = { readonly tail: string; readonly mask: string };

const ECHO_PREFIX = 64;
const ECHO_MIDDLE = 16;

const isWord = (c: string | undefined) => c !== undefined && /[\w-]/.test(c);
const isMiddle = (c: string | undefined) => c !== undefined && /[\w.-]/.test(c);

type Span = { readonly start: number; readonly end: number; readonly mask: string };

/**
 * Every echo in `text`, in order. Not a regular expression, so it stays linear on any input
 * (backtracking can take minutes on long runs of word characters or asterisks, freezing Ctrl-C).
 */
function findEchoes(text: string, echoes: readonly Echo[]): Span[] {
  const found: Span[] = [];
  if (echoes.length === 0) return found;
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

/** Levels of JSON escapes decoded: a key in a JSON string, in JSON quoted in one, once more. */
const ESCAPE_LEVELS = 3;

/**
 * The encoded forms a build most likely prints a key in: base64 (standard and URL-safe, unpadded
 * to match inside padded output) of the key and of the key file with its line end, and hex.
 */
export function encodedForms(key: string): string[] {
  const forms = [key, `${key}\n`, `${key}\r\n`].flatMap((content) => {
    const bytes = new TextEncoder().encode(content);
    return [
      bytes.toBase64({ omitPadding: true }),
      bytes.toBase64({ alphabet: "base64url", omitPadding: true }),
    ];
  });
  const hex = new TextEncoder().encode(key).toHex();
  return [...forms, hex, hex.toUpperCase()];
}

/**
 * The base64 characters of `key` that do not depend on its neighbours, at each of the three byte
 * offsets it can start at (inside a `user:key` Basic-auth value, say), in both alphabets.
 */
export function unalignedBase64Forms(key: string): string[] {
  const bytes = new TextEncoder().encode(key);
  const forms: string[] = [];
  for (const offset of [0, 1, 2]) {
    const padded = new Uint8Array(offset + bytes.length);
    padded.set(bytes, offset);
    const encoded = padded.toBase64({ omitPadding: true });
    const head = [0, 2, 3][offset];
    const tail = padded.length % 3 === 0 ? 0 : 1;
    const core = encoded.slice(head, encoded.length - tail);
    forms.push(core, core.replaceAll("+", "-").replaceAll("/", "_"));
  }
  return forms;
}

const PART_MASK = "********";

/**
 * Masks the known keys in text: each key and encoded form, every run of {@link KEY_RUN_LENGTH} or
 * more characters of one (a key's start quoted in an API error), base64 at any byte offset, and an
 * API's masked echo; as they stand and with JSON escapes, once or JSON in JSON. Never throws.
 */
export class Redactor {
  readonly #keys: readonly string[];
  /** The keys and forms the run scan does not find (short, or not among its sources). */
  readonly #unscanned: readonly string[];
  readonly #echoes: readonly Echo[];
  readonly #runs: KeyRuns;
  /** The characters of the keys and their forms (and an echo's asterisks), bar white space. */
  readonly #characters: ReadonlySet<string>;
  readonly #longest: number;
  /** The last text found to hold no key (a prompt is logged, then checked before it is sent). */
  #lastClean: string | undefined;

  /** Makes a redactor for these keys (empty strings are ignored). Never throws. */
  constructor(keys: readonly string[] = []) {
    const given = [...new Set(keys.filter((key) => key.length > 0))];
    const real = given.filter((key) => key.length >= 8);
    // Longest first, so that a key containing another is masked whole.
    this.#keys = [...new Set([...given, ...real.flatMap(encodedForms)])]
      .sort((a, b) => b.length - a.length);
    this.#echoes = real.map((key) => ({ tail: key.slice(-4), mask: maskKey(key) }));
    // Runs of a key are looked for in key-shaped entries only (no white space): a key file's
    // whole text may hold a note, whose words must not be masked everywhere.
    const sources = real.filter((key) => !/\s/.test(key))
      .flatMap((key) => [key, ...encodedForms(key), ...unalignedBase64Forms(key)]);
    this.#runs = new KeyRuns(sources);
    this.#longest = Math.max(0, ...[...this.#keys, ...sources].map((key) => key.length));
    this.#characters = new Set(
      [...this.#keys, ...sources, this.#echoes.length > 0 ? "*" : ""].join("").replace(/\s/g, ""),
    );
    const scanned = new Set(sources.filter((source) => source.length >= KEY_RUN_LENGTH));
    this.#unscanned = this.#keys.filter((key) => !scanned.has(key));
  }

  /** Whether `text`, as it stands (escapes not decoded), holds no key. */
  #plainClean(text: string): boolean {
    if (text === this.#lastClean) return true;
    let found = false;
    this.#runs.scan(text, () => (found = true));
    return !found && !this.#unscanned.some((key) => text.includes(key));
  }

  #escapedKeyIn(text: string): boolean {
    let below = text;
    for (let level = 1; level <= ESCAPE_LEVELS; level++) {
      if (!mayHoldKeyEscapes(below, this.#characters)) return false;
      const decoded = decodeJsonEscapes(below).text;
      if (decoded === below) return false;
      if (!this.#plainClean(decoded)) return true;
      below = decoded;
    }
    return false;
  }

  #maskEscaped(text: string): string {
    // Only the stretches around escapes that may write a key's character are decoded.
    const changed = keyEscapeWindows(text, this.#characters, this.#longest)
      .map(([start, end]) => ({ start, end, mask: this.#maskEscapedIn(text.slice(start, end)) }))
      .filter(({ start, end, mask }) => mask !== text.slice(start, end));
    return applySpans(text, changed);
  }

  /** A window decoded level by level, each key or echo masked, escaped as its level needs. */
  #maskEscapedIn(text: string): string {
    let current = text;
    // The decodings of `current`, level by level: chain[i] decodes chain[i - 1].text.
    let chain: DecodedText[] = [];
    for (let level = 1; level <= ESCAPE_LEVELS; level++) {
      const below = chain.at(-1)?.text ?? current;
      if (!mayHoldKeyEscapes(below, this.#characters)) break;
      const decoded = decodeJsonEscapes(below);
      if (decoded.text === below) break;
      chain.push(decoded);
      const spans = this.#spans(decoded.text);
      if (spans.length === 0) continue;
      current = applySpans(
        current,
        spans,
        (at) => chain.reduceRight((position, step) => step.source(position), at),
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

  /** The stretches of `text` to mask, in order and apart: keys, runs of keys, echoes elsewhere. */
  #spans(text: string): Span[] {
    const spans = this.#plainClean(text) ? [] : this.#keySpans(text);
    const echoes = findEchoes(text, this.#echoes)
      .filter((echo) => !spans.some((span) => span.start < echo.end && echo.start < span.end));
    return echoes.length === 0 ? spans : [...spans, ...echoes].sort((a, b) => a.start - b.start);
  }

  /** The whole keys and forms in `text`, found first (overlapping ones masked whole), and runs between. */
  #keySpans(text: string): Span[] {
    const wholes: { start: number; end: number; key: string }[] = [];
    for (const key of this.#keys) {
      for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + 1)) {
        wholes.push({ start: at, end: at + key.length, key });
      }
    }
    wholes.sort((a, b) => a.start - b.start || b.end - a.end);
    const spans: Span[] = [];
    const part = (start: number, end: number) => void spans.push({ start, end, mask: PART_MASK });
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

  /** `text` with every key masked: a whole key `********` and its last two, a part `********`. */
  redact(text: string): string {
    const unescaped = this.#maskEscaped(text);
    const clean = this.#plainClean(unescaped);
    if (clean && unescaped === text) this.#lastClean = text;
    const masked = clean ? unescaped : applySpans(unescaped, this.#keySpans(unescaped));
    return applySpans(masked, findEchoes(masked, this.#echoes));
  }

  /** Whether `text` holds a key in any form {@link redact} masks but an API's echo. Never throws. */
  containsKey(text: string): boolean {
    if (text === this.#lastClean) return false;
    if (!this.#plainClean(text)) return true;
    const windows = keyEscapeWindows(text, this.#characters, this.#longest);
    if (windows.some(([start, end]) => this.#escapedKeyIn(text.slice(start, end)))) return true;
    this.#lastClean = text;
    return false;
  }
}
