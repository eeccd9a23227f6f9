import assert from "node:assert/strict";
import { formatReport, REPORT_HEADINGS } from "../../../lib/workflows/consistency_report/report.ts";
import { splitReport } from "../../support/report.ts";

/** The column prose is wrapped to. */
const REPORT_WIDTH = 80;

const [SELF, IMPLEMENTATION, SPEC_ERRORS, CODE_ERRORS, SUGGESTIONS] = REPORT_HEADINGS;

const LONG =
  "The specification says that each request is retried three times, while the client in src/llm/retry.ts gives up after the first failure, so a user on a flaky network sees errors the specification promises to hide.";

/** Lines that are one of the headings, and what follows it on the line. */
const HEADING_LINES: [string, string, string][] = [
  [SELF, SELF, ""],
  ["## User Specification Self Consistency", SELF, ""],
  ["# 1. User Specification Self-Consistency", SELF, ""],
  ["**User Specification Self Consistency**", SELF, ""],
  ["**User Specification Self Consistency:**", SELF, ""],
  ["### **2) Implementation Consistency with User Specification**", IMPLEMENTATION, ""],
  ["Section 3: Errors and Mistakes within the User Specification", SPEC_ERRORS, ""],
  ["III. errors and mistakes within the implementation:", CODE_ERRORS, ""],
  ["5 - SUGGESTIONS AND OTHER IMPORTANT COMMENTARY", SUGGESTIONS, ""],
  ["__Suggestions and Other Important Commentary__", SUGGESTIONS, ""],
  ["Suggestions and Other Important Commentary ##", SUGGESTIONS, ""],
  ["User Specification Self Consistency: it is consistent.", SELF, "it is consistent."],
  ["**User Specification Self Consistency:** it is.", SELF, "it is."],
  ["**User Specification Self Consistency**: it is.", SELF, "it is."],
  ["User Specification Self Consistency - it is.", SELF, "it is."],
];

/** Lines that merely mention a heading. */
const PROSE_LINES = [
  "User Specification Self Consistency is good overall.",
  "The User Specification Self Consistency section is short.",
  "- User Specification Self Consistency: fine",
  "Errors and Mistakes within the Implementations",
  "Errors and Mistakes",
  "",
];

for (const [line, heading, rest] of HEADING_LINES) {
  Deno.test(`formatReport reads the heading ${JSON.stringify(line)}`, () => {
    const formatted = formatReport(`${line}\nbody`);
    assert.equal(formatted.text, `${heading}\n\n${rest === "" ? "" : `${rest} `}body\n`);
    assert.deepEqual(formatted.missing, REPORT_HEADINGS.filter((h) => h !== heading));
  });
}

for (const line of PROSE_LINES) {
  Deno.test(`formatReport leaves prose alone: ${JSON.stringify(line)}`, () => {
    assert.deepEqual(formatReport(line).missing, [...REPORT_HEADINGS]);
  });
}

/** Replies as models write them, and the report each becomes. */
const FORMAT_CASES: { name: string; reply: string; report: string; missing?: string[] }[] = [
  {
    name: "markdown headings become plain heading lines, prose is wrapped",
    reply: [
      "# Consistency Report",
      `## 1. ${SELF}`,
      LONG,
      `## 2. ${IMPLEMENTATION}`,
      "Consistent.",
      `## 3. ${SPEC_ERRORS}`,
      "None.",
      `## 4. ${CODE_ERRORS}`,
      "None.",
      `## 5. ${SUGGESTIONS}`,
      "None.",
    ].join("\n"),
    report: `# Consistency Report

${SELF}

The specification says that each request is retried three times, while the
client in src/llm/retry.ts gives up after the first failure, so a user on a
flaky network sees errors the specification promises to hide.

${IMPLEMENTATION}

Consistent.

${SPEC_ERRORS}

None.

${CODE_ERRORS}

None.

${SUGGESTIONS}

None.
`,
  },
  {
    name: "a heading with text on its line, CRLF, trailing spaces, runs of blank lines",
    reply:
      `**${SELF}:** Mostly   consistent.  \r\nOne more sentence.\r\n\r\n\r\n\r\n**${SUGGESTIONS}**\r\n`,
    report: `${SELF}

Mostly consistent. One more sentence.

${SUGGESTIONS}
`,
    missing: [IMPLEMENTATION, SPEC_ERRORS, CODE_ERRORS],
  },
  {
    name: "list items are wrapped with a hanging indent, code and tables are kept",
    reply: [
      SELF,
      "=".repeat(SELF.length),
      `- ${LONG}`,
      `  1. nested item`,
      "",
      "```ts",
      `const veryLongLine = "${"x".repeat(90)}";`,
      "```",
      "",
      "| file | problem |",
      "|------|---------|",
      "",
      "    indented code stays as it is, however long it happens to be, even past eighty columns",
    ].join("\n"),
    report: `${SELF}

- The specification says that each request is retried three times, while the
  client in src/llm/retry.ts gives up after the first failure, so a user on a
  flaky network sees errors the specification promises to hide.
  1. nested item

\`\`\`ts
const veryLongLine = "${"x".repeat(90)}";
\`\`\`

| file | problem |
|------|---------|

    indented code stays as it is, however long it happens to be, even past eighty columns
`,
    missing: [IMPLEMENTATION, SPEC_ERRORS, CODE_ERRORS, SUGGESTIONS],
  },
  {
    name: "^^^ blocks are kept as text, line for line",
    reply: `${CODE_ERRORS}\nA fix:\n^^^src/a.ts\n${"y".repeat(100)}\n\n^^^end\nDone.`,
    report: `${CODE_ERRORS}

A fix:
^^^src/a.ts
${"y".repeat(100)}

^^^end
Done.
`,
    missing: [SELF, IMPLEMENTATION, SPEC_ERRORS, SUGGESTIONS],
  },
  {
    name: "^^^ blocks end where the reply parser ends them, not at a later ^^^delete",
    reply: `${CODE_ERRORS}\n^^^ src/b.ts\n^^^other\n^^^delete\n${"y".repeat(95)} tail\n^^^end\n` +
      `^^^src/c.ts\n^^^delete\n${"y".repeat(95)} end`,
    report:
      `${CODE_ERRORS}\n\n^^^ src/b.ts\n^^^other\n^^^delete\n${"y".repeat(95)} tail\n^^^end\n` +
      `^^^src/c.ts\n^^^delete\n${"y".repeat(80)}\n${"y".repeat(15)} end\n`,
    missing: [SELF, IMPLEMENTATION, SPEC_ERRORS, SUGGESTIONS],
  },
  {
    name: "a word longer than a line is cut into pieces of 80",
    reply: `${SUGGESTIONS}\n${"a".repeat(75)} - ${"b".repeat(100)} end`,
    report: `${SUGGESTIONS}\n\n${"a".repeat(75)} -\n${"b".repeat(80)}\n${"b".repeat(20)} end\n`,
    missing: [SELF, IMPLEMENTATION, SPEC_ERRORS, CODE_ERRORS],
  },
  { name: "an empty reply", reply: "\n\n  \n", report: "", missing: [...REPORT_HEADINGS] },
];

