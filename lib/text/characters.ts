/**
 * Characters that must never pass unnoticed, in one place: what a control
 * character is, what an invisible formatting character is, and how a
 * message or the terminal shows either. The path syntax check, the
 * `ModuleDependencies.md` parser, the key reader, the console and every
 * path shown to the user follow these rules. Pure.
 *
 * @module
 */

/**
 * THE control characters, one rule for the whole tool: C0 (U+0000–U+001F),
 * DEL and C1 (U+007F–U+009F), and the Unicode line and paragraph separators
 * (U+2028, U+2029), which end a line in JavaScript and in some terminals.
 */
const CONTROL_CLASS = "\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029";

/**
 * Invisible and formatting characters: zero-width spaces and joiners, the
 * bidirectional controls, the byte order mark, ... (Unicode's
 * Default_Ignorable_Code_Point and Cf). HFS+ skips several of them in names
 * (`.g\u200cit` is `.git`), and on a terminal they disguise text.
 */
const INVISIBLE_CLASS = "\\p{Default_Ignorable_Code_Point}\\p{Cf}";

/**
 * The bidirectional embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069): on a terminal they reorder what follows them.
 */
const BIDI_CLASS = "\\u202a-\\u202e\\u2066-\\u2069";

const CONTROL = new RegExp(`[${CONTROL_CLASS}]`, "u");
/** What the terminal must not receive raw: every control character but tab and line feed, and bidi controls. */
const UNPRINTABLE = new RegExp(`(?![\\t\\n])[${CONTROL_CLASS}]|[${BIDI_CLASS}]`, "gu");

/**
 * The patterns with Unicode property classes, made when first needed: V8
 * builds their character sets from ICU's data, which a run whose text is
 * plain ASCII never needs.
 */
const unicode = (() => {
  let made: { invisible: RegExp; unsafeInPath: RegExp; escapedInPath: RegExp } | undefined;
  return () =>
    made ??= {
      invisible: new RegExp(`[${INVISIBLE_CLASS}]`, "u"),
      /** What makes a path need quoting: white space, a control or invisible character, a quote. */
      unsafeInPath: new RegExp(`[\\s${CONTROL_CLASS}${INVISIBLE_CLASS}"]`, "u"),
      /** What is escaped in a quoted path (JSON has escaped C0, quotes, backslashes and lone surrogates). */
      escapedInPath: new RegExp(`[${CONTROL_CLASS}${INVISIBLE_CLASS}]`, "gu"),
    };
})();

/** Printable ASCII but the space and `"`: no control, invisible or white space character, no quote. */
const PLAIN = /^[\x21\x23-\x7e]*$/;

/** The first control character of `text` (see the rule above), or `undefined`. Never throws. */
export function findControlCharacter(text: string): string | undefined {
  return CONTROL.exec(text)?.[0];
}

/** The first invisible or formatting character of `text`, or `undefined`. Never throws. */
export function findInvisibleCharacter(text: string): string | undefined {
  if (PLAIN.test(text)) return undefined;
  return unicode().invisible.exec(text)?.[0];
}

/** The name of the first code point of `character`, as messages write it: `U+001B`. Never throws. */
export function codePointName(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/** `character` (one UTF-16 unit) as a visible escape: `\u001b`. Never throws. */
function escaped(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * `text` safe for a terminal: every control character except tab and line
 * feed, and every bidirectional control, shown as a visible `\u001b`-style
 * escape. A model's comment or an API's message holding `ESC [1A` could
 * otherwise rewrite a line already printed ("build passed"), and `ESC ] 52`
 * could write the clipboard. Never throws.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escaped);
}

/**
 * A path for a message, safely: as it is, or JSON-quoted when it is empty,
 * not valid Unicode (a lone surrogate), or holds white space, a control or
 * invisible character, or a quote, with every such character escaped as
 * `\uXXXX` so nothing reaches the terminal raw. Never throws.
 */
export function displayPath(path: string): string {
  if (path !== "" && PLAIN.test(path)) return path;
  if (path !== "" && path.isWellFormed() && !unicode().unsafeInPath.test(path)) return path;
  return JSON.stringify(path).replace(unicode().escapedInPath, escaped);
}
