import assert from "node:assert/strict";
import { join } from "node:path";
import { denoFileSystem, type FileSystem } from "../../lib/file_system/file_system.ts";
import { FileStepError } from "../../lib/file_system/file_step_error.ts";
import {
  AtomicFileWriter,
  removeIfPresent,
  writeAtomically,
} from "../../lib/file_system/write_atomically.ts";
import { recordingFs } from "./helpers.ts";
import { IN_CI } from "../support/ci.ts";
import { withProject } from "../support/project.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const TEMPORARY = /^\..+\.code-commit-[0-9a-f]{16}\.tmp$/;

/** The names in `folder`, sorted. */
function names(folder: string): string[] {
  return [...Deno.readDirSync(folder)].map((entry) => entry.name).sort();
}

Deno.test("writeAtomically: the temporary file is a hidden sibling, fresh each time, its name at most 255 bytes", async () => {
  await withProject({}, async (root) => {
    const seen: string[] = [];
    const look = () => {
      seen.push(...names(root).filter((name) => name.includes(".code-commit-")));
      return Promise.resolve();
    };
    await writeAtomically(denoFileSystem, root, "main.ts", bytes("1"), { beforeRename: look });
    await writeAtomically(denoFileSystem, root, "main.ts", bytes("2"), { beforeRename: look });
    assert.equal(seen.length, 2);
    for (const name of seen) assert.match(name, /^\.main\.ts\.code-commit-[0-9a-f]{16}\.tmp$/);
    assert.notEqual(seen[0], seen[1]);
    for (const long of ["x".repeat(250), "é".repeat(125), "😀".repeat(62)]) {
      seen.length = 0;
      await writeAtomically(denoFileSystem, root, long, bytes("long"), { beforeRename: look });
      assert.equal(seen.length, 1);
      assert.ok(new TextEncoder().encode(seen[0]).length <= 255, seen[0]);
      assert.match(seen[0], TEMPORARY);
      assert.ok(seen[0].isWellFormed());
      assert.equal(await Deno.readTextFile(join(root, long)), "long");
    }
  });
});

Deno.test("writeAtomically creates a file, then replaces it, leaving no temporary file", async () => {
  await withProject({}, async (root) => {
    await Deno.mkdir(join(root, "dir"));
    await writeAtomically(denoFileSystem, root, "dir/a.txt", bytes("one"));
    assert.equal(await Deno.readTextFile(join(root, "dir/a.txt")), "one");
    await writeAtomically(denoFileSystem, root, "dir/a.txt", bytes("two"), { mode: 0o600 });
    assert.equal(await Deno.readTextFile(join(root, "dir/a.txt")), "two");
    assert.equal((await Deno.stat(join(root, "dir/a.txt"))).mode! & 0o777, 0o600);
    await writeAtomically(denoFileSystem, root, "top.txt", bytes(""));
    assert.deepEqual(names(root), ["dir", "top.txt"]);
    assert.deepEqual(names(join(root, "dir")), ["a.txt"]);
  });
});

Deno.test("writeAtomically replaces a link at the destination instead of writing through it", async () => {
  await withProject({}, async (root) => {
    await Deno.writeTextFile(join(root, "target.txt"), "untouched");
    await Deno.symlink("target.txt", join(root, "link.txt"));
    await writeAtomically(denoFileSystem, root, "link.txt", bytes("new"));
    assert.equal(await Deno.readTextFile(join(root, "target.txt")), "untouched");
    assert.ok((await Deno.lstat(join(root, "link.txt"))).isFile);
  });
});

Deno.test("writeAtomically: a name already taken is someone else's file, never touched", async () => {
  await withProject({}, async (root) => {
    let taken = 0;
    const fs: FileSystem = {
      ...denoFileSystem,
      writeNewFile: async (path, data, mode) => {
        if (taken++ < 2) {
          await Deno.writeTextFile(path, "someone else's"); // the name was taken meanwhile
          throw new Deno.errors.AlreadyExists("taken");
        }
        await denoFileSystem.writeNewFile(path, data, mode);
      },
    };
    await writeAtomically(fs, root, "a.txt", bytes("mine"));
    assert.equal(await Deno.readTextFile(join(root, "a.txt")), "mine");
    const others = names(root).filter((name) => name !== "a.txt");
    assert.equal(others.length, 2);
    for (const other of others) {
      assert.equal(await Deno.readTextFile(join(root, other)), "someone else's");
    }
  });
});

Deno.test("writeAtomically: three names taken is a FileStepError", async () => {
  await withProject({}, async (root) => {
    const fs: FileSystem = {
      ...denoFileSystem,
      writeNewFile: () => Promise.reject(new Deno.errors.AlreadyExists("taken")),
    };
    const temporaries = new Set<string>();
    await assert.rejects(writeAtomically(fs, root, "a.txt", bytes("x"), { temporaries }), {
      name: "FileStepError",
      message:
        /^writing the temporary file "\.a\.txt\.code-commit-[0-9a-f]{16}\.tmp" failed: taken$/,
    });
    assert.deepEqual([...temporaries], []);
  });
});

