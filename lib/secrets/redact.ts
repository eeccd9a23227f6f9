/**
 * Key redaction: everything code-commit writes to a log, prints, or would
 * send passes through here (SPEC.md decision 11).
 *
 * @module
 */

/** How a key looks after redaction: eight asterisks and its last two characters. */
export function maskKey(key: string): string {
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

/**
 * Masks every echo in `text`. A hand-written scan rather than a regular
 * expression: it visits each run of asterisks once and looks at a bounded
 * window around it, so it stays linear on any input (a backtracking pattern
 * took minutes on long runs of word characters or asterisks, freezing the
 * tool and Ctrl-C with it).
 */
function maskEchoes(text: string, echoes: readonly Echo[]): string {
  let out = "";
  let cursor = 0;
  for (let stars = text.indexOf("***"); stars !== -1; stars = text.indexOf("***", cursor)) {
    let end = stars;
    while (text[end] === "*") end++;
    let match: { start: number; end: number; mask: string } | undefined;
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
    if (match === undefined) {
      out += text.slice(cursor, end);
    } else {
      out += text.slice(cursor, match.start) + match.mask;
      end = match.end;
    }
    cursor = end;
  }
  return out + text.slice(cursor);
}

/**
 * The forms a key takes when a program prints it encoded: base64 (standard
 * and URL-safe, unpadded, so they also match inside padded output) of the
 * key alone and of the key file's content with its line end (what
 * `base64 agent-config/gemini-key.txt` prints), and hex. A build runs code
 * the model wrote; it can read the key file and print it in any form, and
 * these are the ones a debugging line most likely uses.
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

/** Replaces every occurrence of the known keys (and their encoded forms) in text. */
export class Redactor {
  readonly #given: readonly string[];
  readonly #keys: readonly string[];
  readonly #echoes: readonly Echo[];

  /** Makes a redactor for these keys (empty strings are ignored). */
  constructor(keys: readonly string[] = []) {
    this.#given = [...new Set(keys.filter((key) => key.length > 0))];
    const real = this.#given.filter((key) => key.length >= 8);
    // Longest first, so that a key containing another is masked whole.
    this.#keys = [...new Set([...this.#given, ...real.flatMap(encodedForms)])]
      .sort((a, b) => b.length - a.length);
    this.#echoes = real.map((key) => ({ tail: key.slice(-4), mask: maskKey(key) }));
  }

  /** Returns a redactor that also knows `keys`. */
  with(keys: readonly string[]): Redactor {
    return new Redactor([...this.#given, ...keys]);
  }

  /**
   * Returns `text` with every occurrence of every key, and every masked echo
   * of one, replaced by its mask. Occurrences are found in the original
   * text first, so overlapping keys are masked whole, together.
   */
  redact(text: string): string {
    const ranges: { start: number; end: number; key: string }[] = [];
    for (const key of this.#keys) {
      for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + 1)) {
        ranges.push({ start: at, end: at + key.length, key });
      }
    }
    let result = text;
    if (ranges.length > 0) {
      ranges.sort((a, b) => a.start - b.start || b.end - a.end);
      let out = "";
      let cursor = 0;
      for (let i = 0; i < ranges.length;) {
        let { start, end, key } = ranges[i];
        // Merge every range that overlaps or touches this one; the mask shows the tail of the last.
        for (i++; i < ranges.length && ranges[i].start < end; i++) {
          if (ranges[i].end > end) ({ end, key } = ranges[i]);
        }
        out += text.slice(cursor, start) + maskKey(key);
        cursor = end;
      }
      result = out + text.slice(cursor);
    }
    if (this.#echoes.length > 0 && result.includes("***")) {
      result = maskEchoes(result, this.#echoes);
    }
    return result;
  }

  /** Tells whether `text` contains any of the keys. */
  containsKey(text: string): boolean {
    return this.#keys.some((key) => text.includes(key));
  }
}
