/**
 * `agent-config/settings.json`, read from real files in real temporary
 * folders: every key takes effect, a flag beats it, a setting for another
 * workflow is left aside, and a bad file is a set-up error (exit 3) naming
 * the file, the key and what it allows.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseCommandLine } from "../support/command_line.ts";
import { readSettings, readsSettings } from "../../lib/cli/settings.ts";
import { SETTINGS } from "../../lib/cli/options.ts";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import { tempProject, withProject } from "../support/project.ts";
import { nestedParentheses } from "../support/run_tool.ts";

const FILE = "agent-config/settings.json";

/** A file setting every key, none of them to its default. */
const EVERY_KEY = {
  model: "local:qwen",
  localBaseUrl: "http://127.0.0.1:11434/v1/",
  contextWindow: 32768,
  buildTimeout: 60,
  llmTimeout: 1.5,
  sandbox: "on",
  buildNetwork: "off",
  maxPhase: 3,
};

/** Reads `text` as the settings file of a fresh folder. */
function read(text: string) {
  return withProject({ [FILE]: text }, (root) => readSettings(root));
}

/** Asserts that `promise` fails with a set-up error (exit 3) whose message holds each of `parts`. */
async function assertSetupError(promise: Promise<unknown>, ...parts: string[]) {
  await assert.rejects(promise, (error: unknown) => {
    assert(error instanceof CodeCommitError, String(error));
    assert.equal(error.exitCode, 3, error.message);
    for (const part of parts) {
      assert(error.message.includes(part), `${JSON.stringify(error.message)} lacks ${part}`);
    }
    assert(!error.message.includes("\n"), "one line");
    assert.deepEqual(nestedParentheses(error.message), [], "no parentheses inside parentheses");
    return true;
  });
}

Deno.test("the test's file sets every key of the table", () => {
  assert.deepEqual(Object.keys(EVERY_KEY).sort(), SETTINGS.map((s) => s.key).sort());
});

Deno.test("no settings file: nothing set, the defaults stand", async () => {
  assert.deepEqual(await withProject({}, (root) => readSettings(root)), {});
});

Deno.test("every setting takes effect for the workflows that take it", async () => {
  const settings = await read(JSON.stringify(EVERY_KEY));
  const auto = parseCommandLine(["--aw"], settings);
  assert(auto.kind === "run");
  assert.deepEqual({ ...auto.options }, {
    model: "local:qwen",
    localBaseUrl: "http://127.0.0.1:11434/v1",
    contextWindow: 32768,
    buildContext: false,
    buildTimeoutMs: 60_000,
    llmTimeoutMs: 1_500,
    sandbox: "on",
    buildNetwork: "off",
    maxPhase: 3,
    force: false,
    dryRun: false,
    json: false,
  });
  // Committing code takes no --max-phase: the setting is left aside, not an error.
  const commit = parseCommandLine([], settings);
  assert(commit.kind === "run");
  assert.equal(commit.options.maxPhase, 1);
  assert.equal(commit.options.sandbox, "on");
  // The consistency report runs no build: the build settings are left aside.
  const cc = parseCommandLine(["--cc"], settings);
  assert(cc.kind === "run");
  assert.equal(cc.options.sandbox, "auto");
  assert.equal(cc.options.buildTimeoutMs, 1_800_000);
  assert.equal(cc.options.model, "local:qwen");
  // --check-build takes the build's settings and no model's.
  const check = parseCommandLine(["--check-build"], settings);
  assert(check.kind === "run");
  assert.equal(check.options.buildTimeoutMs, 60_000);
  assert.equal(check.options.buildNetwork, "off");
  assert.equal(check.options.model, "gemini-2.5-pro");
  assert.equal(check.options.localBaseUrl, undefined);
});

Deno.test("a flag beats the file", async () => {
  const settings = await read(JSON.stringify(EVERY_KEY));
  const command = parseCommandLine(
    [
      "--aw",
      "--model=local:llama3",
      "--context-window=4096",
      "--build-timeout=5",
      "--llm-timeout=7",
      "--sandbox=auto",
      "--build-network=on",
      "--max-phase=2",
    ],
    settings,
  );
  assert(command.kind === "run");
  assert.equal(command.options.model, "local:llama3");
  assert.equal(command.options.contextWindow, 4096);
  assert.equal(command.options.buildTimeoutMs, 5_000);
  assert.equal(command.options.llmTimeoutMs, 7_000);
  assert.equal(command.options.sandbox, "auto");
  assert.equal(command.options.buildNetwork, "on");
  assert.equal(command.options.maxPhase, 2);
  // A model of the table by flag: the local model's window and server are not used.
  const table = parseCommandLine(["--model", "gpt-5"], settings);
  assert(table.kind === "run");
  assert.equal(table.options.model, "gpt-5");
  assert.equal(table.options.contextWindow, undefined);
  assert.equal(table.options.localBaseUrl, undefined);
  // --context-window by flag needs a local model, which the file may give.
  const window = parseCommandLine(["--context-window", "8192"], { model: "local:q" });
  assert(window.kind === "run" && window.options.contextWindow === 8192);
});

