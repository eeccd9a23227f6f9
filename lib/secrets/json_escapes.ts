/**
 * JSON string escapes decoded wherever they stand in a text (JSON or not), with the way back to
 * each escape: a key written `\u0073k-\u0070roj-…` is found decoded and masked where it stood.
 * @module
 */

/** A text with its JSON escapes decoded. */
export interface DecodedText {
  readonly text: string;
  /** Where the decoded character at `at` (or the end) starts in the text decoded. Never throws. */
  source(at: number): number;
}

/** What each single-character escape stands for, as `JSON.parse` decodes it. */
const SIMPLE: Readonly<Record<string, string>> = Object.fromEntries(
  [...'"\\/bfnrt'].map((letter) => [letter, JSON.parse(`"\\${letter}"`)]),
);

const HEX4 = /^[0-9a-fA-F]{4}$/;

/** The character the `\uXXXX` escape at `at` stands for, if one is there. */
function unicodeEscape(text: string, at: number): string | undefined {
  const hex = text.slice(at + 2, at + 6);
  return text[at + 1] === "u" && HEX4.test(hex)
    ? String.fromCharCode(parseInt(hex, 16))
    : undefined;
}

/**
 * Where `text` holds an escape that may stand for one of `characters` (the keys' and forms'): a `\u`
 * escape of one, a `\/`, any backslash when they hold what a short escape writes.
 */
function* escapeSites(text: string, characters: ReadonlySet<string>): Generator<number> {
  if (characters.size === 0) return;
  const any = Object.values(SIMPLE).some((short) => short !== "/" && characters.has(short));
  for (let at = text.indexOf("\\"); at !== -1; at = text.indexOf("\\", at + 1)) {
    const character = text[at + 1] === "/" ? "/" : unicodeEscape(text, at);
    if (any || (character !== undefined && characters.has(character))) yield at;
  }
}

/** Whether `text` may hold an escape of one of `characters` (see {@link escapeSites}). Never throws. */
export function mayHoldKeyEscapes(text: string, characters: ReadonlySet<string>): boolean {
  return !escapeSites(text, characters).next().done;
}

/** The longest escaped text of one character, three levels deep (`\\\\u0041`). */
const LONGEST_ESCAPE = 8;

/**
 * The stretches around each escape that may stand for one of `characters`, wide enough for a key of
 * `longest` characters in the longest escapes, widened not to cut a run of them, joined, in order.
 */
export function keyEscapeWindows(
  text: string,
  characters: ReadonlySet<string>,
  longest: number,
): [number, number][] {
  const reach = LONGEST_ESCAPE * (longest + 2);
  const windows: [number, number][] = [];
  for (const at of escapeSites(text, characters)) {
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

/** Decodes every JSON string escape in `text`, in strings or not; a lone `\` is kept. Never throws. */
export function decodeJsonEscapes(text: string): DecodedText {
  const parts: string[] = [];
  // Per escape: its character's place decoded, its start and end in `text`; between escapes
  // the two texts differ by a constant offset.
  const decodedAt: number[] = [];
  const sourceStart: number[] = [];
  const sourceEnd: number[] = [];
  let cursor = 0;
  let length = 0;
  // After an escape, the next is looked for from its end; after a lone backslash, right after it.
  for (let at = text.indexOf("\\"); at !== -1; at = text.indexOf("\\", Math.max(at + 1, cursor))) {
    const next = text[at + 1];
    const character = next === "u" ? unicodeEscape(text, at) : SIMPLE[next];
    const end = at + (next === "u" ? 6 : 2);
    if (character === undefined) continue;
    parts.push(text.slice(cursor, at), character);
    length += at - cursor;
    decodedAt.push(length);
    sourceStart.push(at);
    sourceEnd.push(end);
    length++;
    cursor = end;
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
