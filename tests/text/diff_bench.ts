/**
 * Line diffs at the sizes a model can write: a reply of 128k tokens is
 * about 512 KB, here a file of that size (about 16,000 lines of code) with
 * one line changed, a hundred lines changed here and there, and every line
 * rewritten; counted as text, as bytes, and as a unified diff.
 */
import { countByteLineChanges, countLineChanges, unifiedDiff } from "../../lib/text/diff.ts";

/** About 512 KB of code-like lines. */
const LINES = 16_000;
const lines = Array.from(
  { length: LINES },
  (_, i) => `  const value${i} = compute(${i}, "a string of some length"); // ${i}`,
);
const before = `${lines.join("\n")}\n`;
const one = [...lines];
one[LINES / 2] = "  changed();";
const scattered = lines.map((line, i) => (i % 160 === 7 ? `${line} // edited` : line));
const rewritten = lines.map((line) => line.replace("const", "let"));
const afters = {
  "one line changed": `${one.join("\n")}\n`,
  "100 lines changed here and there": `${scattered.join("\n")}\n`,
  "every line rewritten": `${rewritten.join("\n")}\n`,
};
const encoder = new TextEncoder();
const beforeBytes = encoder.encode(before);

for (const [name, after] of Object.entries(afters)) {
  const afterBytes = encoder.encode(after);
  Deno.bench(`countLineChanges, 512 KB, ${name}`, { group: name }, () => {
    countLineChanges(before, after);
  });
  Deno.bench(`countByteLineChanges, 512 KB, ${name}`, { group: name }, () => {
    countByteLineChanges(beforeBytes, afterBytes);
  });
  Deno.bench(`unifiedDiff, 512 KB, ${name}`, { group: name }, () => {
    unifiedDiff("src/big.ts", before, after);
  });
}
