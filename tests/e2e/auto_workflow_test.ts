/**
 * End-to-end tests of the auto workflow: the real tool, run as a subprocess
 * with its production permissions, in real temporary git projects, against
 * the fake LLM server.
 *
 * The project is `tests/fixtures/auto_workflow/five_modules`: five modules at
 * four depths (L0 src/core and src/util, L1 src/llm/gemini, L2 src/llm, L3 the
 * root). Each specification holds a `MODULE-MARKER <module> v1` line, so each
 * recorded prompt tells which module it was for (from its
 * `[target user specification]` section) and which stage (from its
 * `[<stage> prompt]` label).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type FakeLlmServer,
  geminiReply,
  geminiText,
  type RecordedRequest,
  type ScriptStep,
  startFakeLlmServer,
} from "../support/fake_llm_server.ts";
import { LAST_RUN_FILE } from "../../lib/cli/last_run.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import {
  GEMINI_KEY,
  git,
  listFiles,
  makeProject,
  type Project,
  tempProject,
} from "../support/project.ts";
import { runTool, type ToolRun } from "../support/run_tool.ts";
import { fixtureFiles } from "../workflows/auto_workflow/helpers.ts";

const FIVE_MODULES = await fixtureFiles("five_modules");

const SUCCESS = "Checked.\n@@@@task-success@@@@\n";

/** The modules in processing order, and the phase-1 stages. */
const ORDER = ["src/core", "src/util", "src/llm/gemini", "src/llm", "root"];
const PHASE1 = ["self-consistent", "implemented", "documented", "happy-path-tested"];

/** Spec path of each module, as the log folder names spell it. */
const SPEC_SLUG: Record<string, string> = {
  "src/core": "src+core+UserSpecification.md",
  "src/util": "src+util+UserSpecification.md",
  "src/llm/gemini": "src+llm+gemini+UserSpecification.md",
  "src/llm": "src+llm+UserSpecification.md",
  "root": "UserSpecification.md",
};

/** The specification file of each module. */
const SPEC_FILE: Record<string, string> = {
  "src/core": "src/core/UserSpecification.md",
  "src/util": "src/util/UserSpecification.md",
  "src/llm/gemini": "src/llm/gemini/UserSpecification.md",
  "src/llm": "src/llm/UserSpecification.md",
  "root": "UserSpecification.md",
};

/** The stage named by a prompt's stage label; the `cached` variant gets a `+cache` suffix. */
const STAGE_LABELS: Record<string, string> = {
  "self consistent prompt": "self-consistent",
  "implementation-no-cache prompt": "implemented",
  "implementation-with-cache prompt": "implemented+cache",
  "documented prompt": "documented",
  "happy-path-tested prompt": "happy-path-tested",
  "dependency-verified prompt": "dependency-verified",
};

/** `<module> <stage>` of a recorded request, read from its prompt. */
function taskOf(request: RecordedRequest): string {
  const prompt = geminiText(request);
  const labels = [...prompt.matchAll(/^\[([^\]\n]+ prompt)\]$/gm)].map((m) => m[1]);
  const stages = labels.filter((label) => label in STAGE_LABELS);
  assert.equal(stages.length, 1, `stage labels in the prompt: ${labels.join(", ")}`);
  let stage = STAGE_LABELS[stages[0]];
  if (stage === "happy-path-tested" && prompt.includes("\n[cached target user specification]\n")) {
    stage += "+cache";
  }
  const target = /\n\[target user specification\]\n[^]*?MODULE-MARKER (\S+) v\d/.exec(prompt);
  return `${target?.[1] ?? "root"} ${stage}`;
}

/** The phase-1 tasks of `modules`, in order, as {@link taskOf} names them. */
function phase1Of(...modules: string[]): string[] {
  return modules.flatMap((module) => PHASE1.map((stage) => `${module} ${stage}`));
}

/** The `--- path ---` headers of the `[codebase]` section of a request. */
function codebaseHeaders(request: RecordedRequest): string[] {
  const prompt = geminiText(request);
  const codebase = prompt.slice(prompt.indexOf("\n[codebase]\n"));
  return [...codebase.matchAll(/^--- (.+) ---$/gm)].map((m) => m[1]);
}

/** A project made from the fixture, with `changes` applied (null deletes a file). */
function fiveModules(
  changes: Record<string, string | null> = {},
  buildScript?: string,
): Promise<Project> {
  const files: Record<string, string> = { ...FIVE_MODULES };
  for (const [path, content] of Object.entries(changes)) {
    if (content === null) delete files[path];
    else files[path] = content;
  }
  return makeProject({ files, query: null, rollup: null, buildScript });
}

/** The slugs of `logs/` folders (date and any `-2` suffix removed), sorted. */
function slugs(folders: readonly string[]): string[] {
  return folders.map((name) => {
    const match = /^\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d-(.+?)(-\d+)?$/.exec(name);
    assert.ok(match, `log folder ${name} is not named YYYY-MM-DD-hh-mm-ss-<slug>`);
    return match[1];
  }).sort();
}

function slugOf(module: string, stage: string): string {
  return `auto-workflow-${SPEC_SLUG[module]}-${stage}`;
}

/** The files of the specification cache, path → content. */
async function cacheFiles(project: Project): Promise<Record<string, string>> {
  const root = join(project.root, "agent-state");
  const files: Record<string, string> = {};
  try {
    for (const path of await listFiles(root)) {
      files[`agent-state/${path}`] = await Deno.readTextFile(join(root, path));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return files;
}

/** The cache file of `module`'s `stage`. */
function cacheFile(module: string, stage: string): string {
  return module === "root"
    ? `agent-state/specifications/${stage}`
    : `agent-state/specifications/${module}/${stage}`;
}

/** The cache a run should leave: each `module stage` holding the module's spec (from `project`). */
async function expectedCache(
  project: Project,
  tasks: readonly string[],
): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const task of tasks) {
    const [module, stage] = task.split(" ");
    files[cacheFile(module, stage.replace("+cache", ""))] = await project.read(SPEC_FILE[module]);
  }
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => a < b ? -1 : 1));
}