Deno.test("writeAtomically: a write that fails halfway leaves nothing behind", async () => {
  await withProject({}, async (root) => {
    const fs: FileSystem = {
      ...denoFileSystem,
      writeNewFile: async (path) => {
        await Deno.writeTextFile(path, "half"); // created, then the disk fills up
        throw new Error("No space left on device");
      },
    };
    const temporaries = new Set<string>();
    await assert.rejects(
      writeAtomically(fs, root, "a.txt", bytes("whole"), { temporaries }),
      /No space left on device/,
    );
    assert.deepEqual(names(root), []);
    assert.deepEqual([...temporaries], []);
  });
});

Deno.test("writeAtomically: when the check before the rename throws, the old file stays and the temporary goes", async () => {
  await withProject({}, async (root) => {
    await Deno.writeTextFile(join(root, "a.txt"), "old");
    const temporaries = new Set<string>();
    await assert.rejects(
      writeAtomically(denoFileSystem, root, "a.txt", bytes("new"), {
        temporaries,
        beforeRename: () => Promise.reject(new Error("checked again: refused")),
      }),
      /checked again: refused/,
    );
    assert.equal(await Deno.readTextFile(join(root, "a.txt")), "old");
    assert.deepEqual(names(root), ["a.txt"]);
    assert.deepEqual([...temporaries], []);
  });
});

Deno.test("writeAtomically: a failed rename names both paths and removes the temporary file", async () => {
  await withProject({}, async (root) => {
    await Deno.writeTextFile(join(root, "a.txt"), "old");
    const { fs } = recordingFs((call) =>
      call.method === "rename" ? new Error("injected rename failure") : undefined
    );
    await assert.rejects(writeAtomically(fs, root, "a.txt", bytes("new")), (error: unknown) => {
      assert.ok(error instanceof FileStepError);
      assert.match(
        error.message,
        /^renaming "\.a\.txt\.code-commit-[0-9a-f]{16}\.tmp" to "a\.txt" failed: injected rename failure$/,
      );
      return true;
    });
    assert.deepEqual(names(root), ["a.txt"]);
    assert.equal(await Deno.readTextFile(join(root, "a.txt")), "old");
  });
});

Deno.test("writeAtomically: a temporary file behind a folder swapped for a link is not removed through it, and is reported", async () => {
  await withProject({}, async (root) => {
    const outside = join(root, "outside");
    await Deno.mkdir(outside);
    await Deno.mkdir(join(root, "dir"));
    const temporaries = new Set<string>();
    await assert.rejects(
      writeAtomically(denoFileSystem, root, "dir/a.txt", bytes("new"), {
        temporaries,
        beforeRename: async () => {
          // The folder goes away with the temporary file; a link takes its place, and
          // a file of the same name waits behind it.
          await Deno.rename(join(root, "dir"), join(root, "moved"));
          await Deno.symlink(outside, join(root, "dir"));
          for (const name of names(join(root, "moved"))) {
            await Deno.writeTextFile(join(outside, name), "not yours");
          }
          throw new Error("dir is a link now");
        },
      }),
      /dir is a link now/,
    );
    const [temporary] = [...temporaries];
    assert.match(temporary, /^dir\/\.a\.txt\.code-commit-[0-9a-f]{16}\.tmp$/);
    assert.equal(temporaries.size, 1);
    assert.equal(await Deno.readTextFile(join(outside, temporary.slice(4))), "not yours");
  });
});

Deno.test("removeIfPresent: removes a file or an empty folder, is fine when gone, refuses a link above", async () => {
  await withProject({}, async (root) => {
    await Deno.mkdir(join(root, "dir/empty"), { recursive: true });
    await Deno.writeTextFile(join(root, "dir/f"), "");
    await removeIfPresent(denoFileSystem, root, "dir/f");
    await removeIfPresent(denoFileSystem, root, "dir/empty");
    await removeIfPresent(denoFileSystem, root, "dir/f");
    await removeIfPresent(denoFileSystem, root, "nowhere/f");
    assert.deepEqual(names(join(root, "dir")), []);
    await Deno.writeTextFile(join(root, "dir/keep"), "");
    await Deno.symlink(join(root, "dir"), join(root, "link"));
    await assert.rejects(removeIfPresent(denoFileSystem, root, "link/keep"), {
      name: "FileStepError",
      message: `"link" is a symbolic link; code-commit never writes through a link`,
    });
    assert.deepEqual(names(join(root, "dir")), ["keep"]);
    await Deno.mkdir(join(root, "full"));
    await Deno.writeTextFile(join(root, "full/x"), "");
    await assert.rejects(removeIfPresent(denoFileSystem, root, "full"));
  });
});

