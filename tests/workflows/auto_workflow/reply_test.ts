/**
 * Tests of the status parser: one table of replies and what each says; and
 * of the words shown from a reply, without its status tag and comment.
 */
import assert from "node:assert/strict";
import {
  parseStatusReply,
  proseWithoutStatus,
  type Status,
} from "../../../lib/workflows/auto_workflow/reply.ts";

type Expected =
  | { status: Status; comment?: string; fileBlocks?: number }
  | { reason: RegExp };

const CASES: readonly [string, string, Expected][] = [
  ["task-success alone", "@@@@task-success@@@@", { status: "task-success" }],
  ["changes-requested with prose", "Looks bad.\n@@@@changes-requested@@@@\n", {
    status: "changes-requested",
  }],
  ["changes-attempted inline", "Done: @@@@changes-attempted@@@@.", { status: "changes-attempted" }],
  ["no tag", "All good!", { reason: /^the reply has no status tag: it must hold exactly one of/ }],
  ["empty reply", "", { reason: /no status tag/ }],
  ["a misspelt tag", "@@@task-success@@@", { reason: /no status tag/ }],
  ["a tag in another case", "@@@@Task-Success@@@@", { reason: /no status tag/ }],
  [
    "two different tags",
    "@@@@task-success@@@@ @@@@changes-requested@@@@",
    { reason: /^the reply has 2 status tags \(@@@@task-success@@@@, @@@@changes-requested@@@@\)/ },
  ],
  [
    "the same tag twice",
    "@@@@task-success@@@@\n@@@@task-success@@@@",
    { reason: /has 2 status tags/ },
  ],
  [
    "a tag mentioned inside the comment counts",
    "@@@@changes-requested@@@@\n%%%%comment%%%%\nnot @@@@task-success@@@@\n%%%%end%%%%",
    { reason: /has 2 status tags/ },
  ],
  [
    "a comment",
    "@@@@changes-requested@@@@\n%%%%comment%%%%\nLine one.\n  Line two.\n%%%%end%%%%\n",
    { status: "changes-requested", comment: "Line one.\n  Line two." },
  ],
  [
    "a comment before the tag, with blank edges",
    "%%%%comment%%%%\n\n  \nNote.  \n\n%%%%end%%%%\n@@@@task-success@@@@",
    { status: "task-success", comment: "Note." },
  ],
  [
    "a one-line comment",
    "@@@@task-success@@@@ %%%%comment%%%% fine %%%%end%%%%",
    { status: "task-success", comment: "fine" },
  ],
  [
    "an empty comment",
    "@@@@task-success@@@@\n%%%%comment%%%%\n%%%%end%%%%",
    { status: "task-success", comment: "" },
  ],
  [
    "two comments",
    "@@@@task-success@@@@\n%%%%comment%%%%\na\n%%%%end%%%%\n%%%%comment%%%%\nb\n%%%%end%%%%",
    { reason: /^the reply has 2 comment sections; at most one is allowed$/ },
  ],
  [
    "an unclosed comment",
    "@@@@task-success@@@@\n%%%%comment%%%%\nno end",
    { reason: /^the reply's comment is malformed/ },
  ],
  [
    "a close without an opening",
    "@@@@task-success@@@@\ntext\n%%%%end%%%%",
    { reason: /comment is malformed/ },
  ],
  [
    "a close before the opening",
    "@@@@task-success@@@@\n%%%%end%%%%\n%%%%comment%%%%\nx\n",
    { reason: /comment is malformed/ },
  ],
  [
    "two closes",
    "@@@@task-success@@@@\n%%%%comment%%%%\nx\n%%%%end%%%%\n%%%%end%%%%",
    { reason: /comment is malformed/ },
  ],
  [
    "tags and markers inside a file block are file content",
    "^^^src/tags.ts\nexport const T = '@@@@task-success@@@@';\n// %%%%comment%%%%\n^^^end\n" +
    "@@@@changes-attempted@@@@\n",
    { status: "changes-attempted", fileBlocks: 1 },
  ],
  [
    "a tag only inside a file block is no tag",
    "^^^a.txt\n@@@@task-success@@@@\n^^^end\n",
    { reason: /no status tag/ },
  ],
  [
    "a delete block ends at ^^^delete",
    "^^^old.ts\n^^^delete\n@@@@changes-attempted@@@@\n",
    { status: "changes-attempted", fileBlocks: 1 },
  ],
  [
    "an unterminated block runs to the end",
    "@@@@changes-attempted@@@@\n^^^a.txt\n@@@@task-success@@@@\n",
    { status: "changes-attempted", fileBlocks: 1 },
  ],
  [
    "CRLF replies",
    "^^^a.txt\r\n@@@@task-success@@@@\r\n^^^end\r\n@@@@changes-attempted@@@@\r\n",
    { status: "changes-attempted", fileBlocks: 1 },
  ],
  [
    "stray ^^^end outside a block is not a header",
    "^^^end\n@@@@task-success@@@@\n",
    { status: "task-success", fileBlocks: 0 },
  ],
];

for (const [name, reply, expected] of CASES) {
  Deno.test(`parseStatusReply: ${name}`, () => {
    const result = parseStatusReply(reply);
    if ("reason" in expected) {
      assert.ok(!result.ok, `expected an error, got ${JSON.stringify(result)}`);
      assert.match(result.reason, expected.reason);
    } else {
      assert.ok(result.ok, `expected a status, got ${JSON.stringify(result)}`);
      assert.equal(result.status, expected.status);
      assert.equal(result.comment, expected.comment);
      assert.equal(result.fileBlocks, expected.fileBlocks ?? 0);
    }
  });
}

Deno.test("parseStatusReply: a block inside the comment is blanked line for line, its tag not counted", () => {
  const reply =
    "@@@@task-success@@@@\n%%%%comment%%%%\nbefore\n^^^a.ts\n@@@@changes-requested@@@@\n" +
    "^^^end\nafter\n%%%%end%%%%\n";
  assert.deepEqual(parseStatusReply(reply), {
    ok: true,
    status: "task-success",
    comment: "before\n\n\n\nafter",
    fileBlocks: 1,
  });
});

Deno.test("proseWithoutStatus leaves out the status tag and the comment, which are printed apart", () => {
  assert.deepEqual(
    proseWithoutStatus(
      "I rewrote it.\n\n^^^src/a.ts\n@@@@task-success@@@@\n^^^end\n\n@@@@changes-attempted@@@@\n" +
        "%%%%comment%%%%\nWrote greet.\n%%%%end%%%%\n\nBye.\n",
    ),
    ["I rewrote it.", "", "Bye."],
  );
  assert.deepEqual(
    proseWithoutStatus("@@@@changes-attempted@@@@\n%%%%comment%%%%\nWrote greet.\n%%%%end%%%%\n"),
    [],
  );
  assert.deepEqual(proseWithoutStatus("Done: @@@@task-success@@@@."), ["Done: ."]);
  // A comment never closed is not a comment: its words stay.
  assert.deepEqual(proseWithoutStatus("%%%%comment%%%%\nhalf"), ["%%%%comment%%%%", "half"]);
});
