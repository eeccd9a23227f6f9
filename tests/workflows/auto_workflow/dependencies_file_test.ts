/**
 * Tests of the `ModuleDependencies.md` parser: one data-driven table of
 * files and the exact dependencies and problems each gives.
 */
import assert from "node:assert/strict";
import {
  DEPENDENCIES_HEADER,
  parseDependencyList,
} from "../../../lib/workflows/auto_workflow/dependencies_file.ts";

interface Case {
  readonly name: string;
  readonly text: string;
  readonly dependencies: readonly string[];
  /** Each expected problem, matched as a pattern against the problem at the same index. */
  readonly problems: readonly RegExp[];
}

const H = `${DEPENDENCIES_HEADER}\n\n`;

const CASES: readonly Case[] = [
  { name: "no dependency", text: H, dependencies: [], problems: [] },
  { name: "header only, no newline", text: DEPENDENCIES_HEADER, dependencies: [], problems: [] },
  {
    name: "header and newline only",
    text: `${DEPENDENCIES_HEADER}\n`,
    dependencies: [],
    problems: [],
  },
  {
    name: "a header and two modules",
    text: `${H}src/llm\nsrc/logger\n`,
    dependencies: ["src/llm", "src/logger"],
    problems: [],
  },
  { name: "no final newline", text: `${H}src/llm`, dependencies: ["src/llm"], problems: [] },
  {
    name: "CRLF line ends and trailing spaces",
    text: `${DEPENDENCIES_HEADER}  \r\n\r\nsrc/llm \r\nsrc/a/b\t\r\n`,
    dependencies: ["src/llm", "src/a/b"],
    problems: [],
  },
  {
    name: "trailing blank lines",
    text: `${H}src/llm\n\n\n  \n`,
    dependencies: ["src/llm"],
    problems: [],
  },
  {
    name: "a path that is not under src/ is still well formed (the graph decides)",
    text: `${H}lib/x\n`,
    dependencies: ["lib/x"],
    problems: [],
  },
  {
    name: "empty file",
    text: "",
    dependencies: [],
    problems: [/^line 1 must be exactly "# Module Dependencies", not "" \(the file is empty\)$/],
  },
  {
    name: "wrong header",
    text: "# Dependencies\n\nsrc/llm\n",
    dependencies: [],
    problems: [/^line 1 must be exactly "# Module Dependencies", not "# Dependencies"$/],
  },
  {
    name: "header in another case",
    text: "# module dependencies\n\nsrc/llm\n",
    dependencies: [],
    problems: [/^line 1 must be exactly/],
  },
  {
    name: "header with leading space",
    text: " # Module Dependencies\n\n",
    dependencies: [],
    problems: [/^line 1 must be exactly/],
  },
  {
    name: "path on line 2",
    text: `${DEPENDENCIES_HEADER}\nsrc/llm\n`,
    dependencies: [],
    problems: [/^line 2 must be blank, not "src\/llm": the module paths start on line 3$/],
  },
  {
    name: "blank line between paths",
    text: `${H}src/a\n\nsrc/b\n`,
    dependencies: ["src/a", "src/b"],
    problems: [/^line 4 is blank: list one module path per line/],
  },
  {
    name: "traversal",
    text: `${H}src/../secret\n`,
    dependencies: [],
    problems: [/^line 3: "src\/\.\.\/secret" contains `\.\.`/],
  },
  {
    name: "traversal alone",
    text: `${H}..\n`,
    dependencies: [],
    problems: [/^line 3: "\.\." contains `\.\.`/],
  },
  {
    name: "absolute path",
    text: `${H}/etc/passwd\n`,
    dependencies: [],
    problems: [/^line 3: "\/etc\/passwd" is an absolute path/],
  },
  {
    name: "home path",
    text: `${H}~/src/llm\n`,
    dependencies: [],
    problems: [/^line 3: "~\/src\/llm" is an absolute path/],
  },
  {
    name: "drive letter",
    text: `${H}C:/src/llm\n`,
    dependencies: [],
    problems: [/is an absolute path/],
  },
  {
    name: "backslash",
    text: `${H}src\\llm\n`,
    dependencies: [],
    problems: [/contains a backslash/],
  },
  {
    name: "the root as a dependency",
    text: `${H}.\n`,
    dependencies: [],
    problems: [/^line 3: "\." names the root module, which no module can depend on/],
  },
  {
    name: "leading ./",
    text: `${H}./src/llm\n`,
    dependencies: [],
    problems: [/^line 3: "\.\/src\/llm" is not written as a module path/],
  },
  {
    name: "trailing slash",
    text: `${H}src/llm/\n`,
    dependencies: [],
    problems: [/is not written as a module path/],
  },
  {
    name: "double slash",
    text: `${H}src//llm\n`,
    dependencies: [],
    problems: [/is not written as a module path/],
  },
  {
    name: "leading white space",
    text: `${H}  src/llm\n`,
    dependencies: [],
    problems: [/^line 3: " {2}src\/llm" starts with white space/],
  },
  {
    name: "control character",
    text: `${H}src/l\u0007lm\n`,
    dependencies: [],
    problems: [/^line 3: "src\/l\\u0007lm" contains a control character$/],
  },
  {
    name: "duplicate",
    text: `${H}src/a\nsrc/b\nsrc/a\n`,
    dependencies: ["src/a", "src/b"],
    problems: [/^line 5: src\/a is already listed on line 3: list it once$/],
  },
  {
    name: "every bad line is reported, the good ones kept",
    text: `${H}src/a\n../x\n/abs\nsrc/b\n`,
    dependencies: ["src/a", "src/b"],
    problems: [/^line 4: /, /^line 5: /],
  },
];

