import assert from "node:assert/strict";
import { join } from "node:path";
import { assembleChosenFiles, parseFileList } from "../../lib/context_builder/chosen_files.ts";
import { IgnoreRules } from "../../lib/guard/ignore_rules.ts";
import { withProject, writeFiles } from "../support/project.ts";

/** The largest file a prompt shows: 1 MiB. */
const MAX_FILE_BYTES = 1024 * 1024;

Deno.test("assembleChosenFiles pastes the allowed files in list order, each once, and drops the rest", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, {
      ".gitignore": "/agent-config\n*.key\n",
      "b.ts": "b\n",
      "src/a.ts": "a",
      "src/empty.ts": "",
      "src/x.key": "secret\n",
      "agent-config/query.txt": "query\n",
    });
    const rules = await IgnoreRules.load(root);
    const codebase = await assembleChosenFiles(root, [
      "src/a.ts",
      "src/x.key",
      "b.ts",
      "./src/a.ts",
      "agent-config/query.txt",
      "src/empty.ts",
      "../b.ts",
      "nope.ts",
    ], rules);
    assert.equal(codebase.text, "--- src/a.ts ---\na\n--- b.ts ---\nb\n--- src/empty.ts ---\n");
    assert.deepEqual(codebase.included, ["src/a.ts", "b.ts", "src/empty.ts"]);
    assert.deepEqual(codebase.dropped.map((drop) => drop.path), [
      "src/x.key",
      "agent-config/query.txt",
      "../b.ts",
      "nope.ts",
    ]);
    assert.match(codebase.dropped[0].reason, /is ignored by \.gitignore: the rule `\*\.key`/);
    assert.match(codebase.dropped[1].reason, /may not be read/);
    assert.match(codebase.dropped[2].reason, /`\.\.` segment/);
    assert.match(codebase.dropped[3].reason, /does not exist/);
  });
});

Deno.test("assembleChosenFiles of no paths is empty", async () => {
  await withProject({}, async (root) => {
    const codebase = await assembleChosenFiles(root, [], await IgnoreRules.load(root));
    assert.deepEqual(codebase, { text: "", included: [], dropped: [] });
  });
});

Deno.test("assembleChosenFiles names a binary or oversized file with a note instead of its content", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, { "a.ts": "a\n" });
    await Deno.writeFile(join(root, "logo.png"), new Uint8Array([0x89, 0x50, 0, 1]));
    await Deno.writeFile(join(root, "big.txt"), new Uint8Array(MAX_FILE_BYTES + 1).fill(0x61));
    const rules = await IgnoreRules.load(root);
    const codebase = await assembleChosenFiles(
      root,
      ["logo.png", "a.ts", "big.txt", "./logo.png"],
      rules,
    );
    assert.equal(
      codebase.text,
      "--- logo.png ---\n(its content is not shown: it is a binary file (it holds NUL bytes))\n" +
        "--- a.ts ---\na\n" +
        "--- big.txt ---\n(its content is not shown: it is 1.0 MiB, more than the 1 MiB a file " +
        "may have in a prompt)\n",
    );
    assert.deepEqual(codebase.included, ["a.ts"]);
    assert.deepEqual(codebase.dropped.map((drop) => drop.path), ["logo.png", "big.txt"]);
  });
});

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
