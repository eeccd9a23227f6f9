/**
 * Tests of reading API keys: `readApiKey` trims the
 * file and refuses a missing, empty, too short or multi-token key with a
 * message naming the file; `readKnownKeys` collects every key it can find
 * for redaction, skipping missing files.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import { readApiKey, readKnownKeys } from "../../lib/secrets/keys.ts";
import { GEMINI_KEY, OPENAI_KEY, tempProject } from "../support/project.ts";

const GEMINI_FILE = "agent-config/gemini-key.txt";
const OPENAI_FILE = "agent-config/openai-key.txt";

/** A temporary project has an `agent-config/` folder, with or without key files in it. */
const WITH_AGENT_CONFIG = { folders: ["agent-config"] };

// ---------------------------------------------------------------------------
// readApiKey

/** File content and the key read from it. */
const GOOD: [string, string, string][] = [
  ["the key and a newline", `${GEMINI_KEY}\n`, GEMINI_KEY],
  ["the key alone", GEMINI_KEY, GEMINI_KEY],
  ["blanks and blank lines around", `\n\n  \t${GEMINI_KEY}  \n\n`, GEMINI_KEY],
  ["Windows line ending", `${GEMINI_KEY}\r\n`, GEMINI_KEY],
  ["a byte order mark (Notepad)", `\uFEFF${GEMINI_KEY}\r\n`, GEMINI_KEY],
  ["exactly the shortest length", "abcd1234", "abcd1234"],
];

for (const [name, content, expected] of GOOD) {
  Deno.test(`readApiKey: ${name}`, async () => {
    await using project = await tempProject({ [GEMINI_FILE]: content }, WITH_AGENT_CONFIG);
    assert.equal(await readApiKey(project.root, GEMINI_FILE, "Gemini"), expected);
  });
}

/** File content (undefined: no file) and what the message must say after the file name. */
const BAD: [string, string | undefined, RegExp][] = [
  ["a missing file", undefined, / not found: put your Gemini API key in it/],
  ["an empty file", "", / is empty: put your Gemini API key in it/],
  ["white space only", "  \n\t\r\n ", / is empty/],
  [
    "a blank inside the key",
    "AIzaSy abcdefghijkl\n",
    / has white space or control characters inside the key/,
  ],
  ["a tab inside the key", "AIzaSy\tabcdefghijkl", / has white space or control characters/],
  ["two lines", `${GEMINI_KEY}\n${OPENAI_KEY}\n`, / has white space or control characters/],
  ["a key and a note", `${GEMINI_KEY} # work account\n`, / has white space/],
  ["a NUL inside the key", "AIzaSy\u0000abcdefghijkl", / has white space or control characters/],
  ["a DEL inside the key", "AIzaSy\u007fabcdefghijkl", / has white space or control characters/],
  [
    "a C1 control inside the key",
    "AIzaSy\u0085abcdefghijkl",
    / has white space or control characters/,
  ],
  ["an escape inside the key", "AIzaSy\u001b[0mabcdefgh", / has white space or control characters/],
  ["a no-break space inside the key", "AIzaSy\u00a0abcdefghijkl", / has white space/],
  ["too short (7 characters)", "abc1234\n", / holds only 7 characters, too short for an API key/],
  ["too short (1 character)", "x", / holds only 1 character, too short/],
];

for (const [name, content, pattern] of BAD) {
  Deno.test(`readApiKey refuses ${name}, naming the file`, async () => {
    await using project = await tempProject(
      content === undefined ? {} : { [GEMINI_FILE]: content },
      WITH_AGENT_CONFIG,
    );
    await assert.rejects(
      readApiKey(project.root, GEMINI_FILE, "Gemini"),
      (error: unknown) => {
        assert.ok(error instanceof CodeCommitError);
        assert.ok(error.message.startsWith(`${GEMINI_FILE} `), error.message);
        assert.match(error.message, pattern);
        assert.equal(error.exitCode, 3);
        // The message never repeats the file's content.
        if (content !== undefined && content.trim().length >= 4) {
          assert.ok(!error.message.includes(content.trim()), error.message);
        }
        return true;
      },
    );
  });
}

Deno.test("readApiKey names the OpenAI file and vendor for gpt-5", async () => {
  await using project = await tempProject({}, WITH_AGENT_CONFIG);
  await assert.rejects(
    readApiKey(project.root, OPENAI_FILE, "OpenAI"),
    {
      message:
        "agent-config/openai-key.txt not found: put your OpenAI API key in it (agent-config/ is ignored by git)",
    },
  );
});

Deno.test("readApiKey: a key file that cannot be read (a folder) is named", async () => {
  await using project = await tempProject({}, WITH_AGENT_CONFIG);
  await Deno.mkdir(join(project.root, GEMINI_FILE));
  await assert.rejects(
    readApiKey(project.root, GEMINI_FILE, "Gemini"),
    (error: unknown) => {
      assert.ok(error instanceof CodeCommitError);
      assert.match(error.message, /^agent-config\/gemini-key\.txt cannot be read: /);
      return true;
    },
  );
});