/** Runs `code-commit --aw` (plus `args`) with a fresh server answering `script`. */
async function runAw(
  project: Project,
  script: ScriptStep[],
  args: string[] = [],
): Promise<{ run: ToolRun; server: FakeLlmServer; tasks: string[] }> {
  const server = await startFakeLlmServer(script);
  try {
    const run = await runTool(project.root, ["--aw", ...args], { server });
    await assertNoKeyLeak(project.root, [run], server);
    assert.equal(server.remaining(), 0, `unused replies; stderr:\n${run.stderr}`);
    return { run, server, tasks: server.requests.map(taskOf) };
  } finally {
    await server.close();
  }
}

Deno.test("auto workflow: a full phase-1 run, a re-run after one spec edit, then nothing left", async () => {
  await using project = await fiveModules();

  // 1. From nothing: 20 tasks, every one a task-success.
  const first = await runAw(project, Array.from({ length: 20 }, () => geminiReply(SUCCESS)));
  assert.equal(first.run.code, 0, first.run.stderr);
  assert.deepEqual(first.tasks, phase1Of(...ORDER));
  assert.match(
    first.run.stdout,
    /^auto workflow: nothing left to do: all 5 modules passed phase 1 \(20 tasks passed in this run; 20 LLM calls, [^)]*\); run with --max-phase 2 to go on to phase 2\n$/,
  );
  assert.match(
    first.run.stderr,
    /^auto workflow with gemini-2\.5-pro: 5 modules, phases 1 to 1; L0: src\/core, src\/util; L1: src\/llm\/gemini; L2: src\/llm; L3: the root module \(UserSpecification\.md\)$/m,
  );
  assert.deepEqual(await cacheFiles(project), await expectedCache(project, phase1Of(...ORDER)));

  const firstRuns = await project.logRuns();
  assert.deepEqual(
    slugs(firstRuns),
    ORDER.flatMap((module) => PHASE1.map((stage) => slugOf(module, stage))).sort(),
  );
  for (const folder of firstRuns) {
    const files = (await listFiles(join(project.root, "logs", folder))).sort();
    assert.deepEqual(
      files,
      folder.endsWith("-self-consistent")
        ? ["query-response.json", "query-response.txt", "query.txt"]
        : [
          "1-initial-query-build.txt",
          "1-initial-query-response.json",
          "1-initial-query-response.txt",
          "1-initial-query.txt",
        ],
      folder,
    );
  }

  // The codebases: full for implemented (top spec, the module, each dependency's spec and API;
  // src/util has no APISignatures.md), the module alone for documented.
  const requests = first.server.requests;
  assert.deepEqual(codebaseHeaders(requests[13]), [
    "UserSpecification.md",
    "src/llm/APISignatures.md",
    "src/llm/ModuleDependencies.md",
    "src/llm/UserSpecification.md",
    "src/llm/llm.txt",
    "src/llm/gemini/UserSpecification.md",
    "src/llm/gemini/APISignatures.md",
    "src/util/UserSpecification.md",
  ]);
  assert.deepEqual(codebaseHeaders(requests[14]), [
    "src/llm/APISignatures.md",
    "src/llm/ModuleDependencies.md",
    "src/llm/UserSpecification.md",
    "src/llm/llm.txt",
  ]);
  assert.deepEqual(codebaseHeaders(requests[17]), [
    "UserSpecification.md",
    ".gitignore",
    "build.sh",
    "docs/usage.md",
    "src/APISignatures.md",
    "src/ModuleDependencies.md",
    "src/main.txt",
    "src/core/UserSpecification.md",
    "src/core/APISignatures.md",
    "src/llm/UserSpecification.md",
    "src/llm/APISignatures.md",
  ]);
  // self-consistent of the root has no target section; of a module it has one.
  assert.ok(!geminiText(requests[16]).includes("[target user specification]"));
  assert.ok(geminiText(requests[0]).includes("[target user specification]\n# Core\n"));

  // 2. Edit src/llm's specification: only its four stages run again, with the cached variants.
  const before = await cacheFiles(project);
  const oldSpec = await project.read("src/llm/UserSpecification.md");
  const newSpec = oldSpec.replace("MODULE-MARKER src/llm v1", "MODULE-MARKER src/llm v2") +
    "\nIt caches each translation for one hour.\n";
  await project.write("src/llm/UserSpecification.md", newSpec);
  const second = await runAw(project, Array.from({ length: 4 }, () => geminiReply(SUCCESS)));
  assert.equal(second.run.code, 0, second.run.stderr);
  assert.deepEqual(second.tasks, [
    "src/llm self-consistent",
    "src/llm implemented+cache",
    "src/llm documented",
    "src/llm happy-path-tested+cache",
  ]);
  for (const index of [1, 3]) {
    const prompt = geminiText(second.server.requests[index]);
    assert.ok(
      prompt.includes(
        `[cached target user specification]\n${oldSpec}\n[target user specification]\n${newSpec}`,
      ),
      "the cached section holds the old specification, the target the new one",
    );
  }
  assert.match(second.run.stdout, /\(4 tasks passed in this run; 4 LLM calls, /);
  const after = await cacheFiles(project);
  for (const [path, content] of Object.entries(before)) {
    assert.equal(
      after[path],
      path.includes("/src/llm/") && !path.includes("/gemini/") ? newSpec : content,
      path,
    );
  }
  assert.equal(Object.keys(after).length, 20);
  const secondRuns = (await project.logRuns()).filter((name) => !firstRuns.includes(name));
  assert.deepEqual(slugs(secondRuns), PHASE1.map((stage) => slugOf("src/llm", stage)).sort());

  // 3. Nothing left: no LLM call, no log folder.
  const third = await runAw(project, []);
  assert.equal(third.run.code, 0, third.run.stderr);
  assert.equal(third.server.requests.length, 0);
  assert.match(
    third.run.stdout,
    /^auto workflow: nothing left to do: all 5 modules passed phase 1 \(0 tasks passed in this run\); run with --max-phase 2/,
  );
  assert.equal((await project.logRuns()).length, 24);
});

