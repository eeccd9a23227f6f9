import assert from "node:assert/strict";
import { join } from "node:path";
import { applyReply, describeChanges } from "../../../lib/workflows/committing_code/apply_reply.ts";
import { memoryJournal } from "../../../lib/apply/journal.ts";
import type { LlmReply } from "../../../lib/llm/types.ts";
import { Redactor } from "../../../lib/secrets/redact.ts";
import { GEMINI_KEY, OPENAI_KEY, withProject } from "../../support/project.ts";

const REDACTOR = new Redactor([GEMINI_KEY, OPENAI_KEY]);

function reply(text: string, truncated = false): LlmReply {
  return {
    text,
    body: "{}",
    usage: { input: 0, cached: 0, output: 0, thinking: 0 },
    truncated,
    finishReason: truncated ? "MAX_TOKENS" : "STOP",
    elapsedMs: 0,
    attempts: 1,
  };
}

/** The project every test here starts from. */
const PROJECT = { ".gitignore": "/agent-config\n*.secret\n", "src/a.ts": "old\n" };

Deno.test("a good reply is parsed, guarded and applied", async () => {
  await withProject(PROJECT, async (root) => {
    const outcome = await applyReply(
      root,
      reply("^^^./src/a.ts\nnew\n^^^end\n^^^src/b.ts\nb\n^^^end\n"),
      REDACTOR,
      memoryJournal(),
    );
    assert(outcome.ok);
    assert.deepEqual(outcome.changes, [
      { path: "src/a.ts", kind: "replaced" },
      { path: "src/b.ts", kind: "created" },
    ]);
    assert.equal(describeChanges(outcome.changes), "replaced src/a.ts, created src/b.ts");
    assert.equal(await Deno.readTextFile(join(root, "src/a.ts")), "new\n");
  });
});