Deno.test("readApiKey: the shortest key accepted has 8 characters", async () => {
  await using project = await tempProject({ [GEMINI_FILE]: "abcd1234\n" }, WITH_AGENT_CONFIG);
  assert.equal(await readApiKey(project.root, GEMINI_FILE, "Gemini"), "abcd1234");
});

// API keys are printable ASCII: anything else (a zero-width space, an en dash, bad UTF-8) is refused, naming the file.
Deno.test({
  name: "readApiKey refuses a key holding a character no header can carry, naming the file",

  async fn() {
    const contents: (string | Uint8Array)[] = [
      "AIzaSy\u200bTEST0123456789\n", // zero-width space
      "AIzaSy\u2060TEST0123456789\n", // word joiner
      "AIzaSy\u2013TEST0123456789\n", // an en dash where a hyphen was meant
      new Uint8Array([0x41, 0x49, 0x7a, 0x61, 0xff, 0xfe, 0x53, 0x79, 0x31, 0x32]), // not UTF-8
    ];
    for (const content of contents) {
      await using project = await tempProject({ [GEMINI_FILE]: content }, WITH_AGENT_CONFIG);
      await assert.rejects(
        readApiKey(project.root, GEMINI_FILE, "Gemini"),
        (error: unknown) => {
          assert.ok(error instanceof CodeCommitError);
          assert.ok(error.message.startsWith(GEMINI_FILE));
          return true;
        },
        String(content),
      );
    }
  },
});

// ---------------------------------------------------------------------------
// readKnownKeys

Deno.test("readKnownKeys reads both key files", async () => {
  await using project = await tempProject({
    [GEMINI_FILE]: `${GEMINI_KEY}\n`,
    [OPENAI_FILE]: `  ${OPENAI_KEY}\r\n`,
  }, WITH_AGENT_CONFIG);
  const keys = await readKnownKeys(project.root, [GEMINI_FILE, OPENAI_FILE]);
  assert.ok(keys.includes(GEMINI_KEY));
  assert.ok(keys.includes(OPENAI_KEY));
  assert.deepEqual([...new Set(keys)].sort(), [GEMINI_KEY, OPENAI_KEY].sort());
});

Deno.test("readKnownKeys skips missing and unreadable files", async () => {
  await using project = await tempProject({ [OPENAI_FILE]: OPENAI_KEY }, WITH_AGENT_CONFIG);
  assert.deepEqual(
    [...new Set(await readKnownKeys(project.root, [GEMINI_FILE, OPENAI_FILE]))],
    [OPENAI_KEY],
  );
  await Deno.mkdir(join(project.root, GEMINI_FILE));
  assert.deepEqual(
    [...new Set(await readKnownKeys(project.root, [GEMINI_FILE, OPENAI_FILE]))],
    [OPENAI_KEY],
  );
  assert.deepEqual(await readKnownKeys(project.root, []), []);
});

Deno.test("readKnownKeys picks every token of 8 or more characters, and the whole text", async () => {
  await using project = await tempProject({
    [GEMINI_FILE]: `# my key:\n${GEMINI_KEY}   (work)\nold: ${OPENAI_KEY}\n`,
  }, WITH_AGENT_CONFIG);
  const keys = await readKnownKeys(project.root, [GEMINI_FILE]);
  assert.ok(keys.includes(GEMINI_KEY), "the key among notes");
  assert.ok(keys.includes(OPENAI_KEY), "another key in the same file");
  assert.ok(keys.includes(`# my key:\n${GEMINI_KEY}   (work)\nold: ${OPENAI_KEY}`));
  for (const short of ["#", "my", "key:", "(work)", "old:"]) {
    assert.ok(!keys.includes(short), `${short} is no key`);
  }
  assert.ok(keys.every((key) => key.length >= 8));
});

Deno.test("readKnownKeys ignores files with nothing long enough", async () => {
  await using project = await tempProject(
    { [GEMINI_FILE]: "\n  \n", [OPENAI_FILE]: "abc 1234567" },
    WITH_AGENT_CONFIG,
  );
  assert.deepEqual(await readKnownKeys(project.root, [GEMINI_FILE, OPENAI_FILE]), [
    "abc 1234567",
  ]);
});

Deno.test("readApiKey refuses an assignment or a quoted key: the file holds the key alone", async () => {
  for (
    const content of [`GEMINI_API_KEY=${GEMINI_KEY}\n`, `"${GEMINI_KEY}"\n`, `'${GEMINI_KEY}'`]
  ) {
    await using project = await tempProject({ [GEMINI_FILE]: content }, WITH_AGENT_CONFIG);
    await assert.rejects(readApiKey(project.root, GEMINI_FILE, "Gemini"), (error: unknown) => {
      assert.ok(error instanceof CodeCommitError);
      assert.match(
        error.message,
        /^agent-config\/gemini-key\.txt holds (an assignment \(GEMINI_API_KEY=…\)|a quoted value); the file must hold the key alone/,
      );
      assert.ok(!error.message.includes(GEMINI_KEY), "the key is not echoed");
      return true;
    }, content);
  }
});

