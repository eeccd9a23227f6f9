import assert from "node:assert/strict";
import { join } from "node:path";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import {
  describeEntry,
  describeSpecial,
  isMissing,
  lstatOrUndefined,
  lstatSyncOrUndefined,
} from "../../lib/file_system/lstat.ts";
import { mkfifo } from "./helpers.ts";
import { withProject } from "../support/project.ts";

Deno.test("lstatOrUndefined describes what is there without following a link", async () => {
  await withProject({}, async (dir) => {
    await Deno.writeTextFile(join(dir, "file"), "x");
    await Deno.symlink("file", join(dir, "link"));
    assert.equal((await lstatOrUndefined(join(dir, "file")))?.isFile, true);
    assert.equal((await lstatOrUndefined(join(dir, "link")))?.isSymlink, true);
    assert.equal((await lstatOrUndefined(dir))?.isDirectory, true);
  });
});

Deno.test("lstatOrUndefined: undefined when nothing is there, or a parent is a file", async () => {
  await withProject({}, async (dir) => {
    await Deno.writeTextFile(join(dir, "file"), "x");
    assert.equal(await lstatOrUndefined(join(dir, "missing")), undefined);
    assert.equal(await lstatOrUndefined(join(dir, "file/below")), undefined);
  });
});

Deno.test("lstatOrUndefined: any other error names the path", async () => {
  await withProject({}, async (dir) => {
    // A loop of links in a parent: ELOOP, not "missing".
    await Deno.symlink("b", join(dir, "a"));
    await Deno.symlink("a", join(dir, "b"));
    await assert.rejects(lstatOrUndefined(join(dir, "a/x")), (error: unknown) => {
      assert.ok(error instanceof CodeCommitError);
      assert.ok(error.message.startsWith(`cannot inspect ${join(dir, "a/x")}: `), error.message);
      return true;
    });
  });
});

Deno.test("lstatSyncOrUndefined answers as lstatOrUndefined does, synchronously", async () => {
  await withProject({}, async (dir) => {
    await Deno.writeTextFile(join(dir, "file"), "x");
    await Deno.symlink("file", join(dir, "link"));
    await Deno.symlink("b", join(dir, "a"));
    await Deno.symlink("a", join(dir, "b"));
    for (const name of ["file", "link", ".", "missing", "file/below"]) {
      const path = join(dir, name);
      const sync = lstatSyncOrUndefined(path);
      const async = await lstatOrUndefined(path);
      assert.deepEqual(
        [sync?.isFile, sync?.isSymlink, sync?.isDirectory, sync?.ino],
        [async?.isFile, async?.isSymlink, async?.isDirectory, async?.ino],
        name,
      );
    }
    assert.throws(() => lstatSyncOrUndefined(join(dir, "a/x")), (error: unknown) => {
      assert.ok(error instanceof CodeCommitError);
      assert.ok(error.message.startsWith(`cannot inspect ${join(dir, "a/x")}: `), error.message);
      return true;
    });
  });
});

Deno.test("isMissing: NotFound and NotADirectory only", () => {
  assert.equal(isMissing(new Deno.errors.NotFound()), true);
  assert.equal(isMissing(new Deno.errors.NotADirectory()), true);
  assert.equal(isMissing(new Deno.errors.PermissionDenied()), false);
  assert.equal(isMissing(new Error("x")), false);
});

Deno.test("describeSpecial names fifos, sockets and devices", async () => {
  await withProject({}, async (dir) => {
    await mkfifo(join(dir, "pipe"));
    assert.equal(describeSpecial(await Deno.lstat(join(dir, "pipe"))), "a fifo (named pipe)");
  });
  assert.equal(describeSpecial(await Deno.stat("/dev/zero")), "a character device");
  const info = (extra: Partial<Deno.FileInfo>) => ({ ...extra }) as Deno.FileInfo;
  assert.equal(describeSpecial(info({ isSocket: true })), "a socket");
  assert.equal(describeSpecial(info({ isBlockDevice: true })), "a block device");
  assert.equal(describeSpecial(info({})), "neither a file nor a folder");
});

Deno.test("describeEntry names what is at a path: a file, a link, a folder or a special file", async () => {
  await withProject({}, async (dir) => {
    await Deno.writeTextFile(join(dir, "file"), "x");
    await Deno.mkdir(join(dir, "folder"));
    await Deno.symlink("file", join(dir, "link"));
    await mkfifo(join(dir, "pipe"));
    const named = async (name: string) => describeEntry(await Deno.lstat(join(dir, name)));
    assert.equal(await named("file"), "a regular file");
    assert.equal(await named("folder"), "a folder");
    assert.equal(await named("link"), "a symbolic link");
    assert.equal(await named("pipe"), "a fifo (named pipe)");
  });
  assert.equal(describeEntry(await Deno.stat("/dev/null")), "a character device");
});