Deno.test("auto workflow: changes-requested prints the comment and stops (exit 7); a comment on task-success is printed too", async () => {
  await using project = await fiveModules();
  const { run, tasks } = await runAw(project, [
    geminiReply("@@@@task-success@@@@\n%%%%comment%%%%\nClear enough.\n%%%%end%%%%\n"),
    geminiReply(SUCCESS),
    geminiReply(
      "The docs disagree with the code.\n@@@@changes-requested@@@@\n%%%%comment%%%%\n" +
        "APISignatures.md names greet(name), but the spec asks for greet(name, title).\n" +
        "Say which one is meant.\n%%%%end%%%%\n",
    ),
  ]);
  assert.equal(run.code, 7, run.stderr);
  assert.deepEqual(tasks, [
    "src/core self-consistent",
    "src/core implemented",
    "src/core documented",
  ]);
  const lines = run.stdout.split("\n");
  assert.deepEqual(lines.slice(0, 6), [
    "comment on src/core (src/core/UserSpecification.md), stage self-consistent:",
    "Clear enough.",
    "comment on src/core (src/core/UserSpecification.md), stage documented:",
    "APISignatures.md names greet(name), but the spec asks for greet(name, title).",
    "Say which one is meant.",
    lines[5],
  ]);
  assert.match(
    lines[5],
    /^auto workflow: stopped at src\/core \(src\/core\/UserSpecification\.md\), stage documented \(phase 1\): changes requested \(see the comment above\); no file changed; make the changes, then run code-commit --aw again; 2 tasks passed before it; 3 LLM calls, .*; logs in logs\/\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d-auto-workflow-src\+core\+UserSpecification\.md-documented$/,
  );
  assert.equal(lines.length, 7);
  assert.deepEqual(
    await cacheFiles(project),
    await expectedCache(project, ["src/core self-consistent", "src/core implemented"]),
  );
  assert.deepEqual(
    slugs(await project.logRuns()),
    ["documented", "implemented", "self-consistent"].map((stage) => slugOf("src/core", stage)),
  );
});

Deno.test("auto workflow: changes-requested at the first task stops before anything is cached", async () => {
  await using project = await fiveModules();
  const { run, tasks } = await runAw(project, [
    geminiReply(
      "@@@@changes-requested@@@@\n%%%%comment%%%%\nSay what an empty name does.\n%%%%end%%%%",
    ),
  ]);
  assert.equal(run.code, 7, run.stderr);
  assert.deepEqual(tasks, ["src/core self-consistent"]);
  assert.match(
    run.stdout,
    /^comment on src\/core .*stage self-consistent:\nSay what an empty name does\.\nauto workflow: stopped at src\/core .*, stage self-consistent \(phase 1\): changes requested/,
  );
  assert.deepEqual(await cacheFiles(project), {});
});

Deno.test("auto workflow: changes-attempted applies the files, stops for review (exit 7), and a re-run resumes at that stage", async () => {
  await using project = await fiveModules();
  const first = await runAw(project, [
    geminiReply(SUCCESS),
    geminiReply(
      "^^^src/core/core.ts\nexport function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n" +
        "^^^end\n@@@@changes-attempted@@@@\n%%%%comment%%%%\nWrote greet.\n%%%%end%%%%\n",
    ),
  ]);
  assert.equal(first.run.code, 7, first.run.stderr);
  assert.deepEqual(first.tasks, ["src/core self-consistent", "src/core implemented"]);
  assert.equal(
    await project.read("src/core/core.ts"),
    "export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n",
  );
  assert.equal(
    await git(project.root, "status", "--porcelain", "--", "src"),
    "?? src/core/core.ts\n",
  );
  assert.match(
    first.run.stdout,
    /^comment on src\/core \(src\/core\/UserSpecification\.md\), stage implemented:\nWrote greet\.\n1 file changed by this run \(1 created\):\n {2}created {3}src\/core\/core\.ts {2}\+3 -0\nauto workflow: stopped at src\/core \(src\/core\/UserSpecification\.md\), stage implemented \(phase 1\): changes attempted \(1 file changed by the task\); review them with git status and git diff \(or take the run back with code-commit --undo\), then run code-commit --aw again; 1 task passed before it; /,
  );
  // The comment is printed once, on stdout; the status tag is not shown as the model's words.
  assert.equal(`${first.run.stdout}${first.run.stderr}`.split("Wrote greet.").length, 2);
  assert.doesNotMatch(first.run.stderr, /@@@@|%%%%|says:/);
  assert.deepEqual(
    await cacheFiles(project),
    await expectedCache(project, ["src/core self-consistent"]),
  );

  // The user reviewed and committed (a run on uncommitted changes is refused without
  // --force); the next run starts again at implemented.
  await git(project.root, "add", "-A");
  await git(project.root, "commit", "-q", "-m", "reviewed");
  const second = await runAw(project, [
    geminiReply(SUCCESS),
    geminiReply("@@@@changes-requested@@@@"),
  ]);
  assert.deepEqual(second.tasks, ["src/core implemented", "src/core documented"]);
  assert.match(
    second.run.stdout,
    /stage documented \(phase 1\): changes requested \(the reply gave no comment\)/,
  );
  assert.ok(
    codebaseHeaders(second.server.requests[0]).includes("src/core/core.ts"),
    "the new file is in the next codebase",
  );
});

