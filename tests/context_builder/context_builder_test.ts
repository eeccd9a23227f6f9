/**
 * The context builder in process, with a scripted model: what the end-to-end
 * tests cannot easily reach (the exact prompt layout, the warnings).
 */
import { RunRecord } from "../../lib/cli/json_result.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseCommandLine } from "../support/command_line.ts";
import { Console } from "../../lib/console/console.ts";
import { memoryStreams } from "../support/console.ts";
import { type ContextRequest, prepareCodebase } from "../../lib/context_builder/context_builder.ts";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import type { LlmClient, LlmReply } from "../../lib/llm/types.ts";
import { RunJournal } from "../../lib/apply/journal.ts";
import { RunLog } from "../../lib/logger/run_log.ts";
import { Redactor } from "../../lib/secrets/redact.ts";
import type { Session } from "../../lib/session/session.ts";
import { withProject, writeFiles } from "../support/project.ts";
import { systemPromptFile } from "../support/expected_prompts.ts";

/** A model that answers from a list, recording the prompts. */
function scriptedClient(replies: Partial<LlmReply>[]): LlmClient & { prompts: string[] } {
  const prompts: string[] = [];
  return {
    model: "gemini-2.5-pro",
    prompts,
    complete(prompt: string): Promise<LlmReply> {
      prompts.push(prompt);
      const reply = replies.shift();
      if (reply === undefined) throw new Error("no scripted reply left");
      return Promise.resolve({
        text: "",
        body: "{}",
        usage: { input: 1, cached: 0, output: 1, thinking: 0 },
        truncated: false,
        finishReason: "STOP",
        elapsedMs: 1,
        attempts: 1,
        ...reply,
      });
    },
  };
}

/** Builds the codebase as a workflow run with --build-context does. */
async function buildContext(session: Session, request: ContextRequest): Promise<string> {
  return await (await prepareCodebase(session))(request);
}

async function harness(root: string, replies: Partial<LlmReply>[], args = ["--build-context"]) {
  const command = parseCommandLine(args);
  assert.equal(command.kind, "run");
  const redactor = new Redactor(["AIzaSyTEST-not-a-real-key-0123456789"]);
  const streams = memoryStreams();
  const client = scriptedClient(replies);
  const record = new RunRecord();
  const session: Session = {
    root,
    options: command.kind === "run" ? command.options : undefined!,
    console: new Console(streams, redactor),
    redactor,
    client,
    signal: new AbortController().signal,
    tally: record.tally,
    record,
    containment: { kind: "none", why: "no build in these tests" },
    buildScript: { kind: "missing" },
    journal: new RunJournal(root, { workflow: "committing code" }),
  };
  const log = await RunLog.create(root, "committing-code", redactor);
  return {
    session,
    log,
    client,
    stderr: () => streams.err.join(""),
    read: (name: string) => Deno.readTextFile(join(root, log.dir, name)),
  };
}

const PROJECT = {
  ".gitignore": "/agent-config\n/logs\n",
  "UserSpecification.md": "# Spec\n",
  "src/main.ts": "main\n",
};

Deno.test("the preprocessing prompt: system prompt, marker line, next agent prompt, marker line, summary", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, PROJECT);
    const h = await harness(root, [{ text: "%%%files\nsrc/main.ts\n%%%end" }]);
    await buildContext(h.session, { nextAgentPrompt: "Do the task.", log: h.log });
    const system = systemPromptFile("context-query");
    assert.equal(
      h.client.prompts[0],
      `${system}\n=== Next Agent Full Prompt ===\nDo the task.\n\n=== Codebase Summary ===\n` +
        "=== Project Root ===\n--- .gitignore ---\n/agent-config\n/logs\n" +
        "--- UserSpecification.md ---\n# Spec\n" +
        "--- FILENAMES ---\n.gitignore\nUserSpecification.md\nsrc/main.ts\n--- END FILENAMES ---\n",
    );
    assert.ok(system.endsWith("\n"));
    assert.match(system, /^%%%files$/m);
    assert.match(system, /^%%%end$/m);
  });
});

Deno.test("buildContext sends the summary, returns the chosen files, and logs them", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, PROJECT);
    const h = await harness(root, [{ text: "%%%files\nsrc/main.ts\n%%%end" }]);
    const codebase = await buildContext(h.session, { nextAgentPrompt: "Task.\n", log: h.log });
    assert.equal(codebase, "--- src/main.ts ---\nmain\n");
    assert.equal(h.client.prompts.length, 1);
    assert.equal(await h.read("0-context-query.txt"), h.client.prompts[0]);
    assert.equal(await h.read("0-codebase.txt"), codebase);
    assert.ok(h.client.prompts[0].includes(
      "=== Codebase Summary ===\n=== Project Root ===\n--- .gitignore ---\n",
    ));
    assert.match(h.stderr(), /context builder: 1 file provided; see logs\/.*\/0-codebase\.txt/);
  });
});

