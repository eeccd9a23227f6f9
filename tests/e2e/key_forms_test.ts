/**
 * The keys the tool itself can still see, end to end: a part of a key quoted
 * in an API error, base64 of a key at any byte offset in a prompt, a reply
 * whose file content holds a key, and a key written with JSON escapes in
 * an error body, a reply body or a cut reply (each log, the `.json` ones
 * too, and the output are decoded and searched).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  geminiError,
  geminiReply,
  geminiText,
  type ScriptStep,
  startFakeLlmServer,
} from "../support/fake_llm_server.ts";
import { assertNoKeyInLogs, assertNoKeyLeak } from "../support/leaks.ts";
import {
  GEMINI_KEY,
  git,
  makeProject,
  OPENAI_KEY,
  STATUS_BUILD,
  tempProject,
} from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";

const START_FILES = { "src/status.txt": "broken\n" };
const FIX = "^^^src/status.txt\nok\n^^^end\n";

/** Every file under `dir`, as text, joined. */
async function allText(dir: string): Promise<string> {
  let text = "";
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    text += entry.isDirectory ? await allText(path) : await Deno.readTextFile(path);
  }
  return text;
}

Deno.test("an API error that quotes the start of the key shows none of it, printed or logged", async () => {
  await using project = await makeProject({ buildScript: STATUS_BUILD, files: START_FILES });
  const quoted = GEMINI_KEY.slice(0, 16);
  const server = await startFakeLlmServer([
    geminiError(400, `API key ${quoted}... is invalid`, "INVALID_ARGUMENT"),
  ]);
  try {
    const run = await runTool(project.root, [], { server });
    assert.equal(run.code, 4);
    assert.match(run.stderr, /API key \*{8}\.\.\. is invalid/);
    assert(!run.stderr.includes(quoted.slice(0, 12)), run.stderr);
    const logs = await allText(join(project.root, "logs"));
    assert.match(logs, /API key \*{8}\.\.\. is invalid/);
    assert(!logs.includes(quoted.slice(0, 12)), "the prefix is logged nowhere");
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
  }
});

Deno.test("base64 of a key at a byte offset in the query: the prompt is refused, never sent", async () => {
  for (const prefix of ["", "K", "K="]) {
    const encoded = btoa(`${prefix}${OPENAI_KEY}`);
    await using project = await makeProject({
      buildScript: STATUS_BUILD,
      files: START_FILES,
      query: `Use Authorization: Basic ${encoded}\n`,
    });
    const server = await startFakeLlmServer([geminiReply(FIX)]);
    try {
      const run = await runTool(project.root, [], { server });
      assert.equal(run.code, 5, prefix);
      assert.equal(server.requests.length, 0, prefix);
      assert.match(run.stderr, /contains an API key, so it was not sent/);
      const logs = await allText(join(project.root, "logs"));
      assert(!logs.includes(encoded.slice(4, 40)), `${prefix}: the encoded key is logged masked`);
    } finally {
      await server.close();
    }
  }
});

Deno.test("a reply whose file holds a key writes nothing and counts as a failed attempt", async () => {
  await using project = await makeProject({ buildScript: STATUS_BUILD, files: START_FILES });
  const leak = `^^^src/status.txt\nok\n^^^end\n^^^src/config.ts\nexport const auth = "${
    btoa(`K=${GEMINI_KEY}`)
  }";\n^^^end\n`;
  const server = await startFakeLlmServer([geminiReply(leak), geminiReply(FIX)]);
  try {
    const run = await runTool(project.root, [], { server });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.requests.length, 2);
    assert.match(
      run.stderr,
      /the reply was not applied, nothing from it was written: refused the reply: 1 path may not be written/,
    );
    assert.equal(await project.exists("src/config.ts"), false);
    const repair = geminiText(server.requests[1]);
    assert.match(repair, /src\/config\.ts: its content holds an API key/);
    assert.equal(await project.read("src/status.txt"), "ok\n");
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
  }
});