Deno.test("auto workflow: a task-success that changed files is cached (the tag decides), with a warning to review", async () => {
  await using project = await fiveModules();
  const { run, tasks } = await runAw(project, [
    geminiReply(SUCCESS),
    geminiReply("^^^src/core/core.txt\nnew core\n^^^end\n@@@@task-success@@@@\n"),
    geminiReply("@@@@changes-requested@@@@\n"),
  ]);
  assert.equal(run.code, 7, run.stderr);
  assert.deepEqual(tasks, [
    "src/core self-consistent",
    "src/core implemented",
    "src/core documented",
  ]);
  assert.equal(await project.read("src/core/core.txt"), "new core\n");
  assert.match(
    run.stderr,
    /changed src\/core\/core\.txt and its reply says task-success: the stage is recorded as passed; review the changes with git status and git diff/,
  );
  assert.deepEqual(
    await cacheFiles(project),
    await expectedCache(project, ["src/core self-consistent", "src/core implemented"]),
  );
});

Deno.test("auto workflow: --undo takes back every task of the run, code and recorded stages alike; the next run does those stages again", async () => {
  await using project = await fiveModules();
  const before = await project.snapshot();
  const { run, tasks } = await runAw(project, [
    geminiReply(SUCCESS),
    geminiReply("^^^src/core/core.txt\nnew core\n^^^end\n@@@@task-success@@@@\n"),
    geminiReply("^^^src/core/docs/core.md\n# core\n^^^end\n@@@@task-success@@@@\n"),
    geminiReply("@@@@changes-requested@@@@\n"),
  ]);
  assert.equal(run.code, 7, run.stderr);
  assert.deepEqual(tasks.slice(0, 3), [
    "src/core self-consistent",
    "src/core implemented",
    "src/core documented",
  ]);
  assert.match(run.stdout, /2 files changed by this run \(1 created, 1 replaced\):\n/);

  const undone = await runTool(project.root, ["--undo"]);
  assert.equal(undone.code, 0, undone.stderr);
  assert.match(
    undone.stdout,
    /^undo: took back the auto workflow run logged in logs\/[\d-]+-auto-workflow-src\+core\+UserSpecification\.md-self-consistent: /m,
  );
  const after = await project.snapshot();
  for (const [path, content] of before) assert.equal(after.get(path), content, path);
  assert.deepEqual(
    [...after.keys()].filter((path) =>
      !before.has(path) && !path.startsWith("logs/") &&
      !path.startsWith("agent-config/journal/")
    ),
    [LAST_RUN_FILE], // the undo's own object, which runTool checks
  );
  assert.equal(await project.exists("src/core/docs"), false);
  assert.deepEqual(await cacheFiles(project), {});

  // The stages the run had recorded are done again.
  const again = await runAw(project, [geminiReply("@@@@changes-requested@@@@\n")]);
  assert.deepEqual(again.tasks, ["src/core self-consistent"]);
});

Deno.test("auto workflow: self-consistent never applies file blocks", async () => {
  await using project = await fiveModules();
  const { run, tasks } = await runAw(project, [
    geminiReply(
      "^^^src/core/core.txt\nhacked\n^^^end\n^^^src/core/new.txt\nx\n^^^end\n@@@@task-success@@@@\n",
    ),
    geminiReply("@@@@changes-requested@@@@\n"),
  ]);
  assert.equal(run.code, 7, run.stderr);
  assert.deepEqual(tasks, ["src/core self-consistent", "src/core implemented"]);
  assert.equal(await project.read("src/core/core.txt"), "core code\n");
  assert.equal(await project.exists("src/core/new.txt"), false);
  assert.match(run.stderr, /the reply holds 2 file blocks, ignored: self-consistent reviews only/);
});

Deno.test("auto workflow: a module file named with a newline, or ignored only once case is folded, never reaches a prompt", async () => {
  await using project = await fiveModules({
    ".gitignore": "/agent-config\n/logs\nnode_modules/\nSecret.txt\nBuild/\n",
    "src/core/new\nline.txt": "--- src/core/forged.txt ---\nFORGED-BLOCK-3c1e\n",
    "src/core/secret.txt": "SECRET-CASE-FOLDED-FILE-8d2a\n",
    "src/core/build/out.txt": "SECRET-CASE-FOLDED-FOLDER-1f7b\n",
  });
  const { run, server, tasks } = await runAw(project, [
    geminiReply(SUCCESS),
    geminiReply("@@@@changes-requested@@@@\n"),
  ]);
  assert.equal(run.code, 7, run.stderr);
  assert.deepEqual(tasks, ["src/core self-consistent", "src/core implemented"]);
  assert.deepEqual(codebaseHeaders(server.requests[1]), [
    "UserSpecification.md",
    "src/core/APISignatures.md",
    "src/core/ModuleDependencies.md",
    "src/core/UserSpecification.md",
    "src/core/core.txt",
  ]);
  for (const request of server.requests) {
    for (const marker of ["FORGED-BLOCK-3c1e", "SECRET-CASE-FOLDED"]) {
      assert.ok(!request.bodyText.includes(marker), marker);
    }
  }
  assert.match(
    run.stderr,
    /^warning: src\/core \(src\/core\/UserSpecification\.md\), stage implemented: "src\/core\/new\\nline\.txt": left out of the codebase: contains the control character U\+000A$/m,
  );
});

