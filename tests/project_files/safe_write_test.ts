import assert from "node:assert/strict";
import { join } from "node:path";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import {
  ensureRealFolder,
  writeFileAtomically,
  writeNewFile,
} from "../../lib/project_files/safe_write.ts";
import { withProject } from "../support/project.ts";

function names(folder: string): string[] {
  return [...Deno.readDirSync(folder)].map((entry) => entry.name).sort();
}

Deno.test("writeFileAtomically replaces a file, keeps its mode, and leaves no temporary file", async () => {
  await withProject({}, async (root) => {
    await Deno.writeTextFile(join(root, "a.txt"), "old\n");
    await Deno.chmod(join(root, "a.txt"), 0o640);
    await writeFileAtomically(root, "a.txt", "new\n");
    assert.equal(await Deno.readTextFile(join(root, "a.txt")), "new\n");
    assert.equal((await Deno.stat(join(root, "a.txt"))).mode! & 0o777, 0o640);
    await writeFileAtomically(root, "deep/er/b.txt", "b\n", { createFolders: true });
    assert.equal(await Deno.readTextFile(join(root, "deep/er/b.txt")), "b\n");
    assert.deepEqual(names(root), ["a.txt", "deep"]);
    assert.deepEqual(names(join(root, "deep/er")), ["b.txt"]);
    await assert.rejects(
      writeFileAtomically(root, "missing/c.txt", "c"),
      /the folder missing\/ does not exist/,
    );
  });
});

Deno.test("writeFileAtomically and writeNewFile never write through a link", async () => {
  await withProject({}, async (root) => {
    await withProject({}, async (outside) => {
      await Deno.writeTextFile(join(outside, "target"), "theirs");
      await Deno.symlink(join(outside, "target"), join(root, "file-link"));
      await Deno.symlink(outside, join(root, "folder-link"));
      await assert.rejects(
        writeFileAtomically(root, "file-link", "x"),
        /file-link is a symbolic link/,
      );
      await assert.rejects(
        writeFileAtomically(root, "folder-link/new.txt", "x"),
        /folder-link is a symbolic link/,
      );
      await assert.rejects(writeNewFile(root, "folder-link/new.txt", "x"), CodeCommitError);
      await assert.rejects(ensureRealFolder(root, "folder-link"), /folder-link is a symbolic link/);
      assert.equal(await writeNewFile(root, "file-link", "x"), false, "a link is something there");
      assert.deepEqual(names(outside), ["target"]);
      assert.equal(await Deno.readTextFile(join(outside, "target")), "theirs");
      assert.deepEqual(names(root), ["file-link", "folder-link"], "no temporary file left");
    });
  });
});

Deno.test("writeNewFile writes only where nothing is, with the mode asked for", async () => {
  await withProject({}, async (root) => {
    assert.equal(await writeNewFile(root, "run.sh", "#!/bin/sh\n", { mode: 0o755 }), true);
    assert.equal((await Deno.stat(join(root, "run.sh"))).mode! & 0o111, 0o111);
    assert.equal(await writeNewFile(root, "run.sh", "other"), false);
    assert.equal(await Deno.readTextFile(join(root, "run.sh")), "#!/bin/sh\n");
    await Deno.mkdir(join(root, "folder"));
    assert.equal(await writeNewFile(root, "folder", "x"), false);
    assert.deepEqual(names(root), ["folder", "run.sh"]);
  });
});

Deno.test("ensureRealFolder makes a folder once and refuses a file in the way", async () => {
  await withProject({}, async (root) => {
    assert.equal(await ensureRealFolder(root, "agent-config"), true);
    assert.equal(await ensureRealFolder(root, "agent-config"), false);
    await Deno.writeTextFile(join(root, "file"), "");
    await assert.rejects(ensureRealFolder(root, "file"), /file is not a folder/);
  });
});
