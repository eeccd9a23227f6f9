import assert from "node:assert/strict";
import { join } from "node:path";
import { FileReadError } from "../../lib/file_system/bounded_read.ts";
import { denoFileSystem } from "../../lib/file_system/file_system.ts";
import { mkfifo } from "./helpers.ts";
import { withProject } from "../support/project.ts";

Deno.test("denoFileSystem.readFile reads a regular file with the bounded read, without following a link", async () => {
  await withProject({}, async (dir) => {
    await Deno.writeTextFile(join(dir, "a"), "content");
    await Deno.symlink("a", join(dir, "link"));
    await mkfifo(join(dir, "pipe"));
    assert.equal(
      new TextDecoder().decode(await denoFileSystem.readFile(join(dir, "a"))),
      "content",
    );
    await assert.rejects(denoFileSystem.readFile(join(dir, "missing")), Deno.errors.NotFound);
    for (const [name, problem] of [["link", "symlink"], ["pipe", "special"]] as const) {
      await assert.rejects(denoFileSystem.readFile(join(dir, name)), (error: unknown) => {
        assert.ok(error instanceof FileReadError);
        assert.equal(error.problem, problem);
        return true;
      });
    }
  });
});