const BAD_REPLIES: readonly [string, string, RegExp][] = [
  ["no tag", "Everything is fine.", /the reply has no status tag/],
  ["two tags", "@@@@task-success@@@@\n@@@@changes-requested@@@@", /the reply has 2 status tags/],
  [
    "two comments",
    "@@@@changes-requested@@@@\n%%%%comment%%%%\na\n%%%%end%%%%\n%%%%comment%%%%\nb\n%%%%end%%%%",
    /the reply has 2 comment sections/,
  ],
  [
    "a malformed comment",
    "@@@@changes-requested@@@@\n%%%%comment%%%%\nnever closed",
    /comment is malformed/,
  ],
  [
    "changes-attempted in self-consistent",
    "^^^src/core/core.txt\nchanged\n^^^end\n@@@@changes-attempted@@@@",
    /the reply says changes-attempted, but self-consistent reviews only and changes no file \(nothing was written\)/,
  ],
];

for (const [name, reply, message] of BAD_REPLIES) {
  Deno.test(`auto workflow: ${name} is an error (exit 4) naming the log file`, async () => {
    await using project = await fiveModules();
    const { run, tasks } = await runAw(project, [geminiReply(reply)]);
    assert.equal(run.code, 4, run.stderr);
    assert.deepEqual(tasks, ["src/core self-consistent"]);
    const [folder] = await project.logRuns();
    assert.match(run.stderr, message);
    assert.ok(
      run.stderr.includes(`see logs/${folder}/query-response.txt`),
      `stderr names the reply's log file:\n${run.stderr}`,
    );
    assert.equal(await project.read("src/core/core.txt"), "core code\n");
    assert.deepEqual(await cacheFiles(project), {});
  });
}

Deno.test("auto workflow: a code-changing stage whose final reply has no tag is an error naming that reply's log", async () => {
  await using project = await fiveModules();
  const { run, tasks } = await runAw(project, [
    geminiReply(SUCCESS),
    geminiReply("^^^src/core/core.txt\nnew\n^^^end\nDone."),
  ]);
  assert.equal(run.code, 4, run.stderr);
  assert.deepEqual(tasks, ["src/core self-consistent", "src/core implemented"]);
  const folder = (await project.logRuns()).find((name) => name.endsWith("-implemented"))!
    .replace(/[.+]/g, "\\$&");
  assert.match(
    run.stderr,
    new RegExp(
      `the build passed, but the reply has no status tag: .*; see logs/${folder}/1-initial-query-response\\.txt ` +
        "\\(1 file this task changed is left in place: review with git status and git diff, " +
        "or take the run back with code-commit --undo\\)",
    ),
  );
  assert.deepEqual(
    await cacheFiles(project),
    await expectedCache(project, ["src/core self-consistent"]),
  );
});

Deno.test("auto workflow: a build still failing after the repairs fails the task (exit 1), nothing cached", async () => {
  const build = `#!/bin/sh
if grep -q bad src/core/core.txt; then echo "core is bad" >&2; exit 1; fi
echo ok
`;
  await using project = await fiveModules({}, build);
  const bad = geminiReply("^^^src/core/core.txt\nbad\n^^^end\n@@@@changes-attempted@@@@\n");
  const { run, server } = await runAw(project, [geminiReply(SUCCESS), bad, bad, bad, bad]);
  assert.equal(run.code, 1, run.stderr);
  assert.equal(server.requests.length, 5);
  assert.match(
    run.stdout,
    /^1 file changed by this run \(1 replaced\):\n {2}replaced {2}src\/core\/core\.txt {2}\+1 -\d+\nauto workflow: src\/core \(src\/core\/UserSpecification\.md\), stage implemented \(phase 1\) failed: the build still fails after 4 attempts \(1 file changed by the task, left in place: see them with git status and git diff, or take the whole run back with code-commit --undo\); 1 task passed before it; /,
  );
  assert.deepEqual(
    await cacheFiles(project),
    await expectedCache(project, ["src/core self-consistent"]),
  );
  const folder = (await project.logRuns()).find((name) => name.endsWith("-implemented"))!;
  assert.deepEqual(
    (await listFiles(join(project.root, "logs", folder))).filter((f) => f.endsWith("-build.txt")),
    [
      "1-initial-query-build.txt",
      "2-repair-query-1-build.txt",
      "3-repair-query-2-build.txt",
      "4-repair-query-3-build.txt",
    ],
  );
});

Deno.test("auto workflow: a task whose every reply writes the key stops for safety (exit 5): nothing applied, nothing cached", async () => {
  await using project = await fiveModules({}, "#!/bin/sh\necho ok\n");
  const keyed = geminiReply(
    `^^^src/core/core.txt\nkey = ${GEMINI_KEY}\n^^^end\n@@@@changes-attempted@@@@\n`,
  );
  const { run, server } = await runAw(project, [geminiReply(SUCCESS), keyed, keyed, keyed, keyed]);
  assert.equal(run.code, 5, run.stderr);
  assert.equal(server.requests.length, 5);
  assert.equal(await project.read("src/core/core.txt"), "core code\n");
  assert.deepEqual(
    await cacheFiles(project),
    await expectedCache(project, ["src/core self-consistent"]),
  );
  assert(!`${run.stdout}${run.stderr}`.includes(GEMINI_KEY));
});

/** A build that counts its runs in `build-runs.txt` and always fails. */
const COUNTING_FAILING_BUILD = `#!/bin/sh
echo run >> build-runs.txt
echo "core is bad" >&2
exit 1
`;

