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

Deno.test("denoFileSystem.writeNewFile sets the mode of the file it made, never of a link put at its name meanwhile", async () => {
  await withProject({}, async (dir) => {
    const target = join(dir, "target");
    await Deno.writeTextFile(target, "theirs");
    await Deno.chmod(target, 0o600);
    // In a child with umask 022, so that the mode asked for (0o666) is set after the open.
    const module = new URL("../../lib/file_system/file_system.ts", import.meta.url).href;
    const code = `
      import { denoFileSystem } from "${module}";
      const [dir] = Deno.args;
      const data = new TextEncoder().encode("x");
      await denoFileSystem.writeNewFile(dir + "/mine", data, 0o666);
      const path = dir + "/swapped";
      let identity;
      try {
        // Between the check of the new file and its chmod, a link to "target" takes its name.
        await denoFileSystem.writeNewFile(path, data, 0o666, async (made) => {
          identity = made;
          await Deno.remove(path);
          await Deno.symlink(dir + "/target", path);
        });
        console.log("written");
      } catch {
        console.log(identity === undefined ? "no identity" : "refused");
      }`;
    const output = await new Deno.Command("sh", {
      args: ["-c", 'umask 022 && exec "$0" eval "$1" "$2"', Deno.execPath(), code, dir],
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, stderr);
    assert.equal(new TextDecoder().decode(output.stdout).trim(), "refused");
    assert.equal((await Deno.lstat(join(dir, "mine"))).mode! & 0o7777, 0o666);
    assert.equal((await Deno.stat(target)).mode! & 0o7777, 0o600);
    assert.equal(await Deno.readTextFile(target), "theirs");
  });
});
