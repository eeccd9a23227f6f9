/**
 * `.codecommitignore` end to end: the real tool in real git projects, where
 * git tracks what the file leaves out of every prompt.
 */
import assert from "node:assert/strict";
import { geminiReply, geminiText, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { makeProject } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";

const LOCK = '{ "lockfileVersion": 3, "marker": "LOCK-CONTENT-7c1e" }\n';

const FILES = {
  ".codecommitignore": "package-lock.json\nvendor/\n",
  "package-lock.json": LOCK,
  "vendor/lib.js": "// VENDORED-CONTENT-2b9d\n",
  "index.js": "module.exports = 1;\n",
};

Deno.test(".codecommitignore keeps tracked files out of the rollup, and the rollup line says so", async () => {
  await using project = await makeProject({ rollup: null, files: FILES });
  const run = await runTool(project.root, ["--rollup"]);
  assert.equal(run.code, 0, run.stderr);
  const text = await project.read("agent-config/codeRollup.txt");
  assert(!text.includes("LOCK-CONTENT") && !text.includes("VENDORED-CONTENT"), text);
  assert.match(text, /^--- index\.js ---$/m);
  assert.match(
    run.stdout,
    /; 2 tracked files left out by \.codecommitignore; nothing else left out\n/,
  );
});

Deno.test("--build-context: .codecommitignore keeps files out of the summary and of the files provided", async () => {
  await using project = await makeProject({ rollup: null, query: "Review.\n", files: FILES });
  const server = await startFakeLlmServer([
    geminiReply("%%%files\npackage-lock.json\nvendor/lib.js\nindex.js\n%%%end\n"),
    geminiReply("## Summary\nFine.\n"),
  ]);
  try {
    const run = await runTool(project.root, ["--cc", "--build-context"], { server });
    assert.equal(server.requests.length, 2, run.stderr);
    const summary = geminiText(server.requests[0]);
    assert(!summary.includes("package-lock.json\n"), "the summary lists no lock file");
    assert(!summary.includes("vendor/lib.js"), "the summary lists no vendored file");
    const second = geminiText(server.requests[1]);
    assert(!second.includes("LOCK-CONTENT") && !second.includes("VENDORED-CONTENT"));
    assert.match(second, /^--- index\.js ---$/m);
    assert.match(
      run.stderr,
      /context builder: package-lock\.json was not provided: \.codecommitignore leaves it out of every prompt/,
    );
  } finally {
    await server.close();
  }
});