for (const { name, reply, report, missing } of FORMAT_CASES) {
  Deno.test(`formatReport: ${name}`, () => {
    const formatted = formatReport(reply);
    assert.equal(formatted.text, report);
    assert.deepEqual(formatted.missing, missing ?? []);
  });
}

Deno.test("formatReport never lets a wrapped line start like a list item or a heading", () => {
  // "- " falls at the start of the second line unless the formatter moves a word down with it.
  const reply = `${"word ".repeat(15)}abcd - efgh 1. ijkl ${SELF}: x ${"z ".repeat(40)}`;
  const lines = formatReport(reply).text.trimEnd().split("\n");
  assert.ok(lines.length > 2);
  for (const line of lines.slice(1)) {
    assert.doesNotMatch(line, /^(?:[-+*]|\d+[.)])\s/, line);
    assert.deepEqual(formatReport(line).missing, [...REPORT_HEADINGS], line);
  }
  assert.equal(formatReport(lines.join("\n")).text, lines.join("\n") + "\n");
});

Deno.test("formatReport output: wrapped lines within 80 columns, idempotent, split at its headings", () => {
  for (const { reply } of FORMAT_CASES) {
    const once = formatReport(reply).text;
    assert.equal(formatReport(once).text, once, "formatting twice changes nothing");
    const wrapped = once.split("\n").filter((line) =>
      !/^\s|^[|`^]/.test(line) && !line.includes("x".repeat(90)) && !line.includes("y".repeat(90))
    );
    for (const line of wrapped) assert.ok([...line].length <= REPORT_WIDTH, line);
    assert.deepEqual(splitReport(once).missing, formatReport(reply).missing);
  }
});

Deno.test("a formatted report splits into the five sections in prompt order, whatever the reply's order", () => {
  const report = [
    "Title",
    "",
    `## ${SUGGESTIONS}`,
    "Suggest.",
    "",
    `**${SELF}**`,
    "Self.",
    "",
    "```",
    `## ${CODE_ERRORS}`,
    "```",
    `${IMPLEMENTATION}: Implementation.`,
    "More.",
    `${SPEC_ERRORS}`,
    "---",
    "Spec errors.",
    `# ${CODE_ERRORS}`,
    "",
    "",
  ].join("\n");
  const split = splitReport(formatReport(report).text);
  assert.equal(split.preamble, "Title");
  assert.deepEqual(split.missing, []);
  assert.deepEqual(split.sections, [
    { heading: SELF, text: "Self.\n\n```\n## Errors and Mistakes within the Implementation\n```" },
    { heading: IMPLEMENTATION, text: "Implementation. More." },
    { heading: SPEC_ERRORS, text: "Spec errors." },
    { heading: CODE_ERRORS, text: "" },
    { heading: SUGGESTIONS, text: "Suggest." },
  ]);
});

Deno.test("a formatted report names the missing headings and joins a repeated one", () => {
  const reply = `${SELF}\none\n${CODE_ERRORS}\ntwo\n## ${SELF}\nthree\n`;
  assert.deepEqual(formatReport(reply).missing, [IMPLEMENTATION, SPEC_ERRORS, SUGGESTIONS]);
  const split = splitReport(formatReport(reply).text);
  assert.deepEqual(split.missing, [IMPLEMENTATION, SPEC_ERRORS, SUGGESTIONS]);
  assert.deepEqual(split.sections, [
    { heading: SELF, text: "one\n\nthree" },
    { heading: CODE_ERRORS, text: "two" },
  ]);
  const none = splitReport(formatReport("no headings at all").text);
  assert.deepEqual(none.missing, [...REPORT_HEADINGS]);
  assert.equal(none.preamble, "no headings at all");
});

Deno.test("the sections read back are what the reply said, section for section", () => {
  const reply = REPORT_HEADINGS.map((heading, i) => `### ${i + 1}. **${heading}**\n\n${LONG}\n`)
    .join("\n");
  const split = splitReport(formatReport(reply).text);
  assert.deepEqual(split.missing, []);
  for (const section of split.sections) {
    assert.equal(section.text.replaceAll("\n", " "), LONG);
  }
});
