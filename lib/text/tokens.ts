/**
 * The one token estimate: about one token per 4 bytes of UTF-8, without a tokenizer. Pure.
 *
 * @module
 */

/** Estimated tokens of `bytes` bytes of text. Never throws. */
export function tokensOfBytes(bytes: number): number {
  return Math.round(bytes / 4);
}

/** Estimated tokens of `text` (its UTF-8 length, see {@link tokensOfBytes}). Never throws. */
export function estimateTokens(text: string): number {
  return tokensOfBytes(utf8Length(text));
}

/** The UTF-8 length of `text`, without encoding it (a lone surrogate is 3). Never throws. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    bytes += code < 0x800 ? 1 : 2;
    // A surrogate pair is 2 UTF-16 units and 4 bytes; a lone surrogate is 3, as U+FFFD.
    if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
  }
  return bytes;
}
