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
  const prose: string[] = [];
  const add = (line: string) => {
    if (FENCE.test(line)) return;
    const trimmed = line.trimEnd();
    if (trimmed === "" && (prose.length === 0 || prose.at(-1) === "")) return;
    prose.push(trimmed);
  };
  // Only the text between items is split into lines (a large reply is almost all blocks).
  let from = 0;
  for (const span of scan.spans) {
    // Whole lines, each ending with a newline: the piece after the last one is empty.
    const lines = scan.text.slice(from, span.start).split("\n");
    for (let index = 0; index < lines.length - 1; index++) add(lines[index]);
    from = span.end;
  }
  for (const line of scan.text.slice(from).split("\n")) add(line);
  while (prose.at(-1) === "") prose.pop();
  return prose;
}