for (const testCase of CASES) {
  Deno.test(`parseDependencyList: ${testCase.name}`, () => {
    const result = parseDependencyList(testCase.text);
    assert.deepEqual(result.dependencies.map((d) => d.path), testCase.dependencies);
    assert.equal(
      result.problems.length,
      testCase.problems.length,
      `problems: ${JSON.stringify(result.problems)}`,
    );
    testCase.problems.forEach((pattern, index) => assert.match(result.problems[index], pattern));
  });
}

Deno.test("parseDependencyList: each dependency carries its 1-based line", () => {
  const result = parseDependencyList(`${H}src/a\nsrc/b\n`);
  assert.deepEqual(result.dependencies, [{ path: "src/a", line: 3 }, { path: "src/b", line: 4 }]);
});

Deno.test("parseDependencyList: refuses what the path guard's syntax check refuses", () => {
  for (
    const [bad, reason] of [
      ["src:llm", /^line 3: "src:llm" contains `:`/],
      ["src/BUILD~1", /^line 3: "src\/BUILD~1" has the name `BUILD~1`/],
      ["src/llm.", /^line 3: "src\/llm\." has the name `llm\.`, which ends with `\.`/],
    ] as const
  ) {
    const parsed = parseDependencyList(`${H}${bad}\n`);
    assert.deepEqual(parsed.dependencies, [], bad);
    assert.equal(parsed.problems.length, 1, bad);
    assert.match(parsed.problems[0], reason, bad);
  }
});

Deno.test("parseDependencyList: accepts nested module paths and refuses what could escape", () => {
  assert.deepEqual(parseDependencyList(`${H}src/llm/gemini\nsrc/a-b_c.d\n`), {
    dependencies: [{ path: "src/llm/gemini", line: 3 }, { path: "src/a-b_c.d", line: 4 }],
    problems: [],
  });
  for (const bad of ["..", "src/..", "../src/a", "/src/a", "\\\\server\\share", "D:x", "~"]) {
    const parsed = parseDependencyList(`${H}${bad}\n`);
    assert.deepEqual(parsed.dependencies, [], bad);
    assert.equal(parsed.problems.length, 1, bad);
    assert.match(parsed.problems[0], /^line 3: /, bad);
  }
});