Deno.test("a reply whose header path holds a key writes nothing, names no key, and counts as a failed attempt", async () => {
  const headers = [
    ["the whole key in a file name", `src/${GEMINI_KEY}.txt`],
    ["a wrapped 20-character prefix", `\`docs/${OPENAI_KEY.slice(0, 20)}.md\``],
    ["a key as a folder name, deleted", `${GEMINI_KEY.slice(4, 30)}/old.txt`, "delete"],
  ];
  for (const [name, header, kind] of headers) {
    await using project = await makeProject({ buildScript: STATUS_BUILD, files: START_FILES });
    const block = kind === "delete" ? `^^^${header}\n^^^delete\n` : `^^^${header}\nhello\n^^^end\n`;
    const server = await startFakeLlmServer([
      geminiReply(`^^^src/status.txt\nok\n^^^end\n${block}`),
      geminiReply(FIX),
    ]);
    try {
      const run = await runTool(project.root, [], { server });
      assert.equal(run.code, 0, `${name}: ${run.stderr}`);
      assert.equal(server.requests.length, 2, name);
      assert.match(
        run.stderr,
        /the reply was not applied, nothing from it was written: refused the reply: 1 path may not be written/,
        name,
      );
      assert.match(run.stderr, /\*{8}.*: its path holds an API key/, name);
      const repair = geminiText(server.requests[1]);
      assert.match(repair, /its path holds an API key/, name);
      assert.equal(await project.exists("docs"), false, name);
      assert.deepEqual(
        (await git(project.root, "status", "--porcelain", "--untracked-files=all")).trim(),
        "M src/status.txt",
        name,
      );
      await assertNoKeyLeak(project.root, [run], server);
    } finally {
      await server.close();
    }
  }
});

Deno.test("a key file with a second hard link stops the run before any call, naming the file", async () => {
  const cases: [string, string, (root: string, outside: string) => Promise<void>][] = [
    [
      "the chosen model's key, its other name in the project",
      "agent-config/gemini-key.txt",
      (root) => Deno.link(join(root, "agent-config/gemini-key.txt"), join(root, "src/notes.txt")),
    ],
    [
      "the other model's key, its other name outside",
      "agent-config/openai-key.txt",
      (root, outside) =>
        Deno.link(join(root, "agent-config/openai-key.txt"), join(outside, "openai.txt")),
    ],
    [
      "a key kept elsewhere behind a symbolic link, hard-linked there",
      "agent-config/gemini-key.txt",
      async (root, outside) => {
        const kept = join(outside, "gemini.txt");
        await Deno.rename(join(root, "agent-config/gemini-key.txt"), kept);
        await Deno.link(kept, join(outside, "gemini-copy.txt"));
        await Deno.symlink(kept, join(root, "agent-config/gemini-key.txt"));
      },
    ],
  ];
  for (const [name, keyFile, setUp] of cases) {
    await using outside = await tempProject();
    await using project = await makeProject({ buildScript: STATUS_BUILD, files: START_FILES });
    await setUp(project.root, outside.root);
    for (const args of [[], ["--rollup"]]) {
      const server = await startFakeLlmServer([geminiReply(FIX)]);
      try {
        const run = await runTool(project.root, args, { server });
        assert.equal(run.code, 3, `${name} ${args}: ${run.stderr}`);
        assert.equal(server.requests.length, 0, name);
        const lines = run.stderr.trimEnd().split("\n");
        assert.equal(lines.length, 1, `${name}: ${run.stderr}`);
        assert.match(
          lines[0],
          new RegExp(
            `^code-commit: ${keyFile.replaceAll(".", "\\.")} has more than one hard link: ` +
              "the key has another name, which a build may read or git may commit",
          ),
          name,
        );
        assert.equal(await project.read("src/status.txt"), "broken\n", name);
        // (src/notes.txt holds a key by design: the output is checked, not the files.)
        for (const key of [GEMINI_KEY, OPENAI_KEY]) {
          assert(!run.stderr.includes(key) && !run.stdout.includes(key), name);
        }
      } finally {
        await server.close();
      }
    }
  }
});

/** `text` with the characters `which` picks written as `\uXXXX` escapes (hex in `hexCase`). */
function uEscape(
  text: string,
  which: (index: number) => boolean,
  hexCase: "lower" | "upper" = "lower",
): string {
  return text.split("").map((unit, index) => {
    if (!which(index)) return unit;
    const hex = unit.charCodeAt(0).toString(16).padStart(4, "0");
    return `\\u${hexCase === "upper" ? hex.toUpperCase() : hex}`;
  }).join("");
}

/** The ways a JSON body can write the Gemini key. */
const ESCAPED: [string, string][] = [
  ["fully \\u-escaped", uEscape(GEMINI_KEY, () => true)],
  ["fully \\u-escaped, upper-case hex", uEscape(GEMINI_KEY, () => true, "upper")],
  ["partly \\u-escaped", uEscape(GEMINI_KEY, (i) => i % 4 === 1)],
  ["one character \\u-escaped", uEscape(GEMINI_KEY, (i) => i === 7)],
];

/** A step answering `status` with `raw` as its body, sent exactly as written. */
function rawStep(status: number, raw: string): ScriptStep {
  return { kind: "response", status, headers: { "content-type": "application/json" }, body: raw };
}

