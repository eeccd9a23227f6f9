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
 * Matches an API's own masked echo of a key: some leading characters,
 * asterisks, and the key's last four characters (OpenAI's 401 message
 * spells a rejected key `sk-proj-********abcd`). That shows more of the
 * key than the two characters redaction allows.
 */
function echoPattern(key: string): RegExp {
  const tail = key.slice(-4).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`[\\w-]*\\*{3,}[\\w.-]*?${tail}(?![\\w-])`, "g");
}

/** Replaces every occurrence of the known keys in text. */
export class Redactor {
  readonly #keys: readonly string[];
  readonly #echoes: readonly { pattern: RegExp; mask: string }[];

  /** Makes a redactor for these keys (empty strings are ignored). */
  constructor(keys: readonly string[] = []) {
    // Longest first, so that a key containing another is masked whole.
    this.#keys = [...new Set(keys.filter((key) => key.length > 0))]
      .sort((a, b) => b.length - a.length);
    this.#echoes = this.#keys.filter((key) => key.length >= 8)
      .map((key) => ({ pattern: echoPattern(key), mask: maskKey(key) }));
  }

  /** Returns a redactor that also knows `keys`. */
  with(keys: readonly string[]): Redactor {
    return new Redactor([...this.#keys, ...keys]);
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
    for (const { pattern, mask } of this.#echoes) {
      if (result.includes("***")) result = result.replace(pattern, () => mask);
    }
    return result;
  }

  /** Tells whether `text` contains any of the keys. */
  containsKey(text: string): boolean {
    return this.#keys.some((key) => text.includes(key));
  }
}
