/**
 * `--dry-run`, end to end: the initial call as usual, the reply parsed and
 * guarded, the plan printed (created, replaced, deleted, with lines added
 * and removed), the whole unified diff in the run's log folder — a diff
 * `git apply` turns into exactly what the reply would have written — and
 * nothing else written, no build run. A reply that could not be applied
 * exits 1 naming its refused paths.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { LAST_RUN_FILE } from "../../lib/cli/last_run.ts";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import { git, makeProject, type Project, tempProject } from "../support/project.ts";
import { runTool, type ToolRun } from "../support/run_tool.ts";

/** A build that leaves a mark when it runs. */
const MARKING_BUILD = "#!/bin/sh\ntouch build-ran\nexit 0\n";

const START = {
  "src/main.ts": "one\ntwo\nthree\nfour\n",
  "src/old.ts": "old 1\nold 2\n",
  "src/same.ts": "same\n",
};

const REPLY = "Here is the change.\n" +
  "^^^src/main.ts\none\n2\nthree\nfour\nfive\n^^^end\n" +
  "^^^src/new/made.ts\nmade\n^^^end\n" +
  "^^^src/old.ts\n^^^delete\n" +
  "^^^src/same.ts\nsame\n^^^end\n" +
  "^^^src/never.ts\n^^^delete\n";

async function dryRun(
  project: Project,
  replies: string[],
  args: string[] = [],
): Promise<{ run: ToolRun; calls: number; requests: string[] }> {
  const server = await startFakeLlmServer(replies.map((text) => geminiReply(text)));
  try {
    const run = await runTool(project.root, ["--dry-run", ...args], { server });
    await assertNoKeyLeak(project.root, [run], server);
    return { run, calls: server.requests.length, requests: server.requests.map((r) => r.bodyText) };
  } finally {
    await server.close();
  }
}

Deno.test("--dry-run prints the plan, logs the whole diff, writes nothing else and runs no build", async () => {
  await using project = await makeProject({ buildScript: MARKING_BUILD, files: START });
  const before = await project.snapshot();
  const { run, calls } = await dryRun(project, [REPLY]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(calls, 1);
  // The model's words outside its file blocks are shown, as a run that applies shows them.
  assert.match(run.stderr, /^gemini-2\.5-pro says:\n {2}Here is the change\.\n/m);
  const lines = run.stdout.trimEnd().split("\n");
  assert.deepEqual(lines.slice(0, -1), [
    "the reply would change 3 files (1 created, 1 replaced, 1 deleted):",
    "  replaced  src/main.ts  +2 -1",
    "  created   src/new/made.ts  +1 -0",
    "  deleted   src/old.ts  +0 -2",
    "  unchanged src/same.ts (it holds exactly this already)",
    "  unchanged src/never.ts (to be deleted, but it does not exist)",
  ]);
  const [folder] = await project.logRuns();
  const diffFile = `logs/${folder}/1-initial-query-dry-run.diff`;
  assert.match(
    lines.at(-1)!,
    new RegExp(
      `^committing code \\(dry run\\): the reply would change 3 files \\(1 created, 1 replaced, ` +
        `1 deleted\\); nothing was written and no build ran; the whole diff is in ${diffFile}; 1 LLM call, `,
    ),
  );
  // Nothing written but the log folder and the run's object (which runTool checks): no build,
  // no journal, no file of the reply.
  const after = await project.snapshot();
  assert.deepEqual(
    [...after.keys()].filter((path) => !path.startsWith(`logs/${folder}/`)),
    [...before.keys(), LAST_RUN_FILE].sort(),
  );
  for (const [path, content] of before) assert.equal(after.get(path), content, path);
  assert.equal(await project.exists("build-ran"), false);
  assert.equal(await project.exists("agent-config/journal"), false);
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(join(project.root, "logs", folder)))).map((e) => e.name)
      .sort(),
    [
      "1-initial-query-dry-run.diff",
      "1-initial-query-response.json",
      "1-initial-query-response.txt",
      "1-initial-query.txt",
    ],
  );

  // The diff is real: git apply turns a copy of the project into what the reply would write.
  await using copy = await tempProject(START, { git: true });
  const diff = await project.read(diffFile);
  await Deno.writeTextFile(join(copy.root, "reply.diff"), diff);
  await git(copy.root, "apply", "reply.diff");
  await Deno.remove(join(copy.root, "reply.diff"));
  assert.equal(await copy.read("src/main.ts"), "one\n2\nthree\nfour\nfive\n");
  assert.equal(await copy.read("src/new/made.ts"), "made\n");
  assert.equal(await copy.exists("src/old.ts"), false);
  assert.equal(await copy.read("src/same.ts"), "same\n");
});

