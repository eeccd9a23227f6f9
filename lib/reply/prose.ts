/**
 * The words of a reply outside its `^^^` file blocks: what the model says to
 * the user ("no change is needed", "I could not find the file"), shown on
 * the terminal so a reply that changes nothing is not silent. Pure: no I/O.
 *
 * @module
 */

import { scanBlocks } from "./blocks.ts";

/** A line that only opens or closes a markdown code fence (models wrap blocks in them). */
const FENCE = /^\s*(```+|~~~+)[\w.+-]*\s*$/;

/**
 * The lines of `text` outside every file block and marker line, without
 * markdown fence lines, runs of blank lines squeezed to one, and blank lines
 * at either end removed; `[]` when the reply is nothing but blocks. Control
 * characters are left as they are: the console shows them as escapes.
 * Never throws.
 */
export function replyProse(text: string): string[] {
  const scan = scanBlocks(text);
  const inside = new Uint8Array(scan.lines.length + 2);
  for (const item of scan.items) {
    const last = item.kind === "block" ? item.lastLine : item.line;
    for (let line = item.line; line <= last; line++) inside[line] = 1;
  }
  const prose: string[] = [];
  scan.lines.forEach((line, index) => {
    if (inside[index + 1] || FENCE.test(line)) return;
    const trimmed = line.trimEnd();
    if (trimmed === "" && (prose.length === 0 || prose.at(-1) === "")) return;
    prose.push(trimmed);
  });
  while (prose.at(-1) === "") prose.pop();
  return prose;
}
