/**
 * The context budget end to end: the real tool as a subprocess in real git
 * projects, against the fake LLM server, which must see no request when a
 * prompt cannot fit the model.
 */
import assert from "node:assert/strict";
import { openaiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { makeProject } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";

/** `count` files of about `bytes` bytes each under `folder`. */
function bigFiles(folder: string, count: number, bytes: number): Record<string, string> {
  const line = "module.exports = function () { return 'a line of a dependency'; };\n";
  const text = line.repeat(Math.ceil(bytes / line.length));
  return Object.fromEntries(
    Array.from({ length: count }, (_, index) => [`${folder}/pkg${index}/index.js`, text]),
  );
}

Deno.test("a tracked node_modules/ past the model's window stops the run before any call, naming it", async () => {
  await using project = await makeProject({
    rollup: null,
    query: "Fix the bug.\n",
    gitignore: "/agent-config\n/logs\n", // no node_modules/: git tracks it
    files: { "index.js": "module.exports = 1;\n", ...bigFiles("node_modules", 50, 100_000) },
  });
  const made = await runTool(project.root, ["--rollup"]);
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /tokens \(largest: node_modules\/pkg\d+\/index\.js \d+ %/);
  const server = await startFakeLlmServer([]);
  try {
    const run = await runTool(project.root, [], { server });
    assert.equal(run.code, 3, run.stderr);
    assert.equal(server.requests.length, 0, "no request reached the server");
    assert.match(
      run.stderr,
      /the prompt for gemini-2\.5-pro is about [\d,]+ tokens, more than the 1,048,576 the model takes, so it was not sent; the largest folders of the codebase: node_modules\/ 100 %/,
    );
    assert.match(run.stderr, /\.codecommitignore/);
    assert.match(run.stderr, /--build-context/);
  } finally {
    await server.close();
  }
});

Deno.test("--context-window sets a local model's budget: a prompt past it is not sent, one within it is", async () => {
  await using project = await makeProject({
    rollup: null,
    query: "Say hello.\n",
    files: { "src/app.js": "x\n".repeat(20_000) }, // about 10,000 tokens
  });
  assert.equal((await runTool(project.root, ["--rollup"])).code, 0);
  const server = await startFakeLlmServer([
    openaiReply("User Specification Self-Consistency\nNo change is needed.\n"),
  ]);
  try {
    const small = await runTool(
      project.root,
      ["--model", "local:tiny", "--context-window", "8192", "--cc"],
      { server },
    );
    assert.equal(small.code, 3, small.stderr);
    assert.equal(server.requests.length, 0);
    assert.match(small.stderr, /more than the 6,144 the model takes/);
    assert.match(small.stderr, /--context-window TOKENS/);
    assert.match(small.stderr, /the largest folders of the codebase: src\/ \d+ %/);
    const large = await runTool(
      project.root,
      ["--model", "local:tiny", "--context-window", "65536", "--cc"],
      { server },
    );
    assert.equal(large.code, 0, large.stderr);
    assert.equal(server.requests.length, 1);
  } finally {
    await server.close();
  }
});

Deno.test("--context-window is refused with a model of the table", async () => {
  await using project = await makeProject();
  const run = await runTool(project.root, ["--context-window", "8192"]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--context-window applies only to a local:NAME model/);
});

Deno.test("--build-context: a summary past the window is not sent, and names the folder whose names fill it", async () => {
  const files: Record<string, string> = { "index.js": "module.exports = 1;\n" };
  for (let i = 0; i < 1_500; i++) files[`node_modules/package-${i}/lib/index.js`] = "";
  await using project = await makeProject({
    query: "Review.\n",
    gitignore: "/agent-config\n/logs\n",
    files,
  });
  const server = await startFakeLlmServer([]);
  try {
    const run = await runTool(
      project.root,
      ["--model", "local:tiny", "--context-window", "8192", "--cc", "--build-context"],
      { server },
    );
    assert.equal(run.code, 3, run.stderr);
    assert.equal(server.requests.length, 0);
    assert.match(run.stderr, /the largest folders of the codebase: node_modules\/ 100 %/);
    assert.doesNotMatch(run.stderr, /use --build-context/, "the run uses it already");
  } finally {
    await server.close();
  }
});
