import assert from "node:assert/strict";
import { compareCodePoints, comparePaths } from "../../lib/project_files/order.ts";

Deno.test("compareCodePoints orders by code unit, whatever the locale", () => {
  const names = ["b", "a-b", "a", "B", "é", "a/b", "Z", "_", ""];
  assert.deepEqual(names.sort(compareCodePoints), ["", "B", "Z", "_", "a", "a-b", "a/b", "b", "é"]);
  assert.equal(compareCodePoints("x", "x"), 0);
  assert.equal(compareCodePoints("a", "b"), -1);
  assert.equal(compareCodePoints("b", "a"), 1);
});

Deno.test("comparePaths orders a folder right before what is inside it", () => {
  const paths = ["a-b", "a/b/c", "a", "a/b", "a.b", "A", "a/a"];
  assert.deepEqual(paths.sort(comparePaths), ["A", "a", "a/a", "a/b", "a/b/c", "a-b", "a.b"]);
  assert.equal(comparePaths("x", "x"), 0);
});