Deno.test("readKnownKeys takes key-shaped tokens, not the words of a note", async () => {
  await using project = await tempProject({
    [GEMINI_FILE]: `# from the password-manager, rotated monthly\nGEMINI_API_KEY="${GEMINI_KEY}"\n`,
  }, WITH_AGENT_CONFIG);
  const keys = await readKnownKeys(project.root, [GEMINI_FILE]);
  assert.ok(keys.includes(GEMINI_KEY), "the value of the assignment, unquoted");
  assert.ok(!keys.includes("password-manager,"), "an ordinary word is no key");
  assert.ok(!keys.some((key) => key === "monthly" || key === "rotated"));
});

// ---------------------------------------------------------------------------
// The bounded read: a key file is read only as a regular file of sensible size.

async function mkfifo(path: string): Promise<void> {
  assert.ok((await new Deno.Command("mkfifo", { args: [path] }).output()).success);
}

Deno.test("readApiKey: a fifo or a link to a device is refused at once, naming the file", async () => {
  await using project = await tempProject({}, WITH_AGENT_CONFIG);
  await mkfifo(join(project.root, GEMINI_FILE));
  await assert.rejects(readApiKey(project.root, GEMINI_FILE, "Gemini"), {
    message:
      "agent-config/gemini-key.txt is a fifo (named pipe); code-commit reads an API key file only from a regular file: put a regular file there",
  });
  await Deno.symlink("/dev/zero", join(project.root, OPENAI_FILE));
  await assert.rejects(
    readApiKey(project.root, OPENAI_FILE, "OpenAI"),
    /^FileReadError: agent-config\/openai-key\.txt leads to a character device \(through a symbolic link\)/,
  );
});

Deno.test("readApiKey: a key file larger than 64 KiB is refused unread", async () => {
  await using project = await tempProject(
    { [GEMINI_FILE]: "k".repeat(64 * 1024 + 1) },
    WITH_AGENT_CONFIG,
  );
  await assert.rejects(
    readApiKey(project.root, GEMINI_FILE, "Gemini"),
    /agent-config\/gemini-key\.txt is 64\.0 KiB, more than the 64 KiB code-commit reads from an API key file/,
  );
});

Deno.test("readApiKey: a key file reached through a link is read", async () => {
  await using project = await tempProject(
    { "agent-config/real.txt": `${GEMINI_KEY}\n` },
    WITH_AGENT_CONFIG,
  );
  await Deno.symlink("real.txt", join(project.root, GEMINI_FILE));
  assert.equal(await readApiKey(project.root, GEMINI_FILE, "Gemini"), GEMINI_KEY);
});

Deno.test("readKnownKeys: skips a fifo or a device, but refuses a key file too large to know", async () => {
  await using project = await tempProject({ [GEMINI_FILE]: `${GEMINI_KEY}\n` }, WITH_AGENT_CONFIG);
  await mkfifo(join(project.root, OPENAI_FILE));
  // The whole content and its one key-shaped token: the same key twice.
  const gemini = [GEMINI_KEY, GEMINI_KEY];
  assert.deepEqual(await readKnownKeys(project.root, [GEMINI_FILE, OPENAI_FILE]), gemini);
  await Deno.remove(join(project.root, OPENAI_FILE));
  await Deno.symlink("/dev/zero", join(project.root, OPENAI_FILE));
  assert.deepEqual(await readKnownKeys(project.root, [GEMINI_FILE, OPENAI_FILE]), gemini);
  await Deno.remove(join(project.root, OPENAI_FILE));
  await Deno.writeTextFile(join(project.root, OPENAI_FILE), `${OPENAI_KEY} ${"x".repeat(70_000)}`);
  await assert.rejects(
    readKnownKeys(project.root, [GEMINI_FILE, OPENAI_FILE]),
    /agent-config\/openai-key\.txt is 68\.4 KiB, more than the 64 KiB/,
  );
});

Deno.test("readApiKey and readKnownKeys refuse a key file with a second hard link, naming it", async () => {
  await using project = await tempProject({ [GEMINI_FILE]: `${GEMINI_KEY}\n` }, WITH_AGENT_CONFIG);
  await Deno.mkdir(join(project.root, "src"));
  await Deno.link(join(project.root, GEMINI_FILE), join(project.root, "src/notes.txt"));
  const message = new RegExp(
    "^agent-config/gemini-key\\.txt has more than one hard link: the key has another name, " +
      "which a build may read or git may commit; delete that name \\(find / -samefile " +
      "agent-config/gemini-key\\.txt lists them\\), or, to share one key file between " +
      "projects, use a symbolic link$",
  );
  const check = (error: Error) => error instanceof CodeCommitError && message.test(error.message);
  await assert.rejects(readApiKey(project.root, GEMINI_FILE, "Gemini"), check);
  await assert.rejects(readKnownKeys(project.root, [GEMINI_FILE, OPENAI_FILE]), check);
  // Its one name again: read.
  await Deno.remove(join(project.root, "src/notes.txt"));
  assert.equal(await readApiKey(project.root, GEMINI_FILE, "Gemini"), GEMINI_KEY);
});
