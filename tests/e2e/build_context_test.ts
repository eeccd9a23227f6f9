/**
 * End-to-end tests of `--build-context`: the context builder in front of the
 * consistency report and of committing code. The real tool runs as a
 * subprocess with its production permissions against the fake LLM server, in
 * real temporary git projects holding ignored files, protected files, and
 * symbolic links that lead out of the project.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPORT_HEADINGS } from "../../lib/workflows/consistency_report/report.ts";
import {
  geminiReply,
  geminiText,
  openaiReply,
  openaiText,
  type RecordedRequest,
  startFakeLlmServer,
} from "../support/fake_llm_server.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import {
  consistencyPrompt,
  contextQueryPrompt,
  initialPrompt,
} from "../support/expected_prompts.ts";
import { GEMINI_KEY, git, makeProject, type Project, STATUS_BUILD } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";

const QUERY = "Review the parser.\n";

/** Markers in files that must never reach the model, a log, or the terminal. */
const SECRETS = {
  ignoredFile: "SECRET-IGNORED-ENV-7f3a",
  ignoredFolder: "SECRET-GENERATED-91c2",
  nodeModules: "SECRET-NODE-MODULES-55d0",
  agentConfig: "SECRET-AGENT-CONFIG-0b8e",
  outside: "SECRET-OUTSIDE-PROJECT-e4d1",
};

const GITIGNORE = "/agent-config\n/logs\nnode_modules/\n*.env\nsrc/generated/\n";

const FILES: Record<string, string> = {
  "UserSpecification.md": "# Spec\nThe parser parses.\n",
  "LLMInstructions.md": "Be careful.\n",
  "deno.json": '{ "name": "demo" }\n',
  "README.md": "# Demo\n",
  "src/main.ts": "import { parse } from './parser/parse.ts';\n",
  "src/status.txt": "broken\n",
  "src/parser/parse.ts": "export function parse(text: string) { return text; }\n",
  "src/parser/ModuleDependencies.md": "# Module Dependencies\n\nsrc/util\n",
  "src/parser/APISignatures.md": "export function parse(text: string): string\n",
  "src/parser/UserSpecification.md": "# Parser\n",
  "src/parser/deep/PublicAPI.md": "the deep API\n",
  "src/parser/deep/InternalDependencies.md": "none\n",
  "src/parser/deep/impl.ts": "export {};\n",
  "src/util/strings.ts": "export const trim = (s: string) => s.trim();\n",
  "secret.env": `TOKEN=${SECRETS.ignoredFile}\n`,
  "src/generated/out.ts": `// ${SECRETS.ignoredFolder}\n`,
  "node_modules/pkg/index.js": `// ${SECRETS.nodeModules}\n`,
  "agent-config/notes.txt": `${SECRETS.agentConfig}\n`,
};

/** Every path the preprocessing LLM asks for that must not be read, and the reason shown. */
const REFUSED: Record<string, RegExp> = {
  "secret.env": /is ignored by \.gitignore: the rule `\*\.env`/,
  "src/generated/out.ts": /is ignored by \.gitignore: the rule `src\/generated\/`/,
  "node_modules/pkg/index.js": /is ignored by \.gitignore: the rule `node_modules\/`/,
  "agent-config/notes.txt": /may not be read: `agent-config\/`/,
  "agent-config/gemini-key.txt": /may not be read: `agent-config\/`/,
  "../outside/leak.txt": /`\.\.` segment/,
  "src/../../outside/leak.txt": /`\.\.` segment/,
  "/etc/passwd": /is absolute/,
  "src/leak.txt": /is a symbolic link/,
  "src/outside/leak.txt": /passes through `src\/outside`, a symbolic link/,
  "src/missing.ts": /does not exist/,
  ".git/config": /may not be read: `\.git`/,
};

/** The files the preprocessing LLM asks for that are read. */
const CHOSEN = ["UserSpecification.md", "src/parser/parse.ts", "src/parser/APISignatures.md"];

