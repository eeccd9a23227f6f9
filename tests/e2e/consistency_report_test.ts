/**
 * End-to-end tests of the consistency report: the real tool, as a
 * subprocess with its production permissions, against the fake LLM server,
 * in real temporary git projects.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { LAST_RUN_FILE } from "../../lib/cli/last_run.ts";
import { REPORT_HEADINGS } from "../../lib/workflows/consistency_report/report.ts";
import { splitReport } from "../support/report.ts";
import { SYSTEM_PROMPTS } from "../../lib/prompts/system_prompts.ts";
import {
  geminiError,
  geminiReply,
  geminiText,
  openaiReply,
  openaiText,
  startFakeLlmServer,
} from "../support/fake_llm_server.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import { consistencyPrompt } from "../support/expected_prompts.ts";
import { makeProject, type Project } from "../support/project.ts";
import { runTool, type ToolRun } from "../support/run_tool.ts";

const REPORT = "agent-config/consistency-report.txt";
const QUERY = "Check that the parser follows the specification.\n";
const ROLLUP =
  "--- src/app.ts ---\nexport const answer = 42;\n--- UserSpecification.md ---\n# Spec\n";

/** A build script that leaves a trace: the report must never run it. */
const TRACING_BUILD = "#!/bin/sh\ntouch build-ran\nexit 0\n";

const LONG =
  "The specification says that every request is retried three times, but the implementation in src/app.ts retries only once and then gives up, which the user would not expect.";

/** A reply the way models write them: decorated headings, long lines, a ^^^ block. */
const DECORATED_REPLY = [
  "# Consistency Report",
  "",
  "## 1. User Specification Self-Consistency",
  LONG,
  "",
  "**Implementation Consistency with User Specification:** " + LONG,
  "",
  "### 3) Errors and Mistakes within the User Specification",
  "- " + LONG,
  "- A second point.",
  "",
  "Errors and Mistakes within the Implementation",
  "---------------------------------------------",
  "A suggested fix, which code-commit must not apply:",
  "^^^src/app.ts",
  "export const answer = 0;",
  "^^^end",
  "",
  "## Suggestions and Other Important Commentary",
  LONG,
  "",
].join("\n");

function lastLine(run: ToolRun): string {
  return run.stdout.trimEnd().split("\n").at(-1) ?? "";
}

async function logFiles(project: Project): Promise<Map<string, string>> {
  const runs = await project.logRuns();
  assert.equal(runs.length, 1, `one run folder, got ${runs.join(", ")}`);
  const files = new Map<string, string>();
  for await (const entry of Deno.readDir(join(project.root, "logs", runs[0]))) {
    files.set(entry.name, await project.read(`logs/${runs[0]}/${entry.name}`));
  }
  return files;
}

