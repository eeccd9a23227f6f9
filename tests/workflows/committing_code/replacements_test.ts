import assert from "node:assert/strict";
import { ReplacementLedger } from "../../../lib/workflows/committing_code/replacements.ts";

Deno.test("no change yet says so", () => {
  assert.equal(new ReplacementLedger().format(), "(none: no reply has been applied yet)\n");
});

Deno.test("only the latest change of each file is listed, in code-point order", () => {
  const ledger = new ReplacementLedger();
  ledger.record({ kind: "write", path: "src/b.ts", content: "b1\n" });
  ledger.record({ kind: "write", path: "src/a.ts", content: "a1\n" });
  ledger.record({ kind: "write", path: "README.md", content: "r\n" });
  ledger.record({ kind: "write", path: "src/b.ts", content: "b2\n" });
  ledger.record({ kind: "delete", path: "src/a.ts" });
  ledger.record({ kind: "write", path: "src/empty.ts", content: "" });
  assert.equal(ledger.paths().length, 4);
  assert.deepEqual(ledger.paths(), ["README.md", "src/a.ts", "src/b.ts", "src/empty.ts"]);
  assert.equal(
    ledger.format(),
    "--- FILE REPLACEMENT README.md ---\nr\n" +
      "--- FILE REMOVED src/a.ts ---\n" +
      "--- FILE REPLACEMENT src/b.ts ---\nb2\n" +
      "--- FILE REPLACEMENT src/empty.ts ---\n",
  );
});

Deno.test("a file removed and then written again is listed as written", () => {
  const ledger = new ReplacementLedger();
  ledger.record({ kind: "delete", path: "x" });
  ledger.record({ kind: "write", path: "x", content: "back\n" });
  assert.equal(ledger.format(), "--- FILE REPLACEMENT x ---\nback\n");
});
