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

  /** Returns `text` with every occurrence of every key, and every masked echo of one, replaced by its mask. */
  redact(text: string): string {
    let result = text;
    for (const key of this.#keys) {
      if (result.includes(key)) result = result.split(key).join(maskKey(key));
    }
    for (const { pattern, mask } of this.#echoes) {
      if (result.includes("***")) result = result.replace(pattern, mask);
    }
    return result;
  }

  /** Tells whether `text` contains any of the keys. */
  containsKey(text: string): boolean {
    return this.#keys.some((key) => text.includes(key));
  }
}