Deno.test("auto workflow: changes-requested while the build fails prints the comment and stops (exit 7); its files are not applied, no build runs", async () => {
  await using project = await fiveModules({}, COUNTING_FAILING_BUILD);
  const { run, server, tasks } = await runAw(project, [
    geminiReply(SUCCESS),
    geminiReply("^^^src/core/core.txt\nbad\n^^^end\n@@@@changes-attempted@@@@\n"),
    geminiReply(
      "^^^src/core/core.txt\nworse\n^^^end\n^^^src/core/extra.txt\nx\n^^^end\n" +
        "@@@@changes-requested@@@@\n%%%%comment%%%%\nThe spec asks for a network call the " +
        "sandbox forbids.\nSay which one wins.\n%%%%end%%%%\n",
    ),
  ]);
  assert.equal(run.code, 7, run.stderr);
  assert.equal(server.requests.length, 3, "no repair after the changes-requested reply");
  assert.deepEqual(tasks, [
    "src/core self-consistent",
    "src/core implemented",
    "src/core implemented",
  ]);
  const lines = run.stdout.split("\n");
  assert.deepEqual(lines.slice(0, 3), [
    "comment on src/core (src/core/UserSpecification.md), stage implemented:",
    "The spec asks for a network call the sandbox forbids.",
    "Say which one wins.",
  ]);
  assert.deepEqual(lines.slice(3, 5), [
    "1 file changed by this run (1 replaced):",
    lines[4].replace(/\+1 -\d+$/, "+1 -1"),
  ]);
  assert.match(lines[4], /^ {2}replaced {2}src\/core\/core\.txt {2}\+1 -\d+$/);
  assert.match(
    lines[5],
    /^auto workflow: stopped at src\/core \(src\/core\/UserSpecification\.md\), stage implemented \(phase 1\): changes requested in repair 1, before the build passed \(see the comment above\); 1 file changed by the task \(left in place: see them with git status and git diff, or take the whole run back with code-commit --undo\); make the changes, then run code-commit --aw again; 1 task passed before it; 3 LLM calls, /,
  );
  assert.equal(lines.length, 7);
  assert.match(
    run.stderr,
    /the reply holds 2 file blocks, not applied: a changes-requested reply changes no file/,
  );
  // The first reply was applied and built once; the changes-requested reply was neither.
  assert.equal(await project.read("src/core/core.txt"), "bad\n");
  assert.equal(await project.exists("src/core/extra.txt"), false);
  assert.equal(await project.read("build-runs.txt"), "run\n");
  const folder = (await project.logRuns()).find((name) => name.endsWith("-implemented"))!;
  const logs = join(project.root, "logs", folder);
  assert.deepEqual((await listFiles(logs)).filter((f) => f.endsWith("-build.txt")), [
    "1-initial-query-build.txt",
    "2-repair-query-1-build.txt",
  ]);
  assert.equal(
    await Deno.readTextFile(join(logs, "2-repair-query-1-build.txt")),
    "build.sh was not run: the reply says changes-requested, so none of it was applied\n",
  );
  assert.deepEqual(
    await cacheFiles(project),
    await expectedCache(project, ["src/core self-consistent"]),
  );
});

Deno.test("auto workflow: a first reply saying changes-requested stops before the build, which would fail", async () => {
  await using project = await fiveModules({}, COUNTING_FAILING_BUILD);
  const { run, server } = await runAw(project, [
    geminiReply(SUCCESS),
    geminiReply("@@@@changes-requested@@@@\n%%%%comment%%%%\nWhich greeting?\n%%%%end%%%%\n"),
  ]);
  assert.equal(run.code, 7, run.stderr);
  assert.equal(server.requests.length, 2);
  assert.match(
    run.stdout,
    /^comment on src\/core \(src\/core\/UserSpecification\.md\), stage implemented:\nWhich greeting\?\nauto workflow: stopped at src\/core \(src\/core\/UserSpecification\.md\), stage implemented \(phase 1\): changes requested \(see the comment above\); no file changed; make the changes/,
  );
  assert.equal(await project.exists("build-runs.txt"), false, "build.sh never ran");
  assert.doesNotMatch(run.stderr, /running \.\/build\.sh/);
});

Deno.test("auto workflow: --max-phase 2 goes on to phase 2 once phase 1 is cached", async () => {
  await using project = await fiveModules();
  for (const module of ORDER) {
    for (const stage of PHASE1) {
      await project.write(cacheFile(module, stage), await project.read(SPEC_FILE[module]));
    }
  }
  const { run, tasks } = await runAw(project, [geminiReply("@@@@changes-requested@@@@")], [
    "--max-phase",
    "2",
  ]);
  assert.equal(run.code, 7, run.stderr);
  assert.deepEqual(tasks, ["src/core dependency-verified"]);
  assert.match(run.stdout, /stage dependency-verified \(phase 2\): changes requested/);
  assert.deepEqual(slugs(await project.logRuns()), [slugOf("src/core", "dependency-verified")]);
});

