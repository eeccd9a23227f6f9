/**
 * Tests of the latest output line of a build: lines ended by LF, CRLF or
 * CR, pieces cut anywhere, blank lines skipped, ANSI escapes removed.
 */
import assert from "node:assert/strict";
import { LatestLine } from "../../lib/console/latest_line.ts";

/** Name, output, the latest line. */
const CASES: [string, string, string][] = [
  ["nothing yet", "", ""],
  ["a line being written", "Compiling a", "Compiling a"],
  ["the last line ended", "one\ntwo\n", "two"],
  ["blank lines after it are skipped", "one\ntwo\n\n  \n", "two"],
  ["the line being written wins when it shows something", "one\ntwo\nthr", "thr"],
  ["CRLF", "one\r\ntwo\r\n", "two"],
  ["a progress bar redrawn with CR", "50%\r75%\r100%", "100%"],
  ["colours removed", "\x1b[1;32mok\x1b[0m 3 tests\n", "ok 3 tests"],
  ["a title sequence removed", "\x1b]0;title\x07built\n", "built"],
  ["a line of escapes only shows nothing", "done\n\x1b[2K\x1b[0m\n", "done"],
  ["other controls are left for the console", "a\x07b\n", "a\x07b"],
];

for (const [name, output, expected] of CASES) {
  Deno.test(`latest line: ${name}`, () => {
    for (let cut = 0; cut <= output.length; cut++) {
      const latest = new LatestLine();
      latest.add(output.slice(0, cut));
      latest.add(output.slice(cut));
      assert.equal(latest.line(), expected, `cut at ${cut}`);
    }
  });
}

Deno.test("latest line: a line without end is kept to 4096 characters", () => {
  const latest = new LatestLine();
  for (let i = 0; i < 100; i++) latest.add("y".repeat(1000));
  assert.equal(latest.line().length, 4096);
  latest.add("\nnext\n");
  assert.equal(latest.line(), "next");
});

Deno.test("latest line: CSI, OSC, two-character and unfinished sequences removed", () => {
  const latest = new LatestLine();
  latest.add("\x1b[31mred\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1bMx \x1b[");
  assert.equal(latest.line(), "red link x");
});
