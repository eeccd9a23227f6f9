/**
 * A folder swapped for a link and back between two looks of the applier,
 * replayed deterministically: a file system (over the real one) that sends
 * each call on `dir` either to the real folder or through a "link" to a
 * folder outside the project, as the test says call by call. This is the
 * interleaving a real flipper (`tests/e2e/swapped_folder_test.ts`) hits
 * only now and then, on a loaded machine, when the applier is descheduled
 * between two looks and the folder flips twice meanwhile.
 */

import assert from "node:assert/strict";
import {
  ApplyError,
  type ApplyFileSystem,
  applyOperations,
  denoFileSystem,
} from "../../lib/apply/apply.ts";
import type { EntryInfo } from "../../lib/file_system/file_system.ts";
import type { FileOperation } from "../../lib/reply/operations.ts";
import { listFiles, tempProject, withProject } from "../support/project.ts";

/** Where a call on a path under the flipped folder goes. */
type Way = "in" | "link";

/** One call on the flipped folder or a path under it: the method and the path below the root. */
interface FlipCall {
  readonly method: keyof ApplyFileSystem;
  readonly relative: string;
}

/**
 * The real file system, but `<root>/<folder>` is, for each call, the real
 * folder or a symbolic link to `outside`, as `way` says: a lookup through
 * the "link" reaches `outside`; `lstat` of the folder itself shows a link
 * then, and `realPath` leads to `outside`.
 */
function flippingFs(
  root: string,
  folder: string,
  outside: string,
  way: (call: FlipCall) => Way,
): ApplyFileSystem {
  const prefix = `${root}/${folder}`;
  /** The path the call reaches, and whether it is the folder itself seen through the link. */
  const route = (method: keyof ApplyFileSystem, path: string) => {
    if (path !== prefix && !path.startsWith(`${prefix}/`)) return { path, link: false };
    const relative = path.slice(root.length + 1);
    if (way({ method, relative }) === "in") return { path, link: false };
    const rest = path.slice(prefix.length);
    return { path: `${outside}${rest}`, link: rest === "" };
  };
  const linkInfo: EntryInfo = {
    isFile: false,
    isDirectory: false,
    isSymlink: true,
    mode: 0o120777,
    ino: 1,
    dev: 1,
  };
  return {
    lstat: async (path) => {
      const to = route("lstat", path);
      return to.link ? linkInfo : await denoFileSystem.lstat(to.path);
    },
    readFile: (path) => denoFileSystem.readFile(route("readFile", path).path),
    writeNewFile: (path, data, mode, onCreated) =>
      denoFileSystem.writeNewFile(route("writeNewFile", path).path, data, mode, onCreated),
    rename: (from, to) =>
      denoFileSystem.rename(route("rename", from).path, route("rename", to).path),
    remove: (path) => denoFileSystem.remove(route("remove", path).path),
    mkdir: (path) => denoFileSystem.mkdir(route("mkdir", path).path),
    realPath: (path) => denoFileSystem.realPath(route("realPath", path).path),
  };
}

const write = (path: string, content: string): FileOperation => ({ kind: "write", path, content });

/** The applier's temporary files under `root`. */
async function temporaries(root: string): Promise<string[]> {
  return (await listFiles(root)).filter((path) => /\.code-commit-[0-9a-f]{16}\.tmp$/.test(path));
}

/** Asserts that `promise` rejects with an {@link ApplyError} and returns it. */
async function applyError(promise: Promise<unknown>): Promise<ApplyError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApplyError, `expected an ApplyError, got ${error}`);
    return error;
  }
  assert.fail("expected applyOperations to fail");
}

const isTemporary = (relative: string) => /^dir\/\.target\.txt\.code-commit-/.test(relative);

Deno.test("applyOperations: a temporary file not found through a folder flipped to a link and back is not taken for removed: the cleanup finds it in place and removes it", async () => {
  await using outsideProject = await tempProject({ "theirs.txt": "not yours\n" });
  const outside = outsideProject.root;
  await withProject({ "a.txt": "a\n", "dir/b.txt": "b\n" }, async (root) => {
    let written = false;
    let swapSeen = false;
    let hidden = 0;
    const flipping = flippingFs(root, "dir", outside, ({ method, relative }) => {
      // Every temporary file is made and checked in place; then, at the check
      // before the renames, the folder is a link for one look (the swap is noticed)...
      if (written && !swapSeen && method === "realPath" && relative === "dir") {
        swapSeen = true;
        return "link";
      }
      // ...and for the cleanup it is in place at every look at the folder,
      // but a link at the first looks for the file (flipped twice between
      // two looks of the folder, each time).
      if (swapSeen && method === "lstat" && isTemporary(relative) && hidden < 3) {
        hidden++;
        return "link";
      }
      return "in";
    });
    const fs: ApplyFileSystem = {
      ...flipping,
      writeNewFile: async (path, data, mode, onCreated) => {
        await flipping.writeNewFile(path, data, mode, onCreated);
        if (isTemporary(path.slice(root.length + 1))) written = true;
      },
    };
    const error = await applyError(
      applyOperations(root, [write("a.txt", "changed\n"), write("dir/target.txt", "x\n")], {
        fs,
      }),
    );
    // Not left in the project while the rollback says it is complete.
    assert.deepEqual(await temporaries(root), []);
    assert.equal(error.path, "dir/target.txt");
    assert.match(error.message, /"dir" was swapped for a symbolic link/);
    assert.match(error.message, /Every change already made by this reply was rolled back/);
    assert.deepEqual(error.notRestored, []);
    assert.equal(hidden, 3, "the cleanup looked for the file through the link, then found it");
    assert.equal(await Deno.readTextFile(`${root}/a.txt`), "a\n");
    assert.deepEqual(await listFiles(outside), ["theirs.txt"]);
  });
});