Deno.test("--dry-run does not write the rollup: one --rollup made is made again in memory only, the file left as it is", async () => {
  await using project = await makeProject({ buildScript: MARKING_BUILD, files: START });
  const made = await runTool(project.root, ["--rollup"]);
  assert.equal(made.code, 0, made.stderr);
  await Deno.writeTextFile(join(project.root, "src/main.ts"), "one\ntwo\nthree\nfour\nedited\n");
  const rollupPath = join(project.root, "agent-config/codeRollup.txt");
  const rollup = await Deno.readFile(rollupPath);
  const { mtime } = await Deno.lstat(rollupPath);
  const { run, requests } = await dryRun(project, [REPLY]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /^made the rollup again in memory only \(--dry-run leaves the file as it is\): agent-config\/codeRollup\.txt: 5 files, /m,
  );
  assert.doesNotMatch(run.stderr, /^remade /m);
  assert.deepEqual(await Deno.readFile(rollupPath), rollup);
  assert.equal((await Deno.lstat(rollupPath)).mtime?.getTime(), mtime?.getTime());
  // The model saw the file as it is now, not as the rollup on disk has it.
  assert.match(requests[0], /four\\nedited\\n/);
  assert.match(run.stdout, /nothing was written and no build ran/);
});

Deno.test("--dry-run of a reply that cannot be applied exits 4 naming the refused paths, and writes nothing", async () => {
  await using project = await makeProject({ buildScript: MARKING_BUILD, files: START });
  const before = await project.snapshot();
  const { run } = await dryRun(project, [
    "^^^src/main.ts\nfine\n^^^end\n^^^build.sh\nrm -rf /\n^^^end\n^^^../outside.txt\nx\n^^^end\n",
  ]);
  assert.equal(run.code, 4);
  assert.match(
    run.stderr,
    /the reply could not be applied: refused the reply: 2 paths may not be written/,
  );
  assert.match(run.stderr, /build\.sh: is protected/);
  assert.match(run.stderr, /\.\.\/outside\.txt: /);
  assert.match(
    run.stdout,
    /^committing code \(dry run\): the reply could not be applied \(see above\); nothing was written; /m,
  );
  const after = await project.snapshot();
  for (const [path, content] of before) assert.equal(after.get(path), content, path);
  assert.equal(await project.exists("build-ran"), false);
});

Deno.test("--dry-run with --build-context: the context call, then the initial call, and the plan", async () => {
  await using project = await makeProject({
    buildScript: MARKING_BUILD,
    files: START,
    rollup: null,
  });
  const { run, calls, requests } = await dryRun(
    project,
    ["%%%files\nsrc/main.ts\n%%%end\n", "^^^src/main.ts\none\n^^^end\n"],
    ["--build-context"],
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(calls, 2);
  assert.ok(requests[1].includes("--- src/main.ts ---"));
  assert.match(run.stdout, /^ {2}replaced {2}src\/main\.ts {2}\+0 -3$/m);
  assert.equal(await project.read("src/main.ts"), START["src/main.ts"]);
  assert.equal(await project.exists("build-ran"), false);
});

Deno.test("--dry-run goes on with uncommitted changes: it writes nothing to mix with them", async () => {
  await using project = await makeProject({ buildScript: MARKING_BUILD, files: START });
  await project.write("src/main.ts", "my edit\n");
  const { run } = await dryRun(project, ["^^^src/main.ts\none\n^^^end\n"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^ {2}replaced {2}src\/main\.ts {2}\+1 -1$/m);
  assert.equal(await project.read("src/main.ts"), "my edit\n");
});