/** Structural errors: each refused with exit 3 before any LLM call, naming the module. */
const STRUCTURE_ERRORS: readonly [string, Record<string, string | null>, RegExp[]][] = [
  [
    "a missing ModuleDependencies.md",
    { "src/llm/ModuleDependencies.md": null },
    [/^code-commit: src\/llm \(src\/llm\/UserSpecification\.md\) has no ModuleDependencies\.md: create src\/llm\/ModuleDependencies\.md/m],
  ],
  [
    "a bad header",
    { "src/core/ModuleDependencies.md": "# Dependencies\n\n" },
    [/^code-commit: src\/core \(src\/core\/UserSpecification\.md\): src\/core\/ModuleDependencies\.md line 1 must be exactly "# Module Dependencies"/m],
  ],
  [
    "a second line that is not blank",
    { "src/core/ModuleDependencies.md": "# Module Dependencies\nsrc/util\n" },
    [/^code-commit: src\/core \(src\/core\/UserSpecification\.md\): src\/core\/ModuleDependencies\.md line 2 must be blank/m],
  ],
  [
    "a path with ..",
    { "src/util/ModuleDependencies.md": "# Module Dependencies\n\n../outside\n" },
    [/^code-commit: src\/util \(src\/util\/UserSpecification\.md\): src\/util\/ModuleDependencies\.md line 3: "\.\.\/outside" contains `\.\.`/m],
  ],
  [
    "an absolute path",
    { "src/util/ModuleDependencies.md": "# Module Dependencies\n\n/etc\n" },
    [/^code-commit: src\/util .*line 3: "\/etc" is an absolute path/m],
  ],
  [
    "a dependency that names no module",
    { "src/llm/ModuleDependencies.md": "# Module Dependencies\n\nsrc/llm/gemini\nsrc/logger\n" },
    [/^code-commit: src\/llm \(src\/llm\/UserSpecification\.md\): src\/llm\/ModuleDependencies\.md line 4: src\/logger names no module/m],
  ],
  [
    "the root module as a dependency",
    { "src/core/ModuleDependencies.md": "# Module Dependencies\n\n.\n" },
    [/^code-commit: src\/core .*line 3: "\." names the root module, which no module can depend on/m],
  ],
  [
    "a module depending on itself",
    { "src/util/ModuleDependencies.md": "# Module Dependencies\n\nsrc/util\n" },
    [/^code-commit: src\/util \(src\/util\/UserSpecification\.md\): .*src\/util is the module itself/m],
  ],
  [
    "a cycle",
    { "src/core/ModuleDependencies.md": "# Module Dependencies\n\nsrc/llm\n" },
    [/^code-commit: dependency cycle src\/core → src\/llm → src\/llm\/gemini → src\/core: /m],
  ],
  [
    "a missing top-level specification",
    { "UserSpecification.md": null },
    [/^code-commit: UserSpecification\.md not found in the project root/m],
  ],
  [
    "a module in a folder named like a stage, directly in another module",
    {
      "src/core/implemented/UserSpecification.md": "# Nested\n",
      "src/core/implemented/ModuleDependencies.md": "# Module Dependencies\n\n",
    },
    [/^code-commit: src\/core \(src\/core\/UserSpecification\.md\) and src\/core\/implemented \(src\/core\/implemented\/UserSpecification\.md\) cannot both be modules: src\/core's cached specification for the stage implemented, agent-state\/specifications\/src\/core\/implemented, stands where src\/core\/implemented's cache folder must go; rename the folder src\/core\/implemented /m],
  ],
  [
    "a module deeper in a folder named like a phase-4 stage, the case aside",
    {
      "src/llm/Fuzzed/cases/UserSpecification.md": "# Cases\n",
      "src/llm/Fuzzed/cases/ModuleDependencies.md": "# Module Dependencies\n\n",
    },
    [/^code-commit: src\/llm \(src\/llm\/UserSpecification\.md\) and src\/llm\/Fuzzed\/cases \(src\/llm\/Fuzzed\/cases\/UserSpecification\.md\) cannot both be modules: .*stage fuzzed, agent-state\/specifications\/src\/llm\/fuzzed, .*; rename the folder src\/llm\/Fuzzed /m],
  ],
  [
    "several problems at once, every one listed",
    {
      "src/core/ModuleDependencies.md": null,
      "src/util/ModuleDependencies.md": "# Module Dependencies\n\nsrc/nowhere\n",
    },
    [
      /^code-commit: the modules have 2 problems; fix them, then run again:$/m,
      /^ {2}- src\/core \(src\/core\/UserSpecification\.md\) has no ModuleDependencies\.md/m,
      /^ {2}- src\/util .*src\/nowhere names no module/m,
    ],
  ],
];

for (const [name, changes, messages] of STRUCTURE_ERRORS) {
  Deno.test(`auto workflow: ${name} is refused before any LLM call`, async () => {
    await using project = await fiveModules(changes);
    const { run, server } = await runAw(project, []);
    assert.equal(run.code, 3, run.stderr);
    assert.equal(server.requests.length, 0);
    for (const message of messages) assert.match(run.stderr, message);
    assert.equal(run.stdout, "");
    assert.deepEqual(await project.logRuns(), []);
    assert.equal(await project.exists("agent-state"), false);
  });
}

Deno.test("auto workflow: root module documents in both src/ and the root: src/ is read, one warning each", async () => {
  await using project = await fiveModules({
    // Read, this copy would be a problem: src/nowhere names no module.
    "ModuleDependencies.md": "# Module Dependencies\n\nsrc/nowhere\n",
    "APISignatures.md": "stale root copy\n",
  });
  const { run, tasks } = await runAw(project, [
    geminiReply(SUCCESS),
    geminiReply("@@@@changes-requested@@@@\n"),
  ]);
  assert.equal(run.code, 7, run.stderr);
  assert.deepEqual(tasks, ["src/core self-consistent", "src/core implemented"]);
  for (const name of ["ModuleDependencies.md", "APISignatures.md"]) {
    const warning = `warning: auto workflow: ${name} in the project root is ignored: the root ` +
      `module's ${name} is read from src/${name}, which exists too; delete the root copy`;
    assert.equal(
      run.stderr.split("\n").filter((line) => line === warning).length,
      1,
      `one warning for ${name} (the modules are loaded twice):\n${run.stderr}`,
    );
  }
  assert.doesNotMatch(run.stderr, /src\/nowhere/);
});

