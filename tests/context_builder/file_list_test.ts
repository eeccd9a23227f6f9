import assert from "node:assert/strict";
import { parseFileList } from "../../lib/context_builder/file_list.ts";

const ACCEPTED: { name: string; reply: string; paths: string[] }[] = [
  {
    name: "the list alone",
    reply: "%%%files\nsrc/a.ts\nREADME.md\n%%%end\n",
    paths: ["src/a.ts", "README.md"],
  },
  {
    name: "prose before and after",
    reply: "I need these.\n\n%%%files\nsrc/a.ts\n%%%end\n\nGood luck!",
    paths: ["src/a.ts"],
  },
  {
    name: "inside a code fence",
    reply: "```\n%%%files\nsrc/a.ts\n%%%end\n```\n",
    paths: ["src/a.ts"],
  },
  {
    name: "CRLF line ends, markers with white space around",
    reply: "  %%%files  \r\nsrc/a.ts\r\n\t%%%end\r\n",
    paths: ["src/a.ts"],
  },
  {
    name: "paths trimmed, blank lines skipped",
    reply: "%%%files\n\n   src/a.ts   \n\t\n\tsrc/b.ts\n\n%%%end",
    paths: ["src/a.ts", "src/b.ts"],
  },
  {
    name: "duplicates kept once, where first seen, ./ counting as the same path",
    reply: "%%%files\nsrc/a.ts\nsrc/b.ts\n./src/a.ts\nsrc/b.ts\n%%%end",
    paths: ["src/a.ts", "src/b.ts"],
  },
  {
    name: "hostile paths are passed on unchanged (the guard judges them)",
    reply: "%%%files\n../x\n/etc/passwd\nagent-config/gemini-key.txt\n%%%end",
    paths: ["../x", "/etc/passwd", "agent-config/gemini-key.txt"],
  },
  { name: "an empty list", reply: "%%%files\n%%%end\n", paths: [] },
  {
    name: "a markdown list, paths in backticks, inside a fence",
    reply:
      "```\n%%%files\n- `index.js`\n* `lib/a.js`\n+ **README.md**\n-   'x y.txt'\n%%%end\n```\n",
    paths: ["index.js", "lib/a.js", "README.md", "x y.txt"],
  },
  {
    name: "fence lines inside the list are skipped",
    reply: "%%%files\n```text\nsrc/a.ts\n```\n%%%end\n",
    paths: ["src/a.ts"],
  },
  {
    name: "a path that only starts like a list item is kept",
    reply: "%%%files\n-dash.txt\n*.md\n%%%end\n",
    paths: ["-dash.txt", "*.md"],
  },
];

const REFUSED: { name: string; reply: string; reason: RegExp }[] = [
  { name: "no list", reply: "src/a.ts\nsrc/b.ts\n", reason: /has no %%%files line/ },
  { name: "an empty reply", reply: "", reason: /has no %%%files line/ },
  {
    name: "cut off before %%%end",
    reply: "ok\n%%%files\nsrc/a.ts\nsrc/b",
    reason: /opened by %%%files \(line 2\) has no %%%end line; the reply may have been cut off/,
  },
  {
    name: "two lists",
    reply: "%%%files\na\n%%%end\n%%%files\nb\n%%%end\n",
    reason: /has 2 %%%files lines; it must hold exactly one list/,
  },
  {
    name: "a list opened twice",
    reply: "%%%files\na\n%%%files\nb\n%%%end\n",
    reason: /has 2 %%%files lines/,
  },
  {
    name: "two %%%end lines",
    reply: "%%%files\na\n%%%end\nb\n%%%end\n",
    reason: /has 2 %%%end lines/,
  },
  {
    name: "%%%end before %%%files",
    reply: "%%%end\na\n%%%files\n",
    reason: /the %%%end line \(line 1\) comes before the %%%files line \(line 3\)/,
  },
  {
    name: "markers with other text on the line are not markers",
    reply: "Here: %%%files src/a.ts %%%end\n",
    reason: /has no %%%files line/,
  },
  {
    name: "markers in another case are not markers",
    reply: "%%%FILES\na\n%%%END\n",
    reason: /has no %%%files line/,
  },
];

for (const { name, reply, paths } of ACCEPTED) {
  Deno.test(`parseFileList accepts ${name}`, () => {
    assert.deepEqual(parseFileList(reply), { ok: true, paths });
  });
}

for (const { name, reply, reason } of REFUSED) {
  Deno.test(`parseFileList refuses ${name}`, () => {
    const result = parseFileList(reply);
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.reason, reason);
  });
}