Deno.test("writeAtomically with sync: the same write (flushed), the temporary file gone", async () => {
  await withProject({ "main.ts": "old\n" }, async (root) => {
    await writeAtomically(denoFileSystem, root, "main.ts", bytes("new\n"), { sync: true });
    await writeAtomically(denoFileSystem, root, "made.ts", bytes("made\n"), { sync: true });
    assert.equal(await Deno.readTextFile(join(root, "main.ts")), "new\n");
    assert.equal(await Deno.readTextFile(join(root, "made.ts")), "made\n");
    assert.deepEqual(names(root).filter((name) => TEMPORARY.test(name)), []);
  });
});

Deno.test("AtomicFileWriter: pieces go to an exclusive hidden sibling; commit renames it over the destination, abandon removes it", async () => {
  await withProject({ "pack": "old" }, async (root) => {
    const writer = new AtomicFileWriter(root, "pack");
    writer.commit(); // nothing appended: nothing made
    assert.deepEqual(names(root), ["pack"]);
    writer.append(bytes("one "));
    writer.append(new Uint8Array());
    writer.append(bytes("two"));
    assert.equal(writer.size, 7);
    const [temporary] = names(root).filter((name) => TEMPORARY.test(name));
    assert.match(temporary, /^\.pack\.code-commit-[0-9a-f]{16}\.tmp$/);
    assert.equal(await Deno.readTextFile(join(root, "pack")), "old");
    writer.commit();
    assert.deepEqual(names(root), ["pack"]);
    assert.equal(await Deno.readTextFile(join(root, "pack")), "one two");

    const dropped = new AtomicFileWriter(root, "other");
    dropped.append(bytes("x"));
    dropped.abandon();
    dropped.abandon(); // twice: still no error
    assert.deepEqual(names(root), ["pack"]);
  });
});

Deno.test("AtomicFileWriter: a link at the destination is replaced, never written through", async () => {
  await withProject({ "target.txt": "theirs" }, async (root) => {
    await Deno.symlink("target.txt", join(root, "pack"));
    const writer = new AtomicFileWriter(root, "pack");
    writer.append(bytes("ours"));
    writer.commit();
    assert.equal((await Deno.lstat(join(root, "pack"))).isFile, true);
    assert.equal(await Deno.readTextFile(join(root, "pack")), "ours");
    assert.equal(await Deno.readTextFile(join(root, "target.txt")), "theirs");
  });
});

/** Where `strace` is, or undefined: the flush test needs it (`.ci/run` installs it). */
const STRACE = ["/usr/bin/strace", "/bin/strace"].find((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
});

Deno.test({
  name:
    "[strace] a synced write is flushed before its rename and its folder after it; a streamed one before its rename",
  ignore: STRACE === undefined && !IN_CI,
  async fn() {
    if (STRACE === undefined) throw new Error("strace is not installed (.ci/run installs it)");
    await withProject({}, async (root) => {
      const log = join(root, "strace.txt");
      const child = await new Deno.Command(STRACE, {
        args: [
          "-f",
          "-qq",
          "-o",
          log,
          "-e",
          "trace=openat,fsync,fdatasync,rename,renameat,renameat2,close",
          Deno.execPath(),
          "run",
          `--allow-read=${root}`,
          `--allow-write=${root}`,
          new URL("./sync_in_child.ts", import.meta.url).pathname,
          root,
          "made.ts",
          "streamed.bin",
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(child.code, 0, new TextDecoder().decode(child.stderr));
      // Each call in order, with the path it acted on (an fsync names the path its descriptor was
      // opened with, as the trace of the open said).
      const opened = new Map<string, string>();
      const calls: string[] = [];
      for (const line of (await Deno.readTextFile(log)).split("\n")) {
        const open = /^(\d+)\s+openat\(AT_FDCWD, "([^"]+)".*\) = (\d+)$/.exec(line);
        if (open) opened.set(`${open[1]}:${open[3]}`, open[2]);
        const sync = /^(\d+)\s+f(?:data)?sync\((\d+)\)\s+= 0$/.exec(line);
        if (sync) calls.push(`fsync ${opened.get(`${sync[1]}:${sync[2]}`)}`);
        const rename = /^\d+\s+rename(?:at2?)?\((?:AT_FDCWD, )?"([^"]+)", (?:AT_FDCWD, )?"([^"]+)"/
          .exec(line);
        if (rename) calls.push(`rename ${rename[1]} ${rename[2]}`);
      }
      const inRoot = calls.filter((call) => call.includes(root)).map((call) =>
        call.replaceAll(root, "ROOT").replace(/\.code-commit-[0-9a-f]{16}\.tmp/g, ".TMP")
      );
      assert.deepEqual(inRoot, [
        "fsync ROOT/.made.ts.TMP",
        "rename ROOT/.made.ts.TMP ROOT/made.ts",
        "fsync ROOT",
        "fsync ROOT/.streamed.bin.TMP",
        "rename ROOT/.streamed.bin.TMP ROOT/streamed.bin",
      ]);
    });
  },
});