Deno.test("sandbox off and buildNetwork off from the file: a set-up error naming both", async () => {
  const settings = await read('{"sandbox": "off"}');
  assert.throws(
    () => parseCommandLine(["--build-network", "off"], settings),
    (error: unknown) =>
      error instanceof CodeCommitError && error.exitCode === 3 &&
      error.message ===
        `--build-network off needs the sandbox, and "sandbox": "off" in ${FILE} turns it off; drop one of them`,
  );
  // --sandbox off by flag beats "sandbox": "on"; with the file's buildNetwork off it cannot be.
  const both = await read('{"sandbox": "on", "buildNetwork": "off"}');
  assert.throws(
    () => parseCommandLine(["--sandbox", "off"], both),
    /"buildNetwork": "off" in agent-config\/settings\.json needs the sandbox, and --sandbox off/,
  );
});

/** Each bad file, and what its one-line message must name besides the file. */
const BAD_FILES: [string, string[]][] = [
  ['{"modle": "gpt-5"}', ['unknown key "modle"', "model, ", "localBaseUrl"]],
  ['{"model": "gpt-4o"}', ['"model" is "gpt-4o"', "gemini-2.5-pro, gpt-5", "local:NAME"]],
  ['{"model": 5}', ['"model" is 5']],
  ['{"buildTimeout": "600"}', ['"buildTimeout" is "600"', "seconds"]],
  ['{"buildTimeout": 0}', ['"buildTimeout" is 0', "more than 0"]],
  ['{"llmTimeout": -1}', ['"llmTimeout" is -1', "seconds"]],
  ['{"contextWindow": 12.5}', ['"contextWindow" is 12.5', "from 1024 to 16777216"]],
  ['{"sandbox": "yes"}', ['"sandbox" is "yes"', "auto, on, off"]],
  ['{"buildNetwork": false}', ['"buildNetwork" is false', "on, off"]],
  ['{"maxPhase": 5}', ['"maxPhase" is 5', "1, 2, 3 or 4"]],
  [
    '{"localBaseUrl": "http://example.com/v1"}',
    ["localBaseUrl in agent-config/settings.json is example.com", "127.0.0.1"],
  ],
  ['{"localBaseUrl": "ftp://127.0.0.1/"}', [
    "localBaseUrl in agent-config/settings.json uses ftp://",
  ]],
  ['{"model": "gpt-5",}', ["is not JSON"]],
  ["{bad", ["is not JSON: ", 'write one object such as {"model": "gpt-5"}']],
  ['["gpt-5"]', ["must hold one JSON object"]],
  ["null", ["must hold one JSON object"]],
];

Deno.test("an unknown key or a bad value is a set-up error (exit 3) naming the file, the key and what it allows", async () => {
  for (const [text, parts] of BAD_FILES) await assertSetupError(read(text), FILE, ...parts);
});

Deno.test("the file is read only as a regular file: a link or a folder is a set-up error", async () => {
  await using project = await tempProject({ "elsewhere.json": '{"model": "gpt-5"}' });
  await Deno.mkdir(join(project.root, "agent-config"));
  await Deno.symlink(join(project.root, "elsewhere.json"), join(project.root, FILE));
  await assertSetupError(readSettings(project.root), FILE, "symbolic link");
  await Deno.remove(join(project.root, FILE));
  await Deno.mkdir(join(project.root, FILE));
  await assertSetupError(readSettings(project.root), FILE);
});

Deno.test("--init, --rollup and --undo never read the file; the workflows with a setting do", () => {
  assert.deepEqual(
    ["commit", "consistency", "auto", "init", "rollup", "undo", "check-build"].filter((w) =>
      readsSettings(w as Parameters<typeof readsSettings>[0])
    ),
    ["commit", "consistency", "auto", "check-build"],
  );
});
