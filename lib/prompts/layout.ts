/**
 * How every prompt is laid out: `[label]` sections, parts joined by a blank line.
 * @module
 */

/** A data section: a `[label]` line, then the text. Never throws. */
export function section(label: string, text: string): string {
  return `[${label}]\n${text}`;
}

/** Joins prompt parts with one blank line between them (each part ends with a newline). Never throws. */
export function joinPrompt(parts: readonly string[]): string {
  return parts.map((part) => part.endsWith("\n") ? part : `${part}\n`).join("\n");
}
