/**
 * A model's answer that is not valid UTF-8, said where: refused, never written with U+FFFD.
 * @module
 */
import { firstInvalidUtf8 } from "../text/utf8.ts";

/** The file blocks' marker lines, as they appear in the answer's JSON (`\n` escaped). */
const MARKER = /\^\^\^([^\s"\\^][^\s"\\]*)\\n/g;

/** The message for a `body` not UTF-8 at `offset`, naming its file block. Never throws. */
export function invalidUtf8Message(
  body: Uint8Array,
  offset = firstInvalidUtf8(body) ?? body.length,
): string {
  const before = new TextDecoder().decode(body.subarray(0, offset));
  let block: string | undefined;
  for (const match of before.matchAll(MARKER)) {
    block = match[1] === "end" || match[1] === "delete" ? undefined : match[1];
  }
  const where = block === undefined ? "" : ` (in the block of the file ${block})`;
  return `the reply is not valid UTF-8: byte ${offset} of its body${where} is not part of a ` +
    "UTF-8 character; refused (its files are never written with bytes replaced): ask again";
}
