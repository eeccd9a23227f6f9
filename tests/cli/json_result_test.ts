import assert from "node:assert/strict";
import { z } from "zod";
import { formatJsonResult, JSON_RESULT, jsonResult, RunRecord } from "../../lib/cli/json_result.ts";
import { EXIT } from "../../lib/errors/errors.ts";

const doc = await Deno.readTextFile(new URL("../../docs/json.md", import.meta.url));

/** Every field of `schema` as docs/json.md names it: `exit.status`, `changes[].path`. */
function fieldPaths(schema: z.ZodTypeAny, prefix = ""): string[] {
  let inner = schema;
  while (inner instanceof z.ZodNullable || inner instanceof z.ZodOptional) inner = inner.unwrap();
  if (inner instanceof z.ZodArray) return fieldPaths(inner.element, `${prefix}[]`);
  if (!(inner instanceof z.ZodObject)) return [];
  return Object.entries(inner.shape as Record<string, z.ZodTypeAny>).flatMap(([name, field]) => {
    const path = prefix === "" ? name : `${prefix}.${name}`;
    return [path, ...fieldPaths(field, path)];
  });
}

Deno.test("docs/json.md's field table names every field of the schema, and no other", () => {
  const rows = doc.slice(doc.indexOf("## Fields"), doc.indexOf("## Example")).split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => line.split("|")[1].trim().replaceAll("`", ""));
  assert.deepEqual(rows, fieldPaths(JSON_RESULT).filter((path) => path !== ""));
});

Deno.test("docs/json.md's example is an object the schema takes", () => {
  const example = doc.slice(doc.indexOf("```json") + "```json".length);
  JSON_RESULT.parse(JSON.parse(example.slice(0, example.indexOf("```"))));
});

Deno.test("the object of a run that made no call holds zeros and nulls, and parses", () => {
  const record = new RunRecord();
  const result = jsonResult(record, EXIT.usage, "unknown flag --x");
  assert.deepEqual(JSON_RESULT.parse(result), {
    workflow: null,
    exit: { status: 2, class: "usage" },
    model: null,
    attempts: 0,
    repairs: 0,
    dryRun: false,
    changes: [],
    calls: 0,
    tokens: { input: 0, output: 0, thinking: 0, cached: 0 },
    costUsd: 0,
    log: null,
    prose: [],
    error: "unknown flag --x",
  });
});

Deno.test("the object carries what the record collected: attempts, changes, tokens, cost, prose", () => {
  const record = new RunRecord();
  record.workflow = "commit";
  record.model = "gpt-5.2";
  record.noteAttempt(0);
  record.noteAttempt(1);
  record.changes = [
    { path: "a.ts", kind: "replaced", added: 2, removed: 1 },
    { path: "big.bin", kind: "created", added: undefined, removed: undefined },
  ];
  record.logDir = "logs/x";
  record.prose.push({ log: "logs/x/1-initial-query-response.txt", text: "done" });
  record.tally.add({ input: 1000, output: 10, thinking: 5, cached: 100 }, {
    kind: "usd",
    nanoUsd: 1_500_000,
  });
  const result = JSON_RESULT.parse(jsonResult(record, EXIT.ok));
  assert.equal(result.attempts, 2);
  assert.equal(result.repairs, 1);
  assert.deepEqual(result.changes[1], {
    path: "big.bin",
    kind: "created",
    added: null,
    removed: null,
  });
  assert.deepEqual(result.tokens, { input: 1000, output: 10, thinking: 5, cached: 100 });
  assert.equal(result.calls, 1);
  assert.equal(result.costUsd, 0.0015);
  assert.equal(result.log, "logs/x");
  assert.equal(result.error, null);
  record.tally.add({ input: 1, output: 1, thinking: 0, cached: 0 }, { kind: "local" });
  assert.equal(jsonResult(record, EXIT.ok).costUsd, null, "a local model has no price");
});

Deno.test("a local model's run that made no call (a prompt past its window) has costUsd null, not 0", () => {
  const record = new RunRecord();
  record.model = "local:llama3";
  assert.equal(jsonResult(record, EXIT.setup).costUsd, null);
  record.model = "gpt-5";
  assert.equal(jsonResult(record, EXIT.setup).costUsd, 0, "a priced model with no call costs 0");
});

Deno.test("every exit status has its class name in the object", () => {
  for (const [name, status] of Object.entries(EXIT)) {
    assert.equal(jsonResult(new RunRecord(), status).exit.class, name);
  }
});

Deno.test("the printed object is one line, with DEL, C1 controls and U+2028 escaped", () => {
  const record = new RunRecord();
  const text = formatJsonResult(
    jsonResult(record, EXIT.model, "bad\u007f\u0085\u2028\nreply"),
  );
  assert.ok(!/[\n\u007f-\u009f\u2028]/.test(text), text);
  assert.equal(JSON.parse(text).error, "bad\u007f\u0085\u2028\nreply");
});
