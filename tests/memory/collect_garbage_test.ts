/**
 * Tests of `collectGarbage`: in a Deno run with the tool's V8 flags, a
 * large string that was dropped is freed by the call, and not before it; in
 * a Deno without `--expose-gc` (this test runner), it does nothing.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { collectGarbage } from "../../lib/memory/collect_garbage.ts";
import { PERMISSION_FLAGS, RUN_FLAGS } from "../../lib/permissions/permissions.ts";
import { runDenoScript } from "../support/child.ts";

const MODULE = new URL("../../lib/memory/collect_garbage.ts", import.meta.url).href;
const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A child that drops a 40 MB string and reports V8's heap at each step, in MB. */
const SCRIPT = `
import { collectGarbage } from ${JSON.stringify(MODULE)};
const heap = () => Math.round(Deno.memoryUsage().heapUsed / 1e6);
let text = new TextDecoder().decode(new Uint8Array(40e6).fill(0x61));
const held = heap();
text = "";
// Nothing is awaited from here on: no collection V8 schedules can run before the call.
const later = heap();
const collected = collectGarbage();
console.log(JSON.stringify({ held, later, collected, after: heap(), length: text.length }));
`;

Deno.test("with the tool's V8 flags, a dropped 40 MB string is freed by the call, not before", async () => {
  const v8 = RUN_FLAGS.slice(PERMISSION_FLAGS.length);
  const run = await runDenoScript(TOOL_ROOT, ["--quiet", "--allow-read=.", ...v8], SCRIPT);
  assert.equal(run.code, 0, run.stderr);
  const heap = JSON.parse(run.stdout);
  assert.equal(heap.collected, true);
  assert(heap.held >= 40, `the string is on the heap: ${run.stdout}`);
  assert(heap.later >= 40, `V8 keeps it, dropped, until a full collection: ${run.stdout}`);
  assert(heap.after <= heap.later - 35, `the call gives it back: ${run.stdout}`);
});

Deno.test("without --expose-gc the call does nothing and says so", () => {
  const exposed = typeof (globalThis as { gc?: unknown }).gc === "function";
  assert.equal(collectGarbage(), exposed);
});
