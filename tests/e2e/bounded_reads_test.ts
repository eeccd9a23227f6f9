/**
 * End-to-end tests of the bounded read and of the hard-link rule, through
 * the real tool with its production permissions: a fifo as the key file, as
 * `.git/index`, or behind a `.git/info/exclude` link ends the run at once
 * with exit 1 and one line naming the file (a plain read would wait
 * forever); a link to `/dev/zero` there is refused before anything is read
 * (a plain read would grow the tool without end); a project file with a second name (a hard link) is
 * never sent to the model, and a warning names it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPORT_HEADINGS } from "../../lib/workflows/consistency_report/report.ts";
import {
  type FakeLlmServer,
  geminiReply,
  type ScriptStep,
  startFakeLlmServer,
} from "../support/fake_llm_server.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import { makeProject, type Project } from "../support/project.ts";
import { runTool, type ToolRun } from "../support/run_tool.ts";
import { fixtureFiles } from "../workflows/auto_workflow/helpers.ts";

/** Makes a fifo with the real `mkfifo`. */
async function mkfifo(path: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.ok(made.success, `mkfifo ${path}`);
}

/**
 * Runs the tool; a run still going after a minute is killed and fails the
 * test (the fifos below once made it wait forever), instead of hanging the suite.
 */
async function runOrKill(
  project: Project,
  args: readonly string[],
  server?: FakeLlmServer,
): Promise<ToolRun> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let killed = false;
  try {
    const run = await runTool(project.root, args, {
      server,
      onSpawn: (child) => {
        timer = setTimeout(() => {
          killed = true;
          child.kill("SIGKILL");
        }, 60_000);
      },
    });
    assert.ok(!killed, `the run did not end: ${run.stderr}`);
    return run;
  } finally {
    clearTimeout(timer);
  }
}

/** Asserts that `run` failed with exit 3 and exactly one line on stderr, matching `message`. */
function assertOneLineError(run: ToolRun, message: RegExp): void {
  assert.equal(run.code, 3, run.stderr);
  const lines = run.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0], message);
}

/** A temporary folder outside the project. */
async function outsideFolder(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "code-commit-outside-" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

Deno.test("a fifo as agent-config/gemini-key.txt ends the run at once: exit 3, one line naming it", async () => {
  await using project = await makeProject({ keys: { gemini: null } });
  await mkfifo(join(project.root, "agent-config/gemini-key.txt"));
  const server = await startFakeLlmServer([]);
  try {
    const run = await runOrKill(project, [], server);
    assertOneLineError(
      run,
      /^code-commit: agent-config\/gemini-key\.txt is a fifo \(named pipe\); code-commit reads an API key file only from a regular file: put a regular file there$/,
    );
    assert.equal(server.requests.length, 0);
  } finally {
    await server.close();
  }
});

Deno.test("a fifo as the key of a model not used is skipped; as the other key file read for redaction, too", async () => {
  await using project = await makeProject({ keys: { openai: null } });
  await mkfifo(join(project.root, "agent-config/openai-key.txt"));
  const server = await startFakeLlmServer([geminiReply("^^^src/status.txt\nok\n^^^end\n")]);
  try {
    const run = await runOrKill(project, [], server);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.requests.length, 1);
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
  }
});

Deno.test("a fifo as .git/index ends the run at once: exit 3, one line naming it", async () => {
  await using project = await makeProject();
  await Deno.remove(join(project.root, ".git/index"));
  await mkfifo(join(project.root, ".git/index"));
  const server = await startFakeLlmServer([]);
  try {
    const run = await runOrKill(project, ["--cc"], server);
    assertOneLineError(run, /^code-commit: \.git\/index is a fifo \(named pipe\); /);
    assert.equal(server.requests.length, 0);
  } finally {
    await server.close();
  }
});

Deno.test("a fifo behind a .git/info/exclude link ends the run at once: exit 3, one line naming it", async () => {
  await using project = await makeProject();
  await using outside = await outsideFolder();
  await mkfifo(join(outside.path, "exclude"));
  await Deno.mkdir(join(project.root, ".git/info"), { recursive: true });
  await Deno.remove(join(project.root, ".git/info/exclude")).catch(() => {});
  await Deno.symlink(join(outside.path, "exclude"), join(project.root, ".git/info/exclude"));
  const server = await startFakeLlmServer([]);
  try {
    const run = await runOrKill(project, [], server);
    assertOneLineError(
      run,
      /^code-commit: \.git\/info\/exclude leads to a fifo \(named pipe\) \(through a symbolic link\); code-commit reads an ignore-rules file only from a regular file/,
    );
    assert.equal(server.requests.length, 0);
  } finally {
    await server.close();
  }
});