Deno.test("applyOperations: a temporary file made through the link, seen through it again after a look at the folder in place, is refused before a byte is written and removed where it landed", async () => {
  await using outsideProject = await tempProject({ "theirs.txt": "not yours\n" });
  const outside = outsideProject.root;
  await withProject({ "a.txt": "a\n", "dir/b.txt": "b\n" }, async (root) => {
    let way: Way = "in";
    let made = false;
    let relooked = false;
    const sizes: number[] = [];
    const flipping = flippingFs(root, "dir", outside, ({ method, relative }) => {
      if (method === "writeNewFile" && isTemporary(relative)) {
        way = "link"; // created through the link: it lands outside
        made = true;
      } else if (made && way === "link" && !relooked && method === "realPath") {
        way = "in"; // flipped back for the look at the folder...
      } else if (made && !relooked && method === "lstat" && isTemporary(relative)) {
        relooked = true;
        way = "link"; // ...and to the link again for the look at the file, and stays so
      }
      return way;
    });
    const fs: ApplyFileSystem = {
      ...flipping,
      remove: async (path) => {
        if (isTemporary(path.slice(root.length + 1))) {
          const landed = `${outside}/${path.slice(`${root}/dir/`.length)}`;
          const info = await Deno.lstat(landed).catch(() => null);
          if (info !== null) sizes.push(info.size);
        }
        await flipping.remove(path);
      },
    };
    const error = await applyError(
      applyOperations(root, [write("a.txt", "changed\n"), write("dir/target.txt", "x\n")], {
        fs,
      }),
    );
    assert.ok(relooked, "the file was looked at through the link after the folder in place");
    assert.equal(error.path, "dir/target.txt");
    assert.match(error.message, /"dir" was swapped for a symbolic link/);
    assert.match(error.message, /Every change already made by this reply was rolled back/);
    assert.deepEqual(error.notRestored, []);
    // It landed outside, empty (nothing was written to it), and is gone from there.
    assert.deepEqual(sizes, [0]);
    assert.deepEqual(await listFiles(outside), ["theirs.txt"]);
    assert.equal(await Deno.readTextFile(`${outside}/theirs.txt`), "not yours\n");
    assert.deepEqual(await temporaries(root), []);
    assert.equal(await Deno.readTextFile(`${root}/a.txt`), "a\n");
  });
});

Deno.test("applyOperations: a file renamed into place, not found through a folder flipped to a link and back, is not taken for removed: the rollback removes that very file", async () => {
  await using outsideProject = await tempProject({ "theirs.txt": "not yours\n" });
  const outside = outsideProject.root;
  await withProject({ "a.txt": "a\n", "dir/b.txt": "b\n" }, async (root) => {
    let renamed = false;
    let swapSeen = false;
    let hidden = 0;
    const flipping = flippingFs(root, "dir", outside, ({ method, relative }) => {
      // Once dir/one.txt is renamed into place, the folder is a link for one
      // look at it (the swap is noticed before dir/two.txt)...
      if (renamed && !swapSeen && method === "realPath" && relative === "dir") {
        swapSeen = true;
        return "link";
      }
      // ...and the rollback's first looks for dir/one.txt, and its first
      // removal, go through the link while every look at the folder finds it in place.
      if (swapSeen && relative === "dir/one.txt" && hidden < 3) {
        hidden++;
        return "link";
      }
      return "in";
    });
    const fs: ApplyFileSystem = {
      ...flipping,
      rename: async (from, to) => {
        await flipping.rename(from, to);
        if (to === `${root}/dir/one.txt`) renamed = true;
      },
    };
    const error = await applyError(
      applyOperations(root, [
        write("a.txt", "changed\n"),
        write("dir/one.txt", "1\n"),
        write("dir/two.txt", "2\n"),
      ], { fs }),
    );
    // Not left in the project while the rollback says it is complete.
    assert.deepEqual((await listFiles(root)).sort(), ["a.txt", "dir/b.txt"]);
    assert.equal(hidden, 3, "the rollback looked for the file through the link, then found it");
    assert.equal(error.path, "dir/two.txt");
    assert.match(error.message, /"dir" was swapped for a symbolic link/);
    assert.match(error.message, /Every change already made by this reply was rolled back/);
    assert.deepEqual(error.notRestored, []);
    assert.equal(await Deno.readTextFile(`${root}/a.txt`), "a\n");
    assert.deepEqual(await listFiles(outside), ["theirs.txt"]);
  });
});