Deno.test("--cc writes the report with its five headings, prints its path last, and changes nothing else", async () => {
  await using project = await makeProject({
    buildScript: TRACING_BUILD,
    query: QUERY,
    rollup: ROLLUP,
    files: { "src/app.ts": "export const answer = 42;\n" },
  });
  const before = await project.snapshot();
  const server = await startFakeLlmServer([geminiReply(DECORATED_REPLY)]);
  try {
    const run = await runTool(project.root, ["--cc"], { server });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(lastLine(run), REPORT);
    assert.match(
      run.stdout,
      /^consistency report: 5 of 5 sections; 1 LLM call, [\d,]+ input, [\d,]+ output, [\d,]+ thinking tokens, est\. \$\d\.\d{4}; logs in logs\/\S+-consistency-report\n/,
    );
    assert.doesNotMatch(run.stderr, /section headings/);

    // The prompt: the user's system prompt verbatim, then the query, then the codebase.
    assert.equal(server.requests.length, 1);
    const prompt = geminiText(server.requests[0]);
    assert.equal(prompt, consistencyPrompt(QUERY, ROLLUP));
    assert.ok(prompt.startsWith(SYSTEM_PROMPTS.consistencyReport));
    assert.match(prompt, /\[query\]\nCheck that the parser[^]*\[codebase\]\n--- src\/app\.ts ---/);

    // The report: each heading alone on its line, all five found, prose within 80 columns.
    const report = await project.read(REPORT);
    const lines = report.split("\n");
    for (const heading of REPORT_HEADINGS) {
      assert.equal(lines.filter((line) => line === heading).length, 1, heading);
    }
    const split = splitReport(report);
    assert.deepEqual(split.missing, []);
    assert.equal(split.preamble, "# Consistency Report");
    for (const line of lines) assert.ok([...line].length <= 80, `too long: ${line}`);
    assert.match(split.sections[1].text, /^The specification says that every request/);
    assert.match(
      split.sections[2].text,
      /^- The specification says[^]*\n {2}\S[^]*\n- A second point\.$/,
    );
    assert.match(split.sections[3].text, /\^\^\^src\/app\.ts\nexport const answer = 0;\n\^\^\^end/);

    // Nothing else changed: no file written from the ^^^ block, no build run.
    const after = await project.snapshot();
    after.delete(REPORT);
    // The run's object, which runTool checks, is the other new file.
    assert.ok(after.delete(LAST_RUN_FILE), "agent-config/last-run.json written");
    for (const path of [...after.keys()]) if (path.startsWith("logs/")) after.delete(path);
    assert.deepEqual(after, before);
    assert.equal(await project.exists("build-ran"), false);

    // Logs: query.txt, query-response.txt and .json, nothing else.
    const runs = await project.logRuns();
    assert.match(runs[0], /^\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d-consistency-report$/);
    const logs = await logFiles(project);
    assert.deepEqual([...logs.keys()].sort(), [
      "query-response.json",
      "query-response.txt",
      "query.txt",
    ]);
    assert.equal(logs.get("query.txt"), prompt);
    assert.equal(logs.get("query-response.txt"), DECORATED_REPLY);
    assert.ok(await assertNoKeyLeak(project.root, [run], server) > 3);
  } finally {
    await server.close();
  }
});

Deno.test("--consistency-check and --consistency run the report too, with --model gpt-5", async () => {
  for (const flag of ["--consistency-check", "--consistency"]) {
    await using project = await makeProject({ query: QUERY, rollup: ROLLUP });
    const reply = REPORT_HEADINGS.map((heading) => `${heading}\n\nNothing to report.\n`).join("\n");
    const server = await startFakeLlmServer([{ ...openaiReply(reply), expect: "openai" }]);
    try {
      const run = await runTool(project.root, [flag, "--model", "gpt-5"], { server });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(lastLine(run), REPORT);
      assert.equal(server.requests[0].model, "gpt-5");
      assert.equal(openaiText(server.requests[0]), consistencyPrompt(QUERY, ROLLUP));
      assert.equal(await project.read(REPORT), reply.trimEnd() + "\n");
      await assertNoKeyLeak(project.root, [run], server);
    } finally {
      await server.close();
    }
  }
});

Deno.test("--cc keeps a report that lacks a heading and names the heading on stderr", async () => {
  await using project = await makeProject({ query: QUERY, rollup: ROLLUP });
  const reply = REPORT_HEADINGS.filter((_, i) => i !== 3)
    .map((heading) => `## ${heading}\n\nAll good.\n`).join("\n");
  const server = await startFakeLlmServer([geminiReply(reply)]);
  try {
    const run = await runTool(project.root, ["--cc"], { server });
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /lacks 1 of the 5 section headings \(no section "Errors and Mistakes within the Implementation"\); the report is written anyway/,
    );
    assert.equal(lastLine(run), REPORT);
    const split = splitReport(await project.read(REPORT));
    assert.deepEqual(split.missing, ["Errors and Mistakes within the Implementation"]);
    assert.equal(split.sections.length, 4);
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
  }
});