for (const file of [".git/index", ".git/info/exclude"]) {
  Deno.test(`a link to /dev/zero as ${file} is refused before anything is read: exit 3, one line`, async () => {
    await using project = await makeProject();
    await Deno.mkdir(join(project.root, ".git/info"), { recursive: true });
    await Deno.remove(join(project.root, file)).catch(() => {});
    await Deno.symlink("/dev/zero", join(project.root, file));
    const run = await runOrKill(project, []);
    assertOneLineError(
      run,
      new RegExp(
        `^code-commit: ${
          file.replaceAll(".", "\\.").replaceAll("/", "\\/")
        } leads to a character device \\(through a symbolic link\\); `,
      ),
    );
  });
}

Deno.test("a key file kept outside the project, through a link, is still read", async () => {
  await using project = await makeProject();
  await using outside = await outsideFolder();
  const key = join(project.root, "agent-config/gemini-key.txt");
  await Deno.rename(key, join(outside.path, "gemini-key.txt"));
  await Deno.symlink(join(outside.path, "gemini-key.txt"), key);
  const server = await startFakeLlmServer([geminiReply("^^^src/status.txt\nok\n^^^end\n")]);
  try {
    const run = await runOrKill(project, [], server);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.requests.length, 1);
    await assertNoKeyLeak(project.root, [run], server);
  } finally {
    await server.close();
  }
});

// Hard links: a file with a second name is not sent to the model.

const OUTSIDE_SECRET = "SECRET-HARD-LINKED-OUTSIDE-6a9c";

/** Makes `path` in the project a second name of a file outside it holding {@link OUTSIDE_SECRET}. */
async function hardLinkOut(project: Project, outside: string, path: string): Promise<void> {
  await Deno.writeTextFile(join(outside, "secret.txt"), `${OUTSIDE_SECRET}\n`);
  await Deno.link(join(outside, "secret.txt"), join(project.root, path));
}

/** Asserts that the outside file's content reached neither the model, nor a log, nor the terminal. */
async function assertNotSent(project: Project, server: FakeLlmServer, run: ToolRun): Promise<void> {
  for (const request of server.requests) assert.ok(!request.bodyText.includes(OUTSIDE_SECRET));
  assert.ok(!(run.stdout + run.stderr).includes(OUTSIDE_SECRET));
  for (const folder of await project.logRuns()) {
    for await (const entry of Deno.readDir(join(project.root, "logs", folder))) {
      const log = await project.read(`logs/${folder}/${entry.name}`);
      assert.ok(!log.includes(OUTSIDE_SECRET), `logs/${folder}/${entry.name}`);
    }
  }
}

Deno.test("the context builder drops a hard-linked file with a warning naming it", async () => {
  await using project = await makeProject({
    query: "Review.\n",
    rollup: null,
    files: { "src/main.ts": "export {};\n" },
  });
  await using outside = await outsideFolder();
  await hardLinkOut(project, outside.path, "src/linked.ts");
  const report = REPORT_HEADINGS.map((heading) => `${heading}\n\nFine.\n`).join("\n");
  const steps: ScriptStep[] = [
    geminiReply("%%%files\nsrc/main.ts\nsrc/linked.ts\n%%%end\n"),
    geminiReply(report),
  ];
  const server = await startFakeLlmServer(steps);
  try {
    const run = await runOrKill(project, ["--cc", "--build-context"], server);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(server.requests.length, 2);
    assert.match(
      run.stderr,
      /^warning: context builder: src\/linked\.ts was not provided: has more than one hard link \(another name of the same file may be outside the project\), so it is not sent to the model$/m,
    );
    assert.ok(server.requests[1].bodyText.includes("--- src/main.ts ---"));
    assert.ok(!server.requests[1].bodyText.includes("--- src/linked.ts ---"));
    await assertNotSent(project, server, run);
  } finally {
    await server.close();
  }
});

Deno.test("the auto workflow leaves a hard-linked module file out of the codebase, with a warning naming it", async () => {
  await using project = await makeProject({
    files: await fixtureFiles("five_modules"),
    query: null,
    rollup: null,
  });
  await using outside = await outsideFolder();
  await hardLinkOut(project, outside.path, "src/core/linked.txt");
  // self-consistent (a review, without the module's files), then implemented.
  const server = await startFakeLlmServer([
    geminiReply("Checked.\n@@@@task-success@@@@\n"),
    geminiReply("@@@@changes-requested@@@@\n"),
  ]);
  try {
    // --force: the hard link is an uncommitted file, on purpose.
    const run = await runOrKill(project, ["--aw", "--force"], server);
    assert.equal(run.code, 7, run.stderr);
    assert.equal(server.requests.length, 2);
    assert.ok(server.requests[1].bodyText.includes("--- src/core/core.txt ---"));
    assert.ok(!server.requests[1].bodyText.includes("--- src/core/linked.txt ---"));
    assert.match(
      run.stderr,
      /^warning: src\/core \(src\/core\/UserSpecification\.md\), stage implemented: src\/core\/linked\.txt: has more than one hard link \(another name of the same file may be outside the project\), so it is not sent to the model; left out of the codebase$/m,
    );
    await assertNotSent(project, server, run);
  } finally {
    await server.close();
  }
});