const FILE_LIST_REPLY = [
  "These are the files the reviewer needs:",
  "",
  "%%%files",
  CHOSEN[0],
  ...Object.keys(REFUSED).slice(0, 6),
  `  ${CHOSEN[1]}  `,
  "",
  `./${CHOSEN[1]}`,
  ...Object.keys(REFUSED).slice(6),
  CHOSEN[2],
  CHOSEN[0],
  "%%%end",
  "",
  "That should be enough.",
].join("\n");

const EXPECTED_CODEBASE = CHOSEN.map((path) => `--- ${path} ---\n${FILES[path]}`).join("");

const EXPECTED_SUMMARY = `=== Project Root ===
--- .gitignore ---
${GITIGNORE}--- build.sh ---
${STATUS_BUILD}--- deno.json ---
${FILES["deno.json"]}--- LLMInstructions.md ---
${FILES["LLMInstructions.md"]}--- UserSpecification.md ---
${FILES["UserSpecification.md"]}--- FILENAMES ---
.gitignore
LLMInstructions.md
README.md
UserSpecification.md
build.sh
deno.json
src/main.ts
src/status.txt
--- END FILENAMES ---

=== src/empty ===
--- FILENAMES ---
--- END FILENAMES ---

=== src/parser ===
--- src/parser/ModuleDependencies.md ---
${FILES["src/parser/ModuleDependencies.md"]}--- src/parser/APISignatures.md ---
${FILES["src/parser/APISignatures.md"]}--- FILENAMES ---
src/parser/APISignatures.md
src/parser/ModuleDependencies.md
src/parser/UserSpecification.md
src/parser/parse.ts
--- END FILENAMES ---

=== src/parser/deep ===
--- src/parser/deep/InternalDependencies.md ---
${FILES["src/parser/deep/InternalDependencies.md"]}--- src/parser/deep/PublicAPI.md ---
${FILES["src/parser/deep/PublicAPI.md"]}--- FILENAMES ---
src/parser/deep/InternalDependencies.md
src/parser/deep/PublicAPI.md
src/parser/deep/impl.ts
--- END FILENAMES ---

=== src/util ===
--- FILENAMES ---
src/util/strings.ts
--- END FILENAMES ---
`;

/**
 * Makes the project, with an empty folder and links out of it, which git
 * cannot hold: `src/leak.txt` → a file outside, `src/outside` → a folder
 * outside. Returns the project and the outside folder.
 */
async function hostileProject(): Promise<{ project: Project; outside: string }> {
  const project = await makeProject({
    gitignore: GITIGNORE,
    buildScript: STATUS_BUILD,
    query: QUERY,
    rollup: null,
    files: FILES,
  });
  const outside = await Deno.makeTempDir({ prefix: "code-commit-outside-" });
  await Deno.writeTextFile(join(outside, "leak.txt"), `${SECRETS.outside}\n`);
  await Deno.mkdir(join(project.root, "src/empty"));
  await Deno.symlink(join(outside, "leak.txt"), join(project.root, "src/leak.txt"));
  await Deno.symlink(outside, join(project.root, "src/outside"));
  return { project, outside };
}

function promptOf(request: RecordedRequest): string {
  return request.api === "openai" ? openaiText(request) : geminiText(request);
}

/** Asserts that nothing secret reached the server, the logs, or the terminal. */
async function assertNothingRefusedWasRead(
  project: Project,
  server: { requests: RecordedRequest[] },
  output: string,
): Promise<void> {
  const logs: string[] = [];
  for (const run of await project.logRuns()) {
    for await (const entry of Deno.readDir(join(project.root, "logs", run))) {
      logs.push(await project.read(`logs/${run}/${entry.name}`));
    }
  }
  const everything = [...server.requests.map((r) => r.bodyText), ...logs, output];
  for (const [what, marker] of Object.entries(SECRETS)) {
    for (const text of everything) assert.ok(!text.includes(marker), `${what} was read`);
  }
  for (const text of everything) {
    assert.ok(!text.includes("root:x:0:0"), "/etc/passwd was read");
    assert.ok(!text.includes("[core]"), ".git/config was read");
    assert.ok(!text.includes(GEMINI_KEY), "the key was read");
  }
}

