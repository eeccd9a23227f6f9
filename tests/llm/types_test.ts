/**
 * Tests of LlmError: a user-facing error (exit status 1) that keeps the
 * HTTP status and the body received.
 */

import assert from "node:assert/strict";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import { LlmError } from "../../lib/llm/types.ts";

Deno.test("LlmError is a CodeCommitError ending the run with status 1", () => {
  const cause = new TypeError("connection reset");
  const error = new LlmError("gpt-5: HTTP 500 server_error", {
    status: 500,
    body: '{"error":{}}',
    cause,
  });
  assert.ok(error instanceof CodeCommitError);
  assert.ok(error instanceof Error);
  assert.equal(error.name, "LlmError");
  assert.equal(error.exitCode, 4);
  assert.equal(error.message, "gpt-5: HTTP 500 server_error");
  assert.equal(error.status, 500);
  assert.equal(error.body, '{"error":{}}');
  assert.equal(error.cause, cause);
});

Deno.test("LlmError without a status or body leaves them undefined", () => {
  const error = new LlmError("gemini-2.5-pro: no reply within 900s");
  assert.equal(error.status, undefined);
  assert.equal(error.body, undefined);
  assert.equal(error.cause, undefined);
});