Deno.test("auto workflow: a stage-named nested module added after its parent passed is refused for what it is", async () => {
  // src/core passed implemented: its cache file is where src/core/implemented's cache folder must go.
  await using project = await fiveModules();
  await project.write(
    cacheFile("src/core", "implemented"),
    await project.read("src/core/UserSpecification.md"),
  );
  await project.write("src/core/implemented/UserSpecification.md", "# Nested\n");
  await project.write("src/core/implemented/ModuleDependencies.md", "# Module Dependencies\n\n");
  const { run, server } = await runAw(project, []);
  assert.equal(run.code, 3, run.stderr);
  assert.equal(server.requests.length, 0);
  assert.match(
    run.stderr,
    /^code-commit: src\/core .* and src\/core\/implemented .* cannot both be modules: .*; rename the folder src\/core\/implemented /m,
  );
  assert.doesNotMatch(run.stderr, /is not a folder/);
});

Deno.test("auto workflow: a missing build.sh is refused before any LLM call", async () => {
  await using project = await makeProject({
    files: FIVE_MODULES,
    query: null,
    rollup: null,
    buildScript: null,
  });
  const { run, server } = await runAw(project, []);
  assert.equal(run.code, 3);
  assert.equal(server.requests.length, 0);
  assert.match(run.stderr, /build\.sh not found in the project root/);
});

Deno.test("auto workflow: a symbolic link in the cache path is refused before any LLM call", async () => {
  await using project = await fiveModules({ "elsewhere/.keep": "" });
  await Deno.symlink(join(project.root, "elsewhere"), join(project.root, "agent-state"));
  const { run, server } = await runAw(project, []);
  assert.equal(run.code, 3);
  assert.equal(server.requests.length, 0);
  assert.match(run.stderr, /^code-commit: agent-state is a symbolic link: /m);
  assert.deepEqual(await listFiles(join(project.root, "elsewhere")), [".keep"]);
});

Deno.test("auto workflow: the modules are checked again after each passed task", async () => {
  // The build itself breaks another module's ModuleDependencies.md: the task that ran passes and
  // is recorded, then the run stops on the problem before the next LLM call.
  const build = "#!/bin/sh\nprintf '# Deps\\n' > src/util/ModuleDependencies.md\n";
  await using project = await fiveModules({}, build);
  const { run, tasks } = await runAw(project, [geminiReply(SUCCESS), geminiReply(SUCCESS)]);
  assert.equal(run.code, 3, run.stderr);
  assert.deepEqual(tasks, ["src/core self-consistent", "src/core implemented"]);
  assert.match(
    run.stderr,
    /^code-commit: after src\/core \(src\/core\/UserSpecification\.md\), stage implemented passed \(and was recorded\), the modules have 1 problem; fix them, then run again:$/m,
  );
  assert.match(
    run.stderr,
    /^ {2}- src\/util \(src\/util\/UserSpecification\.md\): src\/util\/ModuleDependencies\.md line 1 must be exactly/m,
  );
  assert.deepEqual(
    await cacheFiles(project),
    await expectedCache(project, ["src/core self-consistent", "src/core implemented"]),
  );
});

const HARD_LINKED: [string, string][] = [
  ["the top-level UserSpecification.md", "UserSpecification.md"],
  ["a module's UserSpecification.md", "src/core/UserSpecification.md"],
  ["a module's ModuleDependencies.md", "src/util/ModuleDependencies.md"],
  ["a cached specification", "agent-state/specifications/src/core/self-consistent"],
];

for (const [name, path] of HARD_LINKED) {
  Deno.test(`auto workflow: ${name} with a second hard link is refused before any LLM call`, async () => {
    await using outside = await tempProject();
    await using project = await fiveModules();
    if (path.startsWith("agent-state/")) {
      await project.write(path, await project.read("src/core/UserSpecification.md"));
    }
    // Its other name lies outside the project, where a build (or anyone) may read or change it.
    await Deno.link(join(project.root, path), join(outside.root, "other-name"));
    const { run, server } = await runAw(project, []);
    assert.equal(run.code, 3, run.stderr);
    assert.equal(server.requests.length, 0);
    const escaped = path.replaceAll(".", "\\.").replaceAll("/", "\\/");
    assert.match(
      run.stderr,
      new RegExp(
        `^code-commit: ${escaped} has 2 hard links, so the same file has another name`,
        "m",
      ),
    );
  });
}

Deno.test("auto workflow: a dependency's APISignatures.md with a second hard link is left out with a warning", async () => {
  await using outside = await tempProject();
  await using project = await fiveModules();
  await Deno.link(
    join(project.root, "src/core/APISignatures.md"),
    join(outside.root, "other-name"),
  );
  const { run, server } = await runAw(project, [
    geminiReply(SUCCESS), // src/core self-consistent: its own files only
    geminiReply(SUCCESS), // src/core implemented
    geminiReply(SUCCESS), // src/core documented
    geminiReply(SUCCESS), // src/core happy-path-tested
    geminiReply(SUCCESS), // src/util self-consistent
    geminiReply("@@@@changes-requested@@@@\n"), // src/util implemented: sees src/core's documents
  ]);
  assert.equal(run.code, 7, run.stderr);
  assert.match(
    run.stderr,
    /src\/core\/APISignatures\.md: has more than one hard link .*, so it is not sent to the model; left out of the codebase/,
  );
  for (const request of server.requests) {
    assert(!codebaseHeaders(request).includes("src/core/APISignatures.md"));
  }
});