/** The reply body `geminiReply(text)` sends, as JSON text, with `KEY_HERE` replaced by `written`. */
function replyBodyWith(text: string, written: string): string {
  const body = JSON.stringify(geminiReply(text).body as object, null, 2);
  assert.ok(body.includes("KEY_HERE"));
  return body.replace("KEY_HERE", written);
}

/** The log files of the only run in `root`, by name. */
async function runLogs(root: string): Promise<Map<string, string>> {
  const [folder] = await Array.fromAsync(Deno.readDir(join(root, "logs")));
  const logs = new Map<string, string>();
  for await (const entry of Deno.readDir(join(root, "logs", folder.name))) {
    logs.set(entry.name, await Deno.readTextFile(join(root, "logs", folder.name, entry.name)));
  }
  return logs;
}

for (const [name, written] of ESCAPED) {
  Deno.test(`an API error body with the key ${name}: no form of it is logged or printed`, async () => {
    await using project = await makeProject({ buildScript: STATUS_BUILD, files: START_FILES });
    const body =
      `{\n  "error": {\n    "code": 400,\n    "message": "API key ${written} not valid. ` +
      `Please pass a valid API key.",\n    "status": "INVALID_ARGUMENT"\n  }\n}\n`;
    assert.equal(JSON.parse(body).error.message.includes(GEMINI_KEY), true);
    const server = await startFakeLlmServer([rawStep(400, body)]);
    try {
      const run = await runTool(project.root, [], { server });
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /API key \*{8}XY not valid/);
      const logs = await runLogs(project.root);
      const json = logs.get("1-initial-query-response.json");
      assert.ok(json !== undefined, [...logs.keys()].join(", "));
      // Stored masked, and still the JSON it was.
      assert.equal(JSON.parse(json).error.message.startsWith("API key ********XY not valid"), true);
      const read = await assertNoKeyInLogs(project.root, [run]);
      assert.ok(read.some((path) => path.endsWith("-response.json")));
      await assertNoKeyLeak(project.root, [run], server);
    } finally {
      await server.close();
    }
  });
}

Deno.test("a reply body with the key \\u-escaped in its text: the run goes on, and the .json log holds no form of it", async () => {
  for (const [name, written] of ESCAPED) {
    await using project = await makeProject({ buildScript: STATUS_BUILD, files: START_FILES });
    const text = `I will not repeat your key KEY_HERE here.\n${FIX}`;
    const server = await startFakeLlmServer([rawStep(200, replyBodyWith(text, written))]);
    try {
      const run = await runTool(project.root, [], { server });
      assert.equal(run.code, 0, `${name}: ${run.stderr}`);
      assert.equal(await project.read("src/status.txt"), "ok\n", name);
      const logs = await runLogs(project.root);
      const json = logs.get("1-initial-query-response.json")!;
      assert.equal(
        JSON.parse(json).candidates[0].content.parts[0].text,
        `I will not repeat your key ********XY here.\n${FIX}`,
        name,
      );
      assert.match(logs.get("1-initial-query-response.txt")!, /your key \*{8}XY here/, name);
      await assertNoKeyInLogs(project.root, [run]);
      await assertNoKeyLeak(project.root, [run], server);
    } finally {
      await server.close();
    }
  }
});

Deno.test("a reply cut in the middle of a \\u-escaped key (not JSON): no form of it is logged or printed", async () => {
  await using project = await makeProject({ buildScript: STATUS_BUILD, files: START_FILES });
  const whole = replyBodyWith(`the key is KEY_HERE\n${FIX}`, uEscape(GEMINI_KEY, () => true));
  const cut = whole.slice(0, whole.indexOf("\\u") + 6 * 30 + 2); // 30 characters and a cut escape
  const server = await startFakeLlmServer([rawStep(200, cut)]);
  try {
    const run = await runTool(project.root, [], { server });
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /the reply is not JSON/);
    const read = await assertNoKeyInLogs(project.root, [run]);
    assert.ok(read.some((path) => path.endsWith("-response.json")), read.join(", "));
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
  }
});

Deno.test("a key in every reply, up to the last repair: the run stops for safety (exit 5)", async () => {
  await using project = await makeProject({ buildScript: STATUS_BUILD, files: START_FILES });
  const leak = geminiReply(`^^^src/leak.txt\n${GEMINI_KEY}\n^^^end\n`);
  const server = await startFakeLlmServer([leak, leak, leak, leak]);
  try {
    const run = await runTool(project.root, [], { server });
    assert.equal(run.code, 5, run.stderr);
    assert.equal(server.requests.length, 4);
    assert.equal(await Deno.lstat(join(project.root, "src/leak.txt")).catch(() => null), null);
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
  }
});
