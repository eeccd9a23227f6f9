/**
 * The consistency report in process, with a scripted model: where the report is written, and
 * what it refuses to write through, before and during the LLM call.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { RunJournal } from "../../../lib/apply/journal.ts";
import { RunRecord } from "../../../lib/cli/json_result.ts";
import { Console } from "../../../lib/console/console.ts";
import { CodeCommitError } from "../../../lib/errors/errors.ts";
import type { LlmClient, LlmReply } from "../../../lib/llm/types.ts";
import { Redactor } from "../../../lib/secrets/redact.ts";
import type { Session } from "../../../lib/session/session.ts";
import { REPORT_HEADINGS } from "../../../lib/workflows/consistency_report/report.ts";
import { runConsistencyReport } from "../../../lib/workflows/consistency_report/workflow.ts";
import { parseCommandLine } from "../../support/command_line.ts";
import { memoryStreams } from "../../support/console.ts";
import { withProject } from "../../support/project.ts";

const REPORT_FILE = "agent-config/consistency-report.txt";

/** A project with what `--cc` reads: the query and the rollup. */
const PROJECT = {
  ".gitignore": "/agent-config\n/logs\n",
  "agent-config/query.txt": "Check it.\n",
  "agent-config/codeRollup.txt": "--- a.ts ---\na\n",
};

/** A reply with all five headings, each followed by `text`. */
function report(text: string): string {
  return REPORT_HEADINGS.map((heading) => `${heading}\n\n${text}\n`).join("\n");
}

/** Runs `--cc` in `root`, the model answering `reply` after `duringCall` ran; the calls made. */
async function runReport(
  root: string,
  reply: string,
  duringCall: () => Promise<void> = () => Promise.resolve(),
): Promise<{ calls: number }> {
  const command = parseCommandLine(["--cc"]);
  assert.equal(command.kind, "run");
  const calls = { calls: 0 };
  const client: LlmClient = {
    model: "gemini-2.5-pro",
    async complete(): Promise<LlmReply> {
      calls.calls++;
      await duringCall();
      return {
        text: reply,
        body: "{}",
        usage: { input: 1, cached: 0, output: 1, thinking: 0 },
        truncated: false,
        finishReason: "STOP",
        elapsedMs: 1,
        attempts: 1,
      };
    },
  };
  const record = new RunRecord();
  const redactor = new Redactor();
  const session: Session = {
    root,
    options: command.kind === "run" ? command.options : undefined!,
    console: new Console(memoryStreams(), redactor),
    redactor,
    client,
    signal: new AbortController().signal,
    tally: record.tally,
    record,
    containment: { kind: "none", why: "no build in these tests" },
    buildScript: { kind: "missing" },
    journal: new RunJournal(root, { workflow: "consistency report" }),
  };
  await runConsistencyReport(session);
  return calls;
}

async function names(folder: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(folder)) found.push(entry.name);
  return found.sort();
}

Deno.test("the report is created, then replaced, leaving no temporary file", async () => {
  await withProject(PROJECT, async (root) => {
    await runReport(root, report("first"));
    assert.equal(await Deno.readTextFile(join(root, REPORT_FILE)), `${report("first")}`);
    await runReport(root, report("second"));
    assert.equal(await Deno.readTextFile(join(root, REPORT_FILE)), `${report("second")}`);
    assert.deepEqual(await names(join(root, "agent-config")), [
      "codeRollup.txt",
      "consistency-report.txt",
      "query.txt",
    ]);
  });
});

Deno.test("the report is replaced by renaming: a reader holding the old file keeps it whole", async () => {
  await withProject(PROJECT, async (root) => {
    await runReport(root, report("old"));
    const before = await Deno.stat(join(root, REPORT_FILE));
    await runReport(root, report("new"));
    const after = await Deno.stat(join(root, REPORT_FILE));
    assert.notEqual(after.ino, before.ino, "a new file was renamed into place");
  });
});

const UNSAFE: {
  name: string;
  make: (root: string, outside: string) => Promise<void>;
  message: RegExp;
  /** Made before the run, it is refused before the LLM call (else the query cannot be read). */
  beforeCall: boolean;
}[] = [
  {
    name: "the report is a symbolic link",
    make: (root, outside) => Deno.symlink(join(outside, "target.txt"), join(root, REPORT_FILE)),
    message: /agent-config\/consistency-report\.txt is a symbolic link; .* remove it/,
    beforeCall: true,
  },
  {
    name: "the report is a dangling symbolic link",
    make: (root, outside) => Deno.symlink(join(outside, "nowhere.txt"), join(root, REPORT_FILE)),
    message: /is a symbolic link/,
    beforeCall: true,
  },
  {
    name: "the report is a folder",
    make: (root) => Deno.mkdir(join(root, REPORT_FILE)),
    message: /consistency-report\.txt is a folder/,
    beforeCall: true,
  },
  {
    name: "agent-config is a symbolic link",
    make: async (root, outside) => {
      await Deno.rename(join(root, "agent-config"), join(root, "moved"));
      await Deno.symlink(outside, join(root, "agent-config"));
    },
    message: /agent-config is a symbolic link; .* replace the link with a folder/,
    beforeCall: false,
  },
  {
    name: "agent-config is missing",
    make: (root) => Deno.remove(join(root, "agent-config"), { recursive: true }),
    message: /agent-config\/ not found/,
    beforeCall: false,
  },
];

for (const { name, make, message, beforeCall } of UNSAFE) {
  for (const when of beforeCall ? ["before", "during"] : ["during"]) {
    Deno.test(`the report is refused when ${name} (${when} the call), and nothing is written`, async () => {
      await withProject(PROJECT, async (root) => {
        const outside = await Deno.makeTempDir({ prefix: "code-commit-outside-" });
        try {
          await Deno.writeTextFile(join(outside, "target.txt"), "untouched\n");
          if (when === "before") await make(root, outside);
          let calls = 0;
          await assert.rejects(async () => {
            calls = (await runReport(root, report("report"), async () => {
              calls++;
              if (when === "during") await make(root, outside);
            })).calls;
          }, (error) => error instanceof CodeCommitError && message.test(error.message));
          assert.equal(calls, when === "before" ? 0 : 1);
          assert.deepEqual(await names(outside), ["target.txt"]);
          assert.equal(await Deno.readTextFile(join(outside, "target.txt")), "untouched\n");
        } finally {
          await Deno.remove(outside, { recursive: true });
        }
      });
    });
  }
}
