/**
 * Characters that must never pass unnoticed: what a control or an invisible formatting character
 * is, and how a message or the terminal shows either. Pure.
 *
 * @module
 */

/** THE control characters for the whole tool: C0, DEL, C1, and U+2028/U+2029 (they end lines). */
const CONTROL_CLASS = "\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029";

/** Invisible and formatting characters: HFS+ skips some in names, and they disguise text. */
const INVISIBLE_CLASS = "\\p{Default_Ignorable_Code_Point}\\p{Cf}";

/** The bidi embeddings, overrides and isolates: on a terminal they reorder what follows. */
const BIDI_CLASS = "\\u202a-\\u202e\\u2066-\\u2069";

const CONTROL = new RegExp(`[${CONTROL_CLASS}]`, "u");
/** What the terminal must not receive raw: every control character but tab and line feed, and bidi controls. */
const UNPRINTABLE = new RegExp(`(?![\\t\\n])[${CONTROL_CLASS}]|[${BIDI_CLASS}]`, "gu");

/** The patterns with Unicode property classes, made when first needed (they load ICU data). */
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

/** The first control character of `text`, or `undefined`. Never throws. */
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

/** `character` (one UTF-16 unit) as a visible escape: `\u001b`. */
function escaped(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * `text` safe for a terminal: controls but tab and line feed, and bidi controls, escaped. Raw,
 * `ESC [1A` could rewrite a printed line ("build passed"), `ESC ] 52` write the clipboard.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escaped);
}

/**
 * A path for a message: as it is, or JSON-quoted with every control or invisible character
 * escaped when it is empty, not valid Unicode, or holds white space, such a character or a quote.
 */
export function displayPath(path: string): string {
  if (path !== "" && PLAIN.test(path)) return path;
  if (path !== "" && path.isWellFormed() && !unicode().unsafeInPath.test(path)) return path;
  return JSON.stringify(path).replace(unicode().escapedInPath, escaped);
}
