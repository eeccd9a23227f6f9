/**
 * Tests of the reply parser: every fixture in `tests/fixtures/replies/`
 * (`<scenario>.txt` with `<scenario>.expected.json`, the expected ParseResult),
 * then a few properties the fixtures cannot express on their own.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join } from "node:path/posix";
import { parseReply } from "../../lib/reply/parse.ts";

const FIXTURES = fileURLToPath(new URL("../fixtures/replies/", import.meta.url));

/** The scenario names: every `<name>.txt` in the fixtures folder, sorted. */
function scenarios(): string[] {
  const names: string[] = [];
  for (const entry of Deno.readDirSync(FIXTURES)) {
    if (entry.isFile && entry.name.endsWith(".txt")) names.push(entry.name.slice(0, -4));
  }
  return names.sort();
}

for (const name of scenarios()) {
  Deno.test(`parseReply: fixture ${name}`, () => {
    const reply = Deno.readTextFileSync(join(FIXTURES, `${name}.txt`));
    const expectedPath = join(FIXTURES, `${name}.expected.json`);
    const expected = JSON.parse(Deno.readTextFileSync(expectedPath));
    assert.deepEqual(parseReply(reply), expected, `fixture ${name}`);
  });
}

Deno.test("parseReply: every fixture reply has its expected result, and vice versa", () => {
  const files = [...Deno.readDirSync(FIXTURES)].map((entry) => entry.name);
  for (const name of scenarios()) {
    assert.ok(files.includes(`${name}.expected.json`), `${name}.expected.json is missing`);
  }
  for (const file of files.filter((f) => f.endsWith(".expected.json"))) {
    assert.ok(files.includes(file.replace(/\.expected\.json$/, ".txt")), `${file} has no reply`);
  }
  assert.ok(scenarios().length >= 20, "the fixture folder lost scenarios");
});

Deno.test("parseReply: a CRLF reply parses like the same reply with LF", () => {
  const lf = "intro\n^^^a.txt\none\ntwo\n^^^end\n^^^b.txt\n^^^delete\n^^^c.txt\n^^^end\n";
  assert.deepEqual(parseReply(lf.replaceAll("\n", "\r\n")), parseReply(lf));
});

Deno.test("parseReply: a lone carriage return inside content is kept verbatim", () => {
  const result = parseReply("^^^a.txt\nx\ry\n^^^end\n");
  assert.deepEqual(result, {
    ok: true,
    operations: [{ kind: "write", path: "a.txt", content: "x\ry\n" }],
    warnings: [],
  });
});

Deno.test("parseReply: content ends with a newline unless empty", () => {
  for (const body of ["a", "a\nb", "", " ", "\t"]) {
    const result = parseReply(`^^^f.txt\n${body}\n^^^end`);
    assert.ok(result.ok);
    assert.equal(result.operations.length, 1);
    const operation = result.operations[0];
    assert.equal(operation.kind, "write");
    if (operation.kind === "write") assert.equal(operation.content, `${body}\n`);
  }
  const empty = parseReply("^^^f.txt\n^^^end");
  assert.ok(empty.ok);
  assert.deepEqual(empty.operations, [{ kind: "write", path: "f.txt", content: "" }]);
});

Deno.test("parseReply: one operation per path, the last block wins at its position", () => {
  const reply = [
    "^^^x",
    "1",
    "^^^end",
    "^^^y",
    "^^^delete",
    "^^^x",
    "2",
    "^^^end",
    "^^^z",
    "^^^end",
    "^^^y",
    "y",
    "^^^end",
  ].join("\n");
  const result = parseReply(reply);
  assert.ok(result.ok);
  assert.deepEqual(result.operations.map((op) => op.path), ["x", "z", "y"]);
  assert.deepEqual(result.operations[0], { kind: "write", path: "x", content: "2\n" });
  assert.deepEqual(result.operations[2], { kind: "write", path: "y", content: "y\n" });
  assert.equal(result.warnings.length, 2);
  assert.match(result.warnings[0], /"x"/);
  assert.match(result.warnings[1], /"y"/);
});

Deno.test("parseReply: the truncation error names the file that was cut off", () => {
  const result = parseReply("^^^done.ts\nok\n^^^end\n^^^src/half.ts\nexport const a =");
  assert.equal(result.ok, false);
  if (!result.ok) {
    assert.match(result.reason, /"src\/half\.ts"/);
    assert.match(result.reason, /truncated/);
    assert.doesNotMatch(result.reason, /done\.ts/);
  }
});

Deno.test("parseReply: the first error wins and later blocks do not matter", () => {
  const result = parseReply("^^^\nx\n^^^end\n^^^b.ts\nunterminated");
  assert.equal(result.ok, false);
  if (!result.ok) assert.match(result.reason, /^line 1: "\^\^\^" is not followed by a file name/);
});

Deno.test("parseResponse: a path wrapped in backticks, quotes or ** means the bare path, with a warning", () => {
  const cases: [string, string, string][] = [
    ["`src/a.ts`", "src/a.ts", "backticks"],
    ["**src/a.ts**", "src/a.ts", "**"],
    ['"src/a.ts"', "src/a.ts", "double quotes"],
    ["'src/a.ts'", "src/a.ts", "single quotes"],
    ["**`src/a.ts`**", "src/a.ts", "** and backticks"],
    ["``src/a.ts``", "src/a.ts", "backticks and backticks"],
  ];
  for (const [written, bare, how] of cases) {
    const result = parseReply(`Here:\n^^^${written}\nvalue\n^^^end\n`);
    assert.deepEqual(result, {
      ok: true,
      operations: [{ kind: "write", path: bare, content: "value\n" }],
      warnings: [
        `line 2: the path ${JSON.stringify(written)} is wrapped in ${how}; it was read as ${
          JSON.stringify(bare)
        }`,
      ],
    }, written);
  }
  // A delete, and a wrapped path that names the same file as a bare one: the last block wins.
  const mixed = parseReply("^^^`a.ts`\n^^^delete\n^^^a.ts\nx\n^^^end\n");
  assert(mixed.ok);
  assert.deepEqual(mixed.operations, [{ kind: "write", path: "a.ts", content: "x\n" }]);
  assert.equal(mixed.warnings.length, 2);
});

Deno.test("parseResponse: only a whole wrapping is removed", () => {
  for (
    const path of [
      "`a.ts",
      "a.ts`",
      "`",
      "``",
      "****",
      "src/`a`.ts",
      "__init__",
      "*a.ts*",
      "'a.ts\"",
    ]
  ) {
    const result = parseReply(`^^^${path}\nx\n^^^end\n`);
    assert(result.ok);
    assert.equal(result.operations[0].path, path, path);
    assert.deepEqual(result.warnings, [], path);
  }
});