Deno.test("a file that already holds the reply's content is not written and is named unchanged", async () => {
  await withProject(PROJECT, async (root) => {
    const before = await Deno.lstat(join(root, "src/a.ts"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const outcome = await applyReply(
      root,
      reply("^^^src/a.ts\nold\n^^^end\n^^^src/b.ts\nb\n^^^end\n"),
      REDACTOR,
      memoryJournal(),
    );
    assert(outcome.ok);
    assert.deepEqual(outcome.changes, [{ path: "src/b.ts", kind: "created" }]);
    assert.deepEqual(outcome.unchanged, ["src/a.ts"]);
    assert.equal(
      describeChanges(outcome.changes, outcome.unchanged),
      "created src/b.ts; src/a.ts unchanged (same content)",
    );
    const after = await Deno.lstat(join(root, "src/a.ts"));
    assert.equal(after.ino, before.ino, "not written again");
    assert.equal(after.mtime?.getTime(), before.mtime?.getTime());
  });
});

Deno.test("describeChanges: only unchanged files, and none at all", () => {
  assert.equal(describeChanges([], ["index.js"]), "index.js unchanged (same content)");
  assert.equal(describeChanges([], []), "no file changed");
  const many = Array.from({ length: 22 }, (_, i) => `f${i}`);
  assert.equal(
    describeChanges([], many),
    `${many.slice(0, 20).join(", ")}, and 2 more unchanged (same content)`,
  );
});

Deno.test("truncated, unparsable, refused: nothing written, and the reason says why", async () => {
  const cases: [LlmReply, RegExp][] = [
    [
      reply("^^^src/a.ts\nnew\n^^^end\n", true),
      /cut off at the model's output limit \(finish reason MAX_TOKENS\)/,
    ],
    [reply("^^^src/a.ts\nnew\n"), /src\/a\.ts/],
    [reply("^^^src/a.ts\nnew\n^^^end\n^^^x.secret\ns\n^^^end\n"), /x\.secret.*ignored/s],
    [reply("^^^src/a.ts\nnew\n^^^end\n^^^../x\ns\n^^^end\n"), /\.\./],
  ];
  for (const [bad, reason] of cases) {
    await withProject(PROJECT, async (root) => {
      const outcome = await applyReply(root, bad, REDACTOR, memoryJournal());
      assert(!outcome.ok);
      assert.match(outcome.reason, reason);
      assert.equal(await Deno.readTextFile(join(root, "src/a.ts")), "old\n");
    });
  }
});

Deno.test("a path given twice applies the last block and warns", async () => {
  await withProject(PROJECT, async (root) => {
    const outcome = await applyReply(
      root,
      reply("^^^src/a.ts\none\n^^^end\n^^^src/a.ts\ntwo\n^^^end\n"),
      REDACTOR,
      memoryJournal(),
    );
    assert(outcome.ok);
    assert.equal(outcome.warnings.length, 1);
    assert.match(outcome.warnings[0], /src\/a\.ts/);
    assert.equal(await Deno.readTextFile(join(root, "src/a.ts")), "two\n");
  });
});

Deno.test("a file whose content holds a key, in any form, is refused: nothing written", async () => {
  const encoded = btoa(`K=${OPENAI_KEY}`);
  const forms: [string, string][] = [
    ["the whole key", `const key = "${GEMINI_KEY}";\n`],
    ["12 characters of it", `// ${OPENAI_KEY.slice(3, 15)}\n`],
    ["base64 at an offset", `const auth = "${encoded}";\n`],
  ];
  for (const [name, content] of forms) {
    await withProject(PROJECT, async (root) => {
      const outcome = await applyReply(
        root,
        reply(`^^^src/a.ts\nnew\n^^^end\n^^^src/leak.ts\n${content}^^^end\n`),
        REDACTOR,
        memoryJournal(),
      );
      assert(!outcome.ok, name);
      assert.match(outcome.reason, /refused the reply: 1 path may not be written/, name);
      assert.match(outcome.reason, /src\/leak\.ts: its content holds an API key/, name);
      assert(!REDACTOR.containsKey(outcome.reason), "the reason holds no key");
      assert.equal(await Deno.readTextFile(join(root, "src/a.ts")), "old\n", name);
      await assert.rejects(Deno.lstat(join(root, "src/leak.ts")), Deno.errors.NotFound);
    });
  }
});

Deno.test("a key found only once CRLF line ends are read as the parser reads them is refused", async () => {
  // A key file's whole text, white space inside, is a key too (no run of it is looked for): in a
  // CRLF reply it appears only once the line ends are made line feeds, as the blocks are read.
  const redactor = new Redactor([GEMINI_KEY, "first-line\nsecond"]);
  await withProject(PROJECT, async (root) => {
    const outcome = await applyReply(
      root,
      reply("^^^src/a.ts\r\nnew\r\n^^^end\r\n^^^src/leak.ts\r\nfirst-line\r\nsecond\r\n^^^end\r\n"),
      redactor,
      memoryJournal(),
    );
    assert(!outcome.ok);
    assert.match(outcome.reason, /src\/leak\.ts: its content holds an API key/);
    assert.equal(await Deno.readTextFile(join(root, "src/a.ts")), "old\n");
  });
});

Deno.test("a key and a refused path: both listed once, in reply order", async () => {
  await withProject(PROJECT, async (root) => {
    const outcome = await applyReply(
      root,
      reply(
        `^^^x.secret\n${GEMINI_KEY}\n^^^end\n^^^src/b.ts\n${GEMINI_KEY}\n^^^end\n` +
          "^^^../c\nc\n^^^end\n",
      ),
      REDACTOR,
      memoryJournal(),
    );
    assert(!outcome.ok);
    const lines = outcome.reason.split("\n");
    assert.match(lines[0], /3 paths may not be written/);
    assert.match(lines[1], /x\.secret: .*ignored/);
    assert.match(lines[2], /src\/b\.ts: its content holds an API key/);
    assert.match(lines[3], /\.\.\/c: /);
  });
});

Deno.test("a deleted file or content without a key is not refused for keys", async () => {
  await withProject(PROJECT, async (root) => {
    const outcome = await applyReply(
      root,
      reply(`^^^src/a.ts\n^^^delete\n^^^src/b.ts\n${GEMINI_KEY.slice(0, 11)}\n^^^end\n`),
      REDACTOR,
      memoryJournal(),
    );
    assert(outcome.ok);
  });
});

Deno.test("a write or delete whose path holds a key is refused, and the reason shows it masked", async () => {
  const paths: [string, string][] = [
    ["the whole key, written", `^^^src/${GEMINI_KEY}.txt\nx\n^^^end\n`],
    ["20 characters of it, wrapped", `^^^\`docs/${OPENAI_KEY.slice(0, 20)}.md\`\nx\n^^^end\n`],
    ["12 characters of it, deleted", `^^^src/${GEMINI_KEY.slice(10, 22)}.ts\n^^^delete\n`],
    ["base64 of it as a folder", `^^^${btoa(GEMINI_KEY)}/a.ts\nx\n^^^end\n`],
  ];
  for (const [name, block] of paths) {
    await withProject(PROJECT, async (root) => {
      const outcome = await applyReply(
        root,
        reply(`^^^src/a.ts\nnew\n^^^end\n${block}`),
        REDACTOR,
        memoryJournal(),
      );
      assert(!outcome.ok, name);
      assert.match(outcome.reason, /refused the reply: 1 path may not be written/, name);
      assert.match(outcome.reason, /\*{8}.*: its path holds an API key/, name);
      assert(!REDACTOR.containsKey(outcome.reason), `${name}: the reason holds no key`);
      assert.equal(await Deno.readTextFile(join(root, "src/a.ts")), "old\n", name);
      assert.deepEqual([...Deno.readDirSync(join(root, "src"))].map((e) => e.name), ["a.ts"], name);
    });
  }
});

Deno.test("a reply that cannot be parsed gives a reason with every key masked", async () => {
  await withProject(PROJECT, async (root) => {
    const outcome = await applyReply(
      root,
      reply(`^^^src/${GEMINI_KEY}.txt\nno end\n`),
      REDACTOR,
      memoryJournal(),
    );
    assert(!outcome.ok);
    assert.match(outcome.reason, /src\/\*{8}XY\.txt/);
    assert(!REDACTOR.containsKey(outcome.reason));
  });
});
