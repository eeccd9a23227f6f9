/**
 * Terminal escape sequences taken out of a program's output, so a model or the user reads the
 * text the program meant. Pure.
 *
 * @module
 */

/** CSI sequences (`ESC [` or U+009B), OSC sequences (`ESC ]` … BEL or `ESC \`), two-byte `ESC x`. */
const ANSI =
  // deno-lint-ignore no-control-regex
  /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[\x20-\x2f]*[\x30-\x7e]/g;

/** `text` without its terminal escape sequences. Never throws. */
export function stripAnsi(text: string): string {
  return text.includes("\x1b") || text.includes("\x9b") ? text.replace(ANSI, "") : text;
}
