/**
 * JSON string escapes decoded wherever they stand in a text, with the way
 * back from each decoded character to the escape it came from: a key
 * written `\u0073k-\u0070roj-…` (or with `\/` in its base64) is found in
 * the decoded text and masked in the text as it was. The text need not be
 * JSON: an error body, a stream cut in the middle, a log line. Pure.
 *
 * @module
 */

/** A text with its JSON escapes decoded. */
export interface DecodedText {
  /** The decoded text. */
  readonly text: string;
  /**
   * Where the character at `at` of the decoded text starts in the text
   * that was decoded (`at` equal to the decoded length: the end of the
   * text). Maps a stretch `[start, end)` of the decoded text to the
   * stretch of the escaped text that holds exactly its characters. Never
   * throws.
   */
  source(at: number): number;
}

/** What each single-character escape stands for. */
const SIMPLE: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

const HEX4 = /^[0-9a-fA-F]{4}$/;

/**
 * Whether `text` may hold an escape that stands for one of `characters`
 * (the characters of the keys and of their encoded forms): a `\u` escape
 * of one of them, or a `\/` when they hold a slash; any backslash when they
 * hold a character a short escape writes (a quote, a backslash, a control
 * character). A `\u` after an escaped backslash counts too: decoded once
 * more (JSON in a JSON string), it is an escape. Escapes of anything else
 * (`\u00e9`, `\n`, `\"`) cannot hide a key, and text holding only those is
 * not decoded. Never throws.
 */
export function mayHoldKeyEscapes(text: string, characters: ReadonlySet<string>): boolean {
  for (const short of Object.values(SIMPLE)) {
    if (short !== "/" && characters.has(short)) return text.includes("\\");
  }
  for (let at = text.indexOf("\\u"); at !== -1; at = text.indexOf("\\u", at + 2)) {
    const hex = text.slice(at + 2, at + 6);
    if (HEX4.test(hex) && characters.has(String.fromCharCode(parseInt(hex, 16)))) return true;
  }
  return characters.has("/") && text.includes("\\/");
}

/**
 * The longest escaped text of one character, three levels deep: `\u0041`
 * in a JSON string is `\\u0041`, and again `\\\\u0041`.
 */
const LONGEST_ESCAPE = 8;

/**
 * The stretches of `text` around each escape that may stand for one of
 * `characters` (as {@link mayHoldKeyEscapes} tells them), far enough to
 * either side to hold any key of up to `longest` characters written
 * through that escape with the longest escapes, widened so as not to cut
 * a run of `characters` (a key written plainly is in one whole or not at
 * all), overlapping ones joined, in order. Empty when there is no such
 * escape. Never throws.
 */
export function keyEscapeWindows(
  text: string,
  characters: ReadonlySet<string>,
  longest: number,
): [number, number][] {
  const found: number[] = [];
  if (Object.values(SIMPLE).some((short) => short !== "/" && characters.has(short))) {
    for (let at = text.indexOf("\\"); at !== -1; at = text.indexOf("\\", at + 1)) found.push(at);
  } else {
    for (let at = text.indexOf("\\u"); at !== -1; at = text.indexOf("\\u", at + 2)) {
      const hex = text.slice(at + 2, at + 6);
      if (HEX4.test(hex) && characters.has(String.fromCharCode(parseInt(hex, 16)))) found.push(at);
    }
    if (characters.has("/")) {
      for (let at = text.indexOf("\\/"); at !== -1; at = text.indexOf("\\/", at + 2)) {
        found.push(at);
      }
    }
    found.sort((a, b) => a - b);
  }
  const reach = LONGEST_ESCAPE * (longest + 2);
  const windows: [number, number][] = [];
  for (const at of found) {
    let start = Math.max(0, at - reach);
    for (let i = 0; i < longest && start > 0 && characters.has(text[start - 1]); i++) start--;
    let end = Math.min(text.length, at + reach);
    for (let i = 0; i < longest && end < text.length && characters.has(text[end]); i++) end++;
    const last = windows.at(-1);
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else windows.push([start, end]);
  }
  return windows;
}

/**
 * Decodes every JSON string escape in `text` (`\"`, `\\`, `\/`, `\b`,
 * `\f`, `\n`, `\r`, `\t`, `\uXXXX` in either case), inside strings or not;
 * a backslash that starts none (a cut `\u00`, a `\x`) is kept as it is.
 * Never throws.
 */
export function decodeJsonEscapes(text: string): DecodedText {
  const parts: string[] = [];
  // For each escape: where its character stands in the decoded text, and where it starts and
  // ends in `text`. Between two escapes, the two texts differ by a constant offset.
  const decodedAt: number[] = [];
  const sourceStart: number[] = [];
  const sourceEnd: number[] = [];
  let cursor = 0;
  let length = 0;
  for (let at = text.indexOf("\\"); at !== -1;) {
    const next = text[at + 1];
    let character: string | undefined = next === undefined ? undefined : SIMPLE[next];
    let end = at + 2;
    if (next === "u") {
      const hex = text.slice(at + 2, at + 6);
      character = HEX4.test(hex) ? String.fromCharCode(parseInt(hex, 16)) : undefined;
      end = at + 6;
    }
    if (character === undefined) {
      at = text.indexOf("\\", at + 1);
      continue;
    }
    parts.push(text.slice(cursor, at), character);
    length += at - cursor;
    decodedAt.push(length);
    sourceStart.push(at);
    sourceEnd.push(end);
    length++;
    cursor = end;
    at = text.indexOf("\\", end);
  }
  if (decodedAt.length === 0) return { text, source: (at) => at };
  parts.push(text.slice(cursor));
  return {
    text: parts.join(""),
    source(at: number): number {
      // The last escape whose character stands at or before `at`.
      let low = 0;
      let high = decodedAt.length - 1;
      if (decodedAt[0] > at) return at;
      while (low < high) {
        const middle = (low + high + 1) >>> 1;
        if (decodedAt[middle] <= at) low = middle;
        else high = middle - 1;
      }
      return decodedAt[low] === at ? sourceStart[low] : sourceEnd[low] + (at - decodedAt[low] - 1);
    },
  };
}

/** `text` as it stands inside a JSON string: quotes, backslashes and control characters escaped. */
export function escapeJsonString(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}
