/**
 * `code-commit --rollup`, and the rollup in a run, end to end: the real
 * tool as a subprocess in real temporary git projects, against the fake
 * LLM server.
 */
import assert from "node:assert/strict";
import { EXIT } from "../../lib/errors/errors.ts";
import { join } from "node:path";
import { geminiReply, geminiText, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import { GEMINI_KEY, git, makeProject, tempProject } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";

Deno.test("--rollup writes agent-config/codeRollup.txt and prints one line; no key, no call", async () => {
  await using project = await makeProject({
    rollup: null,
    keys: { gemini: null, openai: null },
    files: { "index.js": "module.exports = 1;\n", "lib/util.js": "exports.u = 2;\n" },
  });
  await Deno.writeFile(join(project.root, "logo.png"), new Uint8Array([0x89, 0x50, 0, 1]));
  const run = await runTool(project.root, ["--rollup"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, "");
  const text = await project.read("agent-config/codeRollup.txt");
  const bytes = new TextEncoder().encode(text).length;
  assert.equal(
    run.stdout,
    `agent-config/codeRollup.txt: 4 files, ${bytes} bytes, about ${
      Math.round(bytes / 4)
    } tokens (largest: .gitignore 30 %, build.sh 29 %, index.js 21 %); left out: 1 binary file (logo.png)\n`,
  );
  assert.match(text, /^code-commit --rollup: 4 files /);
  assert.equal(
    text.slice(text.indexOf("\n") + 1),
    "--- .gitignore ---\n/agent-config\n/logs\nnode_modules/\n" +
      "--- build.sh ---\n#!/bin/sh\necho 'build ok'\nexit 0\n" +
      "--- index.js ---\nmodule.exports = 1;\n" +
      "--- lib/util.js ---\nexports.u = 2;\n",
  );
  assert.equal(await project.exists("logs"), false, "no log folder: no LLM call");
});

Deno.test("--rollup warns about a tracked file that holds a key, without printing the key", async () => {
  await using project = await makeProject({
    rollup: null,
    files: { "config.js": `const key = "${GEMINI_KEY}";\n` },
  });
  const run = await runTool(project.root, ["--rollup"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /^warning: config\.js holds an API key from agent-config\/: code-commit refuses to send a prompt that holds a key/,
  );
  assert(!run.stderr.includes(GEMINI_KEY) && !run.stdout.includes(GEMINI_KEY));
});

Deno.test("--rollup from a subfolder says where to run, and writes nothing", async () => {
  await using project = await makeProject({ rollup: null });
  await Deno.mkdir(join(project.root, "src"));
  const run = await runTool(join(project.root, "src"), ["--rollup"]);
  assert.equal(run.code, EXIT.setup);
  assert.match(run.stderr, new RegExp(`run code-commit from ${project.root}\\n$`));
  assert.equal(await project.exists("agent-config/codeRollup.txt"), false);
  assert.equal(await project.exists("src/agent-config"), false);
});

Deno.test("--rollup from a subfolder whose .git is no repository (empty folder, broken file) says where to run", async () => {
  for (const broken of ["folder", "file"]) {
    await using project = await makeProject({
      rollup: null,
      files: { ".gitignore": "/agent-config\n/logs\n*.pem\n.env\n" },
    });
    await project.write("sub/secret.pem", "-----BEGIN PRIVATE KEY-----\n");
    await project.write("sub/.env", "TOKEN=parent-ignores-me\n");
    await project.write("sub/agent-config/.keep", "");
    if (broken === "folder") await Deno.mkdir(join(project.root, "sub/.git"));
    else await project.write("sub/.git", "not a gitdir line\n");
    const run = await runTool(join(project.root, "sub"), ["--rollup"]);
    assert.equal(run.code, EXIT.setup, broken);
    assert.match(
      run.stderr,
      new RegExp(
        `sub is inside the git repository ${project.root}, not at its root: ` +
          `run code-commit from ${project.root}\\n$`,
      ),
      broken,
    );
    assert.equal(await project.exists("sub/agent-config/codeRollup.txt"), false, broken);
  }
});

Deno.test("a stale rollup made by --rollup is remade before the run: the model sees the newest code", async () => {
  await using project = await makeProject({
    rollup: null,
    query: "Add a comment.\n",
    files: { "index.js": "version 1\n" },
  });
  const made = await runTool(project.root, ["--rollup"]);
  assert.equal(made.code, 0, made.stderr);
  await project.write("index.js", "version 2, newer than the rollup\n");
  // Committed: a run refuses uncommitted changes (the rollup stays older than the file).
  await git(project.root, "commit", "-qam", "version 2");
  const server = await startFakeLlmServer([geminiReply("No change is needed.\n")]);
  try {
    const run = await runTool(project.root, [], { server });
    assert.equal(run.code, 0, run.stderr);
    const prompt = geminiText(server.requests[0]);
    assert.match(prompt, /--- index\.js ---\nversion 2, newer than the rollup\n/);
    assert(!prompt.includes("version 1"));
    assert.match(run.stderr, /^remade agent-config\/codeRollup\.txt: 3 files, /m);
    assert.match(
      await project.read("agent-config/codeRollup.txt"),
      /version 2, newer than the rollup/,
    );
    await assertNoKeyLeak(project.root, [made, run], server);
  } finally {
    await server.close();
  }
});

Deno.test("a stale rollup made otherwise is used as it is, with a warning before any call naming the newer files", async () => {
  await using project = await makeProject({
    rollup: "--- index.js ---\nversion 1\n",
    files: { "index.js": "version 1\n" },
  });
  const past = new Date(Date.now() - 3600_000);
  for (const path of [".gitignore", "build.sh", "index.js"]) {
    await Deno.utime(join(project.root, path), past, past);
  }
  await project.write("index.js", "version 2\n");
  // Committed: a run refuses uncommitted changes (the rollup stays older than the file).
  await git(project.root, "commit", "-qam", "version 2");
  const server = await startFakeLlmServer([geminiReply("Nothing to do.\n")]);
  try {
    const run = await runTool(project.root, [], { server });
    assert.equal(run.code, 0, run.stderr);
    assert.match(geminiText(server.requests[0]), /--- index\.js ---\nversion 1\n/);
    const warning = run.stderr.indexOf(
      "warning: agent-config/codeRollup.txt is older than 1 tracked file (index.js)",
    );
    assert(warning >= 0, run.stderr);
    assert(
      warning < run.stderr.indexOf("initial query: asking"),
      "the warning comes before the call",
    );
    // Made again by hand after the change: no warning.
    await Deno.utime(join(project.root, "agent-config/codeRollup.txt"), new Date(), new Date());
    const server2 = await startFakeLlmServer([geminiReply("Nothing to do.\n")]);
    try {
      const quiet = await runTool(project.root, [], { server: server2 });
      assert.equal(quiet.code, 0, quiet.stderr);
      assert(!quiet.stderr.includes("is older than"), quiet.stderr);
    } finally {
      await server2.close();
    }
  } finally {
    await server.close();
  }
});

Deno.test("the consistency report remakes a rollup made by --rollup too", async () => {
  await using project = await makeProject({ rollup: null, files: { "a.txt": "first\n" } });
  assert.equal((await runTool(project.root, ["--rollup"])).code, 0);
  await project.write("a.txt", "second\n");
  await git(project.root, "add", "a.txt");
  const server = await startFakeLlmServer([
    geminiReply("User Specification Self Consistency\nfine\n"),
  ]);
  try {
    const run = await runTool(project.root, ["--cc"], { server });
    assert.equal(run.code, 0, run.stderr);
    assert.match(geminiText(server.requests[0]), /--- a\.txt ---\nsecond\n/);
  } finally {
    await server.close();
  }
});

Deno.test("--rollup warns when the rollup is larger than a run reads; a run then names the largest folders", async () => {
  const files: Record<string, string> = {};
  const line = "x".repeat(99) + "\n";
  for (let n = 0; n < 35; n++) files[`data/part-${n}.txt`] = line.repeat(10_000); // 1,000,000 bytes each
  await using project = await makeProject({ rollup: null, files });
  const run = await runTool(project.root, ["--rollup"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /^warning: agent-config\/codeRollup\.txt is 33\.\d MiB, more than the 32 MiB a run reads from it; the largest folders of the codebase: data\/ 100 %; the largest files: data\/part-\d+\.txt 3 %.*\.codecommitignore.*--build-context/,
  );
  const server = await startFakeLlmServer([]);
  try {
    const next = await runTool(project.root, [], { server });
    assert.equal(next.code, EXIT.setup, next.stderr);
    assert.equal(server.requests.length, 0);
    assert.match(
      next.stderr,
      /agent-config\/codeRollup\.txt is 33\.\d MiB, more than the 32 MiB code-commit reads from the code rollup; the largest folders of the codebase: data\/ 100 %.*\.codecommitignore.*then run code-commit --rollup/,
    );
  } finally {
    await server.close();
  }
});

Deno.test("--rollup leaves out a hard link to a file outside the project, and says so", async () => {
  await using outside = await tempProject({ "outside-secret.txt": "password=hunter2\n" });
  await using project = await makeProject({ rollup: null });
  await Deno.link(join(outside.root, "outside-secret.txt"), join(project.root, "notes.txt"));
  const run = await runTool(project.root, ["--rollup"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /left out: 1 file with more than one hard link \(notes\.txt\)\n$/);
  assert(!(await project.read("agent-config/codeRollup.txt")).includes("hunter2"));
});

Deno.test("--rollup of 2,100 files (with the tool's permissions) holds each file once, in order", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 2_100; i++) files[`src/m${i % 21}/f${i}.ts`] = `export const v${i} = ${i};\n`;
  files["src/m3/nul.bin"] = "a\0b";
  await using project = await makeProject({ rollup: null, files });
  await Deno.symlink("f3.ts", join(project.root, "src/m3/link.ts"));
  const run = await runTool(project.root, ["--rollup"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, "", "nothing on standard error");
  assert.match(
    run.stdout,
    /: 2,102 files, .*; left out: 1 binary file \(src\/m3\/nul\.bin\), 1 symbolic link \(src\/m3\/link\.ts\)\n$/,
  );
  const text = await project.read("agent-config/codeRollup.txt");
  const blocks = text.slice(text.indexOf("\n") + 1).split(/^--- (.+) ---\n/m).slice(1);
  const paths = blocks.filter((_, index) => index % 2 === 0);
  assert.equal(paths.length, 2_102);
  assert.deepEqual(paths, [...paths].sort(), "in code-point order");
  for (let index = 0; index < blocks.length; index += 2) {
    const path = blocks[index];
    if (path.startsWith("src/")) assert.equal(blocks[index + 1], files[path], path);
  }
  const expected = Object.keys(files).filter((path) => path.endsWith(".ts"));
  assert.deepEqual(paths.filter((path) => path.startsWith("src/")).sort(), expected.sort());
});

Deno.test("--rollup leaves out git's data kept under another name (.repo/, a nested ../.subrepo/)", async () => {
  await using project = await makeProject({ rollup: null, files: { "index.js": "1;\n" } });
  // git moves the repository it reinitializes to `.repo/` and leaves `.git` a `gitdir:` file.
  await git(project.root, "init", "-q", "--separate-git-dir", ".repo", ".");
  await Deno.mkdir(join(project.root, "sub"));
  await git(join(project.root, "sub"), "init", "-q", "--separate-git-dir", "../.subrepo", ".");
  await project.write("sub/lib.js", "2;\n");
  assert.match(await project.read(".git"), /^gitdir: /);
  const run = await runTool(project.root, ["--rollup"]);
  assert.equal(run.code, 0, run.stderr);
  const text = await project.read("agent-config/codeRollup.txt");
  assert.deepEqual(
    [...text.matchAll(/^--- (.*) ---$/gm)].map((match) => match[1]),
    [".gitignore", "build.sh", "index.js", "sub/lib.js"],
  );
  assert.match(run.stdout, /: 4 files, .*; nothing left out\n$/);
});
