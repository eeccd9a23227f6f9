/**
 * A model's answer that is not valid UTF-8, said where: code-commit
 * refuses it (a failed attempt, never retried) rather than write its files
 * with the bad bytes turned into U+FFFD replacement characters without a
 * word.
 *
 * @module
 */

/** The file blocks' marker lines, as they appear in the answer's JSON (`\n` escaped). */
const MARKER = /\^\^\^([^\s"\\^][^\s"\\]*)\\n/g;

/**
 * The message for an answer whose bytes `body` are not valid UTF-8 from
 * `offset` on: the byte offset, and the file block it falls in when the
 * text before it shows one (`^^^path` opened and not closed). Never throws.
 */
export function invalidUtf8Message(body: Uint8Array, offset: number): string {
  const before = new TextDecoder().decode(body.subarray(0, offset));
  let block: string | undefined;
  for (const match of before.matchAll(MARKER)) {
    block = match[1] === "end" || match[1] === "delete" ? undefined : match[1];
  }
  const where = block === undefined ? "" : ` (in the block of the file ${block})`;
  return `the reply is not valid UTF-8: byte ${offset} of its body${where} is not part of a ` +
    "UTF-8 character; refused (its files are never written with bytes replaced): ask again";
}