Deno.test("buildContext with an empty list, or none of its files readable, stops rather than edit blind", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, PROJECT);
    for (
      const [text, why] of [
        ["%%%files\n%%%end", "its list names none"],
        ["%%%files\nmissing.ts\nindex.js\n%%%end", "2 requested, none could be read"],
      ]
    ) {
      const h = await harness(root, [{ text }]);
      const error = await buildContext(h.session, { nextAgentPrompt: "Task.", log: h.log })
        .then(() => undefined, (e) => e);
      assert.ok(error instanceof CodeCommitError, text);
      assert.equal(
        error.message,
        `the context builder provided no file (${why}), so the run stops rather than change code ` +
          `the model has not seen; see ${h.log.path("0-context-query-response.txt")}`,
      );
      assert.equal(await h.read("0-codebase.txt"), "", "the empty codebase is still logged");
    }
  });
});

Deno.test("buildContext reads a markdown list in a fence as the paths", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, PROJECT);
    const h = await harness(root, [{
      text:
        "Here are the files:\n```\n%%%files\n- `src/main.ts`\n* **UserSpecification.md**\n%%%end\n```\n",
    }]);
    const codebase = await buildContext(h.session, { nextAgentPrompt: "Task.", log: h.log });
    assert.match(codebase, /^--- src\/main\.ts ---\nmain\n/);
    assert.match(h.stderr(), /context builder: 2 files provided/);
  });
});

Deno.test("buildContext fails on a reply cut off inside the list, and says so", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, PROJECT);
    const h = await harness(root, [{ text: "%%%files\nsrc/ma", truncated: true }]);
    const error = await buildContext(h.session, { nextAgentPrompt: "Task.", log: h.log })
      .then(() => undefined, (e) => e);
    assert.ok(error instanceof CodeCommitError);
    assert.match(
      error.message,
      /^the context builder's reply cannot be used: .* has no %%%end line; .* \(the reply was cut off at the model's output limit\); see logs\/.*\/0-context-query-response\.txt$/,
    );
    assert.equal(await h.read("0-context-query-response.txt"), "%%%files\nsrc/ma");
  });
});

Deno.test("buildContext shows the first ten summary warnings and counts the rest", async () => {
  await withProject({}, async (root) => {
    const bad = Object.fromEntries(
      Array.from({ length: 15 }, (_, i) => [`src/bad${String(i).padStart(2, "0")}.`, ""]),
    );
    await writeFiles(root, { ...PROJECT, ...bad });
    const h = await harness(root, [{ text: "%%%files\nsrc/main.ts\n%%%end" }]);
    await buildContext(h.session, { nextAgentPrompt: "Task.", log: h.log });
    const warnings = h.stderr().split("\n").filter((line) =>
      line.includes("left out of the summary")
    );
    assert.equal(warnings.length, 10);
    assert.match(h.stderr(), /warning: context builder: … and 5 more like these/);
  });
});

Deno.test("buildContext refuses to send a summary that holds a key", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, {
      ...PROJECT,
      "LLMInstructions.md": "AIzaSyTEST-not-a-real-key-0123456789\n",
    });
    const h = await harness(root, [{ text: "%%%files\n%%%end" }]);
    await assert.rejects(
      () => buildContext(h.session, { nextAgentPrompt: "Task.", log: h.log }),
      /contains an API key, so it was not sent/,
    );
    assert.equal(h.client.prompts.length, 0);
  });
});

Deno.test("without --build-context the codebase is the rollup, read before anything else", async () => {
  await withProject(
    { ...PROJECT, "agent-config/codeRollup.txt": "--- src/main.ts ---\nmain\n" },
    async (root) => {
      const h = await harness(root, [], []);
      const codebaseFor = await prepareCodebase(h.session);
      assert.equal(
        await codebaseFor({ nextAgentPrompt: "Task.", log: h.log }),
        "--- src/main.ts ---\nmain\n",
      );
      assert.equal(h.client.prompts.length, 0, "no preprocessing call");
      await Deno.remove(join(root, "agent-config/codeRollup.txt"));
      await assert.rejects(prepareCodebase(h.session), /agent-config\/codeRollup\.txt not found/);
    },
  );
});
