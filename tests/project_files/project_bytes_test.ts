import assert from "node:assert/strict";
import { join } from "node:path";
import { readProjectBytes } from "../../lib/project_files/project_bytes.ts";
import { mkfifo } from "../file_system/helpers.ts";
import { withProject } from "../support/project.ts";

/** The largest file a prompt shows: 1 MiB. */
const MAX_FILE_BYTES = 1024 * 1024;

Deno.test("readProjectBytes classifies what kept a file out, the one classification the rollup shares", async () => {
  await withProject(
    { "a.ts": "a\n", "nul.bin": "a\0b", "big.txt": "x".repeat(MAX_FILE_BYTES + 1) },
    async (root) => {
      await Deno.symlink("a.ts", join(root, "link.ts"));
      await Deno.link(join(root, "a.ts"), join(root, "twin.ts"));
      await Deno.mkdir(join(root, "folder"));
      await mkfifo(join(root, "pipe"));
      const kindOf = async (path: string) => {
        const read = await readProjectBytes(root, path);
        return read.ok ? "ok" : read.problem.kind;
      };
      assert.equal(await kindOf("gone.ts"), "missing");
      assert.equal(await kindOf("link.ts"), "symbolic-link");
      assert.equal(await kindOf("a.ts"), "hard-link");
      assert.equal(await kindOf("folder"), "folder");
      assert.equal(await kindOf("pipe"), "special");
      assert.equal(await kindOf("nul.bin"), "binary");
      assert.deepEqual(await readProjectBytes(root, "big.txt"), {
        ok: false,
        problem: { kind: "too-large", size: MAX_FILE_BYTES + 1 },
      });
      await Deno.remove(join(root, "twin.ts"));
      assert.deepEqual(await readProjectBytes(root, "a.ts"), {
        ok: true,
        bytes: new TextEncoder().encode("a\n"),
      });
    },
  );
});
