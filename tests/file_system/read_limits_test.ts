import assert from "node:assert/strict";
import { OPEN_TIMEOUT_MS, READ_LIMITS } from "../../lib/file_system/read_limits.ts";
import { formatBytes } from "../../lib/text/sizes.ts";

const safety = await Deno.readTextFile(new URL("../../docs/safety.md", import.meta.url));
const MiB = 1024 * 1024;

Deno.test("the read limits: one per kind, far above real files of the kind", () => {
  assert.deepEqual(
    Object.fromEntries(Object.entries(READ_LIMITS).map(([kind, limit]) => [kind, limit.bytes])),
    {
      apiKey: 64 * 1024,
      query: 4 * MiB,
      codeRollup: 32 * MiB,
      ignoreRules: 4 * MiB,
      gitIndex: 256 * MiB,
      specification: 4 * MiB,
      moduleDocument: 1 * MiB,
      buildScript: 1 * MiB,
      manifest: 4 * MiB,
      projectFile: 1 * MiB,
      replacedFile: 512 * MiB,
      settings: 64 * 1024,
      journalRecord: 64 * MiB,
      journalPack: 512 * MiB,
    },
  );
  assert.equal(OPEN_TIMEOUT_MS, 5_000);
});

Deno.test("docs/safety.md's table of read limits is the code's", () => {
  const start = safety.indexOf("## Files code-commit reads itself");
  assert(start >= 0, "docs/safety.md has no section on the files code-commit reads itself");
  const table = safety.slice(start, safety.indexOf("## Hard links", start));
  const rows = [...table.matchAll(/^\| .+ \| (\d+ [KM]iB) *\|$/gm)].map((m) => m[1]);
  const limits = Object.values(READ_LIMITS).map((limit) => formatBytes(limit.bytes));
  assert.deepEqual(rows, limits);
  assert.ok(table.includes(`more than ${OPEN_TIMEOUT_MS / 1000} s`));
});
