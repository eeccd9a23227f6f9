/**
 * The words of a reply outside its file blocks, so a reply that changes nothing is not silent.
 * @module
 */
import { scanBlocks } from "./blocks.ts";

// Models wrap blocks in markdown fences.
const FENCE = /^\s*(```+|~~~+)[\w.+-]*\s*$/;

/**
 * The lines of `text` outside every file block and marker line, without fence lines, blank
 * runs squeezed and ends trimmed (control characters kept: the console escapes them). Never throws.
 */
export function replyProse(text: string): string[] {
  const { lines, items } = scanBlocks(text);
  const prose: string[] = [];
  const add = (line: string) => {
    if (FENCE.test(line)) return;
    const trimmed = line.trimEnd();
    if (trimmed === "" && (prose.length === 0 || prose.at(-1) === "")) return;
    prose.push(trimmed);
  };
  let next = 0;
  for (const item of items) {
    for (; next < item.line - 1; next++) add(lines[next]);
    next = item.kind === "block" ? item.lastLine : item.line;
  }
  for (; next < lines.length; next++) add(lines[next]);
  while (prose.at(-1) === "") prose.pop();
  return prose;
}