Deno.test("--cc keeps the last good report when the reply has none of the five headings, and exits 4", async () => {
  await using project = await makeProject({
    query: QUERY,
    rollup: ROLLUP,
    files: { [REPORT]: "the previous report\n" },
  });
  const server = await startFakeLlmServer([
    geminiReply("I cannot review this codebase: the query asks for something else.\n"),
  ]);
  try {
    const run = await runTool(project.root, ["--cc"], { server });
    assert.equal(run.code, 4, run.stderr);
    assert.equal(run.stdout, "");
    assert.equal(await project.read(REPORT), "the previous report\n");
    const [folder] = await project.logRuns();
    assert.match(
      run.stderr,
      new RegExp(
        `^code-commit: the reply of gemini-2\\.5-pro has none of the 5 section headings, so it is ` +
          `no consistency report and was not written: agent-config/consistency-report\\.txt is ` +
          `unchanged; see logs/${folder}/query-response\\.txt, then run again$`,
        "m",
      ),
    );
    assert.match(
      await project.read(`logs/${folder}/query-response.txt`),
      /I cannot review this codebase/,
      "the reply is kept in the log",
    );
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
  }
});

Deno.test("--cc exits 4 on an LLM error or an empty reply, and keeps the old report", async () => {
  const steps = [
    geminiError(400, "API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT"),
    geminiReply("   \n"),
  ];
  for (const step of steps) {
    await using project = await makeProject({
      query: QUERY,
      rollup: ROLLUP,
      files: { [REPORT]: "the previous report\n" },
    });
    const server = await startFakeLlmServer([step]);
    try {
      const run = await runTool(project.root, ["--cc"], { server });
      assert.equal(run.code, 4, run.stderr);
      assert.equal(run.stdout, "");
      assert.equal(await project.read(REPORT), "the previous report\n");
      const logs = await logFiles(project);
      if (step.status !== 200) {
        assert.match(logs.get("query-response.txt")!, /^ERROR\n/);
        assert.match(run.stderr, /API key not valid/);
      } else {
        assert.match(run.stderr, /is empty, so no report was written/);
      }
      await assertNoKeyLeak(project.root, [run], server);
    } finally {
      await server.close();
    }
  }
});

Deno.test("--cc refuses to write the report through a symbolic link, before any LLM call", async () => {
  for (const linked of ["report", "folder"] as const) {
    await using project = await makeProject({ query: QUERY, rollup: ROLLUP });
    const outside = await Deno.makeTempDir({ prefix: "code-commit-outside-" });
    try {
      await Deno.writeTextFile(join(outside, "target.txt"), "untouched\n");
      if (linked === "report") {
        await Deno.symlink(join(outside, "target.txt"), join(project.root, REPORT));
      } else {
        // agent-config itself is a link: the keys are read through it, the report is not written.
        for await (const entry of Deno.readDir(join(project.root, "agent-config"))) {
          await Deno.rename(
            join(project.root, "agent-config", entry.name),
            join(outside, entry.name),
          );
        }
        await Deno.remove(join(project.root, "agent-config"));
        await Deno.symlink(outside, join(project.root, "agent-config"));
      }
      const server = await startFakeLlmServer([
        geminiReply("User Specification Self Consistency\n"),
      ]);
      try {
        const run = await runTool(project.root, ["--cc"], { server });
        assert.equal(run.code, 3, run.stderr);
        assert.match(
          run.stderr,
          linked === "report"
            ? /agent-config\/consistency-report\.txt is a symbolic link/
            : /agent-config is a symbolic link/,
        );
        assert.equal(server.requests.length, 0);
        assert.equal(await Deno.readTextFile(join(outside, "target.txt")), "untouched\n");
        assert.equal(await project.exists("logs"), false);
      } finally {
        await server.close();
      }
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  }
});

Deno.test("--cc without agent-config/codeRollup.txt and without --build-context is an error", async () => {
  await using project = await makeProject({ query: QUERY, rollup: null });
  const server = await startFakeLlmServer([]);
  try {
    const run = await runTool(project.root, ["--cc"], { server });
    assert.equal(run.code, 3);
    assert.match(run.stderr, /agent-config\/codeRollup\.txt not found/);
    assert.equal(server.requests.length, 0);
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
  }
});
