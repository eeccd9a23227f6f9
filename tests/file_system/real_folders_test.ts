import assert from "node:assert/strict";
import { join } from "node:path";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import { denoFileSystem, type FileSystem, under } from "../../lib/file_system/file_system.ts";
import { checkRealFolder, lstatStep, parentFolder } from "../../lib/file_system/real_folders.ts";
import { FileStepError } from "../../lib/file_system/file_step_error.ts";
import { recordingFs } from "./helpers.ts";
import { withProject } from "../support/project.ts";

Deno.test("checkRealFolder: the root, and real folders all the way down, are fine", async () => {
  await withProject({}, async (root) => {
    await Deno.mkdir(join(root, "a/b/c"), { recursive: true });
    assert.deepEqual(await checkRealFolder(denoFileSystem, root, ""), { ok: true, created: [] });
    assert.deepEqual(await checkRealFolder(denoFileSystem, root, "a/b/c"), {
      ok: true,
      created: [],
    });
  });
});

Deno.test("checkRealFolder: without create, the first missing folder ends the check", async () => {
  await withProject({}, async (root) => {
    await Deno.mkdir(join(root, "a"));
    assert.deepEqual(await checkRealFolder(denoFileSystem, root, "a/b/c"), {
      ok: false,
      folder: "a/b",
      found: "missing",
      created: [],
    });
    assert.equal(await Deno.lstat(join(root, "a/b")).catch(() => undefined), undefined);
  });
});

Deno.test("checkRealFolder: with create, makes the missing folders from the top and says which", async () => {
  await withProject({}, async (root) => {
    await Deno.mkdir(join(root, "a"));
    const check = await checkRealFolder(denoFileSystem, root, "a/b/c", { create: true });
    assert.deepEqual(check, { ok: true, created: ["a/b", "a/b/c"] });
    assert.ok((await Deno.lstat(join(root, "a/b/c"))).isDirectory);
  });
});

for (const create of [false, true]) {
  Deno.test(`checkRealFolder (create: ${create}): a symbolic link on the way is named, never followed`, async () => {
    await withProject({}, async (root) => {
      const outside = join(root, "outside");
      await Deno.mkdir(outside);
      await Deno.mkdir(join(root, "a"));
      await Deno.symlink(outside, join(root, "a/link"));
      assert.deepEqual(
        await checkRealFolder(denoFileSystem, root, "a/link/new/deeper", { create }),
        {
          ok: false,
          folder: "a/link",
          found: "symlink",
          created: [],
        },
      );
      assert.deepEqual([...Deno.readDirSync(outside)], []);
    });
  });

  Deno.test(`checkRealFolder (create: ${create}): a file on the way is not a folder`, async () => {
    await withProject({}, async (root) => {
      await Deno.writeTextFile(join(root, "a"), "a file");
      assert.deepEqual(await checkRealFolder(denoFileSystem, root, "a/b", { create }), {
        ok: false,
        folder: "a",
        found: "not-folder",
        created: [],
      });
    });
  });
}

Deno.test("checkRealFolder: a link to a folder at the very end is refused too", async () => {
  await withProject({}, async (root) => {
    await Deno.mkdir(join(root, "real"));
    await Deno.symlink("real", join(root, "logs"));
    const check = await checkRealFolder(denoFileSystem, root, "logs", { create: true });
    assert.deepEqual(check, { ok: false, folder: "logs", found: "symlink", created: [] });
  });
});

Deno.test("checkRealFolder: the folders made before a refusal are reported", async () => {
  await withProject({}, async (root) => {
    // `a/b` is made, then a link appears at `a/b/c` before it is checked.
    const fs: FileSystem = {
      ...denoFileSystem,
      mkdir: async (path) => {
        await denoFileSystem.mkdir(path);
        if (path === join(root, "a/b")) await Deno.symlink(root, join(root, "a/b/c"));
      },
    };
    await Deno.mkdir(join(root, "a"));
    assert.deepEqual(await checkRealFolder(fs, root, "a/b/c/d", { create: true }), {
      ok: false,
      folder: "a/b/c",
      found: "symlink",
      created: ["a/b"],
    });
  });
});

Deno.test("checkRealFolder: a folder another process made meanwhile is checked, not counted", async () => {
  await withProject({}, async (root) => {
    const fs: FileSystem = {
      ...denoFileSystem,
      mkdir: async (path) => {
        await denoFileSystem.mkdir(path);
        throw new Deno.errors.AlreadyExists("made by someone else");
      },
    };
    assert.deepEqual(await checkRealFolder(fs, root, "a/b", { create: true }), {
      ok: true,
      created: [],
    });
  });
});

Deno.test("checkRealFolder: a folder that vanishes as it is made is reported missing", async () => {
  await withProject({}, async (root) => {
    const fs: FileSystem = {
      ...denoFileSystem,
      mkdir: async (path) => {
        await denoFileSystem.mkdir(path);
        await Deno.remove(path);
      },
    };
    assert.deepEqual(await checkRealFolder(fs, root, "a/b", { create: true }), {
      ok: false,
      folder: "a",
      found: "missing",
      created: ["a"],
    });
  });
});

Deno.test("checkRealFolder: a failed lstat or mkdir is a FileStepError naming the folder", async () => {
  await withProject({}, async (root) => {
    const failingLstat = recordingFs((call) =>
      call.method === "lstat" && call.path === join(root, "a/b")
        ? new Error("disk on fire")
        : undefined
    );
    await Deno.mkdir(join(root, "a/b"), { recursive: true });
    await assert.rejects(checkRealFolder(failingLstat.fs, root, "a/b"), (error: unknown) => {
      assert.ok(error instanceof FileStepError);
      assert.ok(error instanceof CodeCommitError);
      assert.equal(error.message, `checking "a/b" failed: disk on fire`);
      return true;
    });
    const failingMkdir = recordingFs((call) =>
      call.method === "mkdir" ? new Deno.errors.PermissionDenied("no") : undefined
    );
    await assert.rejects(
      checkRealFolder(failingMkdir.fs, root, "a/b/c", { create: true }),
      { name: "FileStepError", message: `creating the folder "a/b/c" failed: no` },
    );
  });
});

Deno.test("checkRealFolder: one lstat per folder when all is well", async () => {
  await withProject({}, async (root) => {
    await Deno.mkdir(join(root, "a/b"), { recursive: true });
    const { fs, calls } = recordingFs();
    await checkRealFolder(fs, root, "a/b");
    assert.deepEqual(calls, [
      { method: "lstat", path: join(root, "a") },
      { method: "lstat", path: join(root, "a/b") },
    ]);
  });
});

Deno.test("lstatStep: undefined when missing, the info otherwise", async () => {
  await withProject({}, async (root) => {
    await Deno.writeTextFile(join(root, "f"), "");
    assert.equal(await lstatStep(denoFileSystem, root, "nope"), undefined);
    assert.equal(await lstatStep(denoFileSystem, root, "f/below"), undefined);
    assert.equal((await lstatStep(denoFileSystem, root, "f"))?.isFile, true);
  });
});

Deno.test("parentFolder and under", () => {
  assert.equal(parentFolder("a.txt"), "");
  assert.equal(parentFolder("a/b/c.txt"), "a/b");
  assert.equal(under("/p", ""), "/p");
  assert.equal(under("/p", "a/b"), "/p/a/b");
  assert.equal(under("/p/", "a"), "/p/a");
  assert.equal(under("", "a"), "a");
  assert.equal(under(".", "a"), "./a");
});