Deno.test("--cc --build-context builds the codebase with the context builder and reads no refused file", async () => {
  const { project, outside } = await hostileProject();
  await using _project = project;
  const report = REPORT_HEADINGS.map((heading) => `${heading}\n\nFine.\n`).join("\n");
  const server = await startFakeLlmServer([geminiReply(FILE_LIST_REPLY), geminiReply(report)]);
  try {
    const run = await runTool(project.root, ["--cc", "--build-context"], { server });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trimEnd().split("\n").at(-1), "agent-config/consistency-report.txt");
    assert.equal(server.requests.length, 2);

    // The preprocessing call: system prompt, next agent prompt (no codebase), summary.
    const contextPrompt = geminiText(server.requests[0]);
    assert.equal(contextPrompt, contextQueryPrompt(consistencyPrompt(QUERY), EXPECTED_SUMMARY));
    assert.match(
      contextPrompt,
      new RegExp(
        `\\n=== Next Agent Full Prompt ===\\n[^]*\\[query\\]\\n${QUERY}\\n=== Codebase Summary ===\\n`,
      ),
    );

    // The report call: its codebase is exactly the chosen files, each once.
    assert.equal(geminiText(server.requests[1]), consistencyPrompt(QUERY, EXPECTED_CODEBASE));

    // Every refused path is named on stderr with the guard's reason.
    for (const [path, reason] of Object.entries(REFUSED)) {
      const line = run.stderr.split("\n").find((l) =>
        l.includes(`context builder: ${path} was not provided`)
      );
      assert.ok(line, `no warning names ${path}:\n${run.stderr}`);
      assert.match(line, reason);
    }

    // Logs: the builder's call and codebase in the caller's folder, numbered 0.
    const [folder] = await project.logRuns();
    assert.match(folder, /-consistency-report$/);
    const names = [];
    for await (const entry of Deno.readDir(join(project.root, "logs", folder))) {
      names.push(entry.name);
    }
    assert.deepEqual(names.sort(), [
      "0-codebase.txt",
      "0-context-query-response.json",
      "0-context-query-response.txt",
      "0-context-query.txt",
      "query-response.json",
      "query-response.txt",
      "query.txt",
    ]);
    assert.equal(await project.read(`logs/${folder}/0-codebase.txt`), EXPECTED_CODEBASE);
    assert.equal(await project.read(`logs/${folder}/0-context-query.txt`), contextPrompt);

    await assertNothingRefusedWasRead(project, server, run.stdout + run.stderr);
    assert.equal(await Deno.readTextFile(join(outside, "leak.txt")), `${SECRETS.outside}\n`);
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("committing code with --build-context uses the chosen files as its codebase, with no rollup", async () => {
  const { project, outside } = await hostileProject();
  await using _project = project;
  const server = await startFakeLlmServer([
    geminiReply(FILE_LIST_REPLY.replace("%%%end", "src/status.txt\n%%%end")),
    geminiReply("^^^src/status.txt\nok\n^^^end\n"),
  ]);
  try {
    // --force: the hostile files are uncommitted, on purpose.
    const run = await runTool(project.root, ["--build-context", "--force"], { server });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /build passed after 1 attempt/);
    assert.equal(await project.read("src/status.txt"), "ok\n");
    assert.equal(
      geminiText(server.requests[0]),
      contextQueryPrompt(initialPrompt(QUERY), EXPECTED_SUMMARY),
    );
    const codebase = `${EXPECTED_CODEBASE}--- src/status.txt ---\nbroken\n`;
    assert.equal(geminiText(server.requests[1]), initialPrompt(QUERY, codebase));
    const [folder] = await project.logRuns();
    assert.match(folder, /-committing-code$/);
    assert.equal(await project.read(`logs/${folder}/0-codebase.txt`), codebase);
    assert.ok(await project.exists(`logs/${folder}/1-initial-query.txt`));
    await assertNothingRefusedWasRead(project, server, run.stdout + run.stderr);
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("the context builder uses the caller's model (--model gpt-5)", async () => {
  await using project = await makeProject({ query: QUERY, rollup: null, files: FILES });
  const report = REPORT_HEADINGS.map((heading) => `${heading}\n\nFine.\n`).join("\n");
  const server = await startFakeLlmServer([
    { ...openaiReply("%%%files\nsrc/main.ts\n%%%end\n"), expect: "openai" },
    { ...openaiReply(report), expect: "openai" },
  ]);
  try {
    const run = await runTool(project.root, ["--cc", "--build-context", "--model", "gpt-5"], {
      server,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(server.requests.map((r) => r.model), ["gpt-5", "gpt-5"]);
    assert.match(promptOf(server.requests[1]), /\[codebase\]\n--- src\/main\.ts ---\nimport/);
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
  }
});

Deno.test("a top-level file the summary shows in full that git ignores is an error, before any call", async () => {
  await using project = await makeProject({
    gitignore: "/agent-config\n/logs\nLLMInstructions.md\n",
    query: QUERY,
    rollup: null,
    files: { "LLMInstructions.md": "hidden\n" },
  });
  const server = await startFakeLlmServer([]);
  try {
    const run = await runTool(project.root, ["--cc", "--build-context"], { server });
    assert.equal(run.code, 3);
    assert.match(
      run.stderr,
      /LLMInstructions\.md is ignored by git \(the rule `LLMInstructions\.md` in \.gitignore\)/,
    );
    assert.equal(server.requests.length, 0);
    assert.equal(await project.exists("agent-config/consistency-report.txt"), false);
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
  }
});

Deno.test("a context-builder reply without a usable %%%files list fails the run with exit 4", async () => {
  const replies = [
    ["no list at all, just prose", /has no %%%files line/],
    ["%%%files\nsrc/main.ts\n", /has no %%%end line; the reply may have been cut off/],
    ["%%%files\na\n%%%end\n%%%files\nb\n%%%end\n", /has 2 %%%files lines/],
  ] as const;
  for (const [reply, message] of replies) {
    await using project = await makeProject({ query: QUERY, rollup: null, files: FILES });
    const server = await startFakeLlmServer([geminiReply(reply)]);
    try {
      const run = await runTool(project.root, ["--build-context"], { server });
      assert.equal(run.code, 4, run.stderr);
      assert.match(run.stderr, /the context builder's reply cannot be used/);
      assert.match(run.stderr, message);
      assert.equal(server.requests.length, 1);
      assert.equal(await project.read("src/status.txt"), "broken\n");
      await assertNoKeyLeak(project.root, [run], server);
    } finally {
      await server.close();
    }
  }
});

Deno.test("a file list written as a markdown list is read; one where no file survives stops the run before the edit call", async () => {
  await using project = await makeProject({ query: QUERY, rollup: null, files: FILES });
  const server = await startFakeLlmServer([
    geminiReply("```\n%%%files\n- `src/status.txt`\n* `src/main.ts`\n%%%end\n```\n"),
    geminiReply("^^^src/status.txt\nok\n^^^end\n"),
    geminiReply("%%%files\n- `index.js`\n%%%end\n"),
    geminiReply("never sent"),
  ]);
  try {
    const run = await runTool(project.root, ["--build-context"], { server });
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      geminiText(server.requests[1]),
      /--- src\/status\.txt ---\nbroken\n--- src\/main\.ts ---/,
    );

    // The first run's change, committed: a run refuses uncommitted changes.
    await git(project.root, "add", "-A");
    await git(project.root, "commit", "-qm", "the first run");
    const blind = await runTool(project.root, ["--build-context"], { server });
    assert.equal(blind.code, 4, blind.stderr);
    assert.equal(server.requests.length, 3, "no edit call after an empty codebase");
    assert.match(blind.stderr, /context builder: index\.js was not provided: does not exist/);
    assert.match(
      blind.stderr,
      /code-commit: the context builder provided no file \(1 requested, none could be read\), so the run stops rather than change code the model has not seen/,
    );
    await assertNoKeyLeak(project.root, [run, blind], server);
  } finally {
    await server.close();
  }
});
