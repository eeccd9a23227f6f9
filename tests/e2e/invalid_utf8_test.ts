/**
 * A model's answer that is not valid UTF-8, for real (a server on
 * 127.0.0.1 sends the bytes): refused, naming the byte offset and the file
 * block it falls in; nothing is written (never U+FFFD in place of the bad
 * bytes).
 */
import assert from "node:assert/strict";
import { makeProject } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";
import { EXIT } from "../../lib/errors/errors.ts";

Deno.test("an answer with a byte that is not UTF-8 inside a file block is refused, naming the offset and the file; nothing is written", async () => {
  await using project = await makeProject({ files: { "src/a.txt": "old\n" } });
  const json = JSON.stringify({
    candidates: [{
      content: { parts: [{ text: "^^^src/a.txt\nbad @@ byte\n^^^end\n" }], role: "model" },
      finishReason: "STOP",
      index: 0,
    }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: "gemini-2.5-pro",
  });
  const [head, tail] = json.split("@@");
  const encoder = new TextEncoder();
  const body = new Uint8Array([...encoder.encode(head), 0xff, ...encoder.encode(tail)]);
  const offset = encoder.encode(head).length;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(body, { headers: { "content-type": "application/json; charset=UTF-8" } }),
  );
  try {
    const run = await runTool(project.root, [], {
      env: { CODE_COMMIT_GEMINI_BASE_URL: `http://127.0.0.1:${server.addr.port}/v1beta` },
    });
    // An unusable answer: the model failed.
    assert.equal(run.code, EXIT.model, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(
        `the reply is not valid UTF-8: byte ${offset} of its body \\(in the block of the file ` +
          "src/a\\.txt\\) is not part of a UTF-8 character; refused",
      ),
    );
    assert.equal(await project.read("src/a.txt"), "old\n");
  } finally {
    await server.shutdown();
  }
});

Deno.test("a streamed answer with a byte that is not UTF-8 inside a file block is refused, naming the offset and the file; nothing is written", async () => {
  await using project = await makeProject({ files: { "src/a.txt": "old\n" } });
  const event = (text: string, last: boolean) =>
    JSON.stringify({
      candidates: [{
        content: { parts: [{ text }], role: "model" },
        ...(last && { finishReason: "STOP" }),
        index: 0,
      }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      modelVersion: "gemini-2.5-pro",
    });
  const encoder = new TextEncoder();
  // The block opens in one event; the bad byte comes in the next, in the same network write.
  const stream = `data: ${event("^^^src/a.txt\nbad ", false)}\r\n\r\n` +
    `data: ${event("@@ byte\n^^^end\n", true)}\r\n\r\n`;
  const [head, tail] = stream.split("@@");
  const body = new Uint8Array([...encoder.encode(head), 0xff, ...encoder.encode(tail)]);
  const offset = encoder.encode(head).length;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(body, { headers: { "content-type": "text/event-stream" } }),
  );
  try {
    const run = await runTool(project.root, [], {
      env: { CODE_COMMIT_GEMINI_BASE_URL: `http://127.0.0.1:${server.addr.port}/v1beta` },
    });
    assert.ok(run.code === EXIT.model || run.code === EXIT.failed, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(
        `the reply is not valid UTF-8: byte ${offset} of its body \\(in the block of the file ` +
          "src/a\\.txt\\) is not part of a UTF-8 character; refused",
      ),
    );
    assert.equal(await project.read("src/a.txt"), "old\n");
  } finally {
    await server.shutdown();
  }
});
