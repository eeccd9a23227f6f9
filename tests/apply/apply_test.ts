/**
 * Tests of the transactional applier on its own, on real temporary folders:
 * the calls it makes, its own refusals and link checks (defence in depth
 * behind the guard), and the all-or-nothing guarantee with a failure
 * injected at every file system call of a mixed reply, plus one real
 * operating-system failure (a file name longer than 255 bytes). Whole
 * replies applied to disk, through the parser and the guard, are the data
 * scenarios of `apply_scenarios_test.ts`.
 */

import assert from "node:assert/strict";
import {
  ApplyError,
  type ApplyFileSystem,
  applyOperations,
  denoFileSystem,
} from "../../lib/apply/apply.ts";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import type { FileOperation } from "../../lib/reply/operations.ts";
import { type Files, tempProject, withProject } from "../support/project.ts";

// ---------------------------------------------------------------------------
// Helpers

/** One entry of a snapshot: its type, permission bits and content or link target. */
interface Entry {
  readonly type: "file" | "folder" | "link";
  readonly mode: number;
  readonly data?: string;
}

/** Every file, folder and link under `root` (relative path → entry), bytes included. */
async function snapshot(root: string): Promise<Record<string, Entry>> {
  const result: Record<string, Entry> = {};
  async function walk(relative: string): Promise<void> {
    const absolute = relative === "" ? root : `${root}/${relative}`;
    for await (const item of Deno.readDir(absolute)) {
      const path = relative === "" ? item.name : `${relative}/${item.name}`;
      const info = await Deno.lstat(`${root}/${path}`);
      const mode = (info.mode ?? 0) & 0o7777;
      if (info.isSymlink) {
        result[path] = { type: "link", mode, data: await Deno.readLink(`${root}/${path}`) };
      } else if (info.isDirectory) {
        result[path] = { type: "folder", mode };
        await walk(path);
      } else {
        const bytes = await Deno.readFile(`${root}/${path}`);
        result[path] = { type: "file", mode, data: Array.from(bytes).join(",") };
      }
    }
  }
  await walk("");
  return Object.fromEntries(Object.entries(result).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The temporary files of the applier found under `root`. */
async function leftoverTemporaries(root: string): Promise<string[]> {
  return Object.keys(await snapshot(root)).filter((path) =>
    /\.code-commit-[0-9a-f]+\.tmp$/.test(path)
  );
}

/** The mutating methods of {@link ApplyFileSystem}. */
const MUTATING = new Set(["writeNewFile", "rename", "remove", "mkdir"]);

/** A call made through {@link spyingFs}: its 1-based rank among mutating or reading calls. */
interface Call {
  readonly method: keyof ApplyFileSystem;
  readonly path: string;
  readonly mutating: boolean;
  /** Rank among calls of the same kind (mutating, or not). */
  readonly index: number;
}

/**
 * Wraps the real file system: records every call and makes it fail, instead
 * of running, when `fail` says so.
 */
function spyingFs(
  fail: (call: Call) => boolean = () => false,
): { fs: ApplyFileSystem; calls: Call[] } {
  const calls: Call[] = [];
  let mutating = 0;
  let reading = 0;
  function guard(method: keyof ApplyFileSystem, path: string): void {
    const isMutating = MUTATING.has(method);
    const index = isMutating ? ++mutating : ++reading;
    const call = { method, path, mutating: isMutating, index };
    calls.push(call);
    if (fail(call)) {
      throw new Error(`injected failure of ${method} #${index} on ${path}`);
    }
  }
  const fs: ApplyFileSystem = {
    lstat: async (path) => (guard("lstat", path), await denoFileSystem.lstat(path)),
    readFile: async (path) => (guard("readFile", path), await denoFileSystem.readFile(path)),
    writeNewFile: async (path, data, mode, onCreated) => {
      guard("writeNewFile", path);
      await denoFileSystem.writeNewFile(path, data, mode, onCreated);
    },
    rename: async (from, to) => (guard("rename", to), await denoFileSystem.rename(from, to)),
    remove: async (path) => (guard("remove", path), await denoFileSystem.remove(path)),
    mkdir: async (path) => (guard("mkdir", path), await denoFileSystem.mkdir(path)),
    realPath: async (path) => (guard("realPath", path), await denoFileSystem.realPath(path)),
  };
  return { fs, calls };
}

/** Asserts that `promise` rejects with an {@link ApplyError} and returns it. */
async function rejectsWithApplyError(promise: Promise<unknown>): Promise<ApplyError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApplyError, `expected an ApplyError, got ${error}`);
    assert.ok(error instanceof CodeCommitError);
    assert.equal(error.exitCode, 3);
    return error;
  }
  assert.fail("expected applyOperations to fail");
}

const write = (path: string, content: string): FileOperation => ({ kind: "write", path, content });
const del = (path: string): FileOperation => ({ kind: "delete", path });

// ---------------------------------------------------------------------------
// Basics

Deno.test("applyOperations: deleting a missing file is a no-op with a warning", async () => {
  await withProject(
    { "keep.txt": { content: "k\n" }, "file": { content: "f\n" } },
    async (root) => {
      const before = await snapshot(root);
      const result = await applyOperations(root, [
        del("missing.txt"),
        del("no/such/folder/x.ts"),
        del("file/under-a-file.ts"),
      ]);
      assert.deepEqual(result.changes, []);
      assert.equal(result.warnings.length, 3);
      assert.match(result.warnings[0], /"missing\.txt" was to be deleted but does not exist/);
      assert.match(result.warnings[1], /"no\/such\/folder\/x\.ts"/);
      assert.deepEqual(await snapshot(root), before);
    },
  );
});

Deno.test("applyOperations: creates nested parent folders one by one", async () => {
  await withProject({ "src/main.ts": { content: "m\n" } }, async (root) => {
    const { fs, calls } = spyingFs();
    await applyOperations(root, [write("src/a/b/c/d.ts", "d\n")], { fs });
    assert.equal(await Deno.readTextFile(`${root}/src/a/b/c/d.ts`), "d\n");
    assert.deepEqual(
      calls.filter((call) => call.method === "mkdir").map((call) => call.path),
      [`${root}/src/a`, `${root}/src/a/b`, `${root}/src/a/b/c`],
    );
  });
});

Deno.test("applyOperations: every file's bytes are its text's, whatever the sizes around it", async () => {
  // One writer encodes each file into a buffer it reuses, grown for a larger text; a text over
  // 256 Ki characters gets its own. Sizes in turn: small, grown past 64 KiB by characters of
  // 2-4 bytes, small again, over the reuse limit, in between, empty.
  const texts = [
    "small\n",
    "é中\u{1F600}x".repeat(40_000), // 200,000 characters, 400,000 bytes
    "small again\n",
    "ünï".repeat(100_000), // 300,000 characters: a buffer of its own
    "ab—".repeat(30_000),
    "",
  ];
  for (const parallelism of [1, 3]) {
    await withProject({}, async (root) => {
      await applyOperations(
        root,
        texts.map((text, index) => write(`f${index}.txt`, text)),
        { parallelism },
      );
      for (const [index, text] of texts.entries()) {
        const written = await Deno.readFile(`${root}/f${index}.txt`);
        const expected = new TextEncoder().encode(text);
        // Compared here: a failing deepEqual of 400,000 bytes would print them all.
        const same = written.length === expected.length &&
          written.every((byte, at) => byte === expected[at]);
        assert.ok(
          same,
          `f${index}.txt, ${parallelism} at a time: ${written.length} bytes written, ` +
            `${expected.length} expected`,
        );
      }
    });
  }
});

Deno.test("applyOperations: writes go to an exclusive temporary sibling, then a rename", async () => {
  await withProject({ "dir/a.txt": { content: "a\n" } }, async (root) => {
    const { fs, calls } = spyingFs();
    await applyOperations(root, [write("dir/a.txt", "b\n")], { fs });
    const mutating = calls.filter((call) => call.mutating);
    assert.deepEqual(mutating.map((call) => call.method), ["writeNewFile", "rename"]);
    assert.match(
      mutating[0].path,
      new RegExp(`^${root}/dir/\\.a\\.txt\\.code-commit-[0-9a-f]{16}\\.tmp$`),
    );
    assert.equal(mutating[1].path, `${root}/dir/a.txt`);
  });
});

Deno.test("applyOperations: the same path twice is applied in order", async () => {
  await withProject({}, async (root) => {
    const result = await applyOperations(root, [write("x.txt", "1\n"), write("x.txt", "2\n")]);
    assert.deepEqual(result.changes.map((change) => change.kind), ["created", "replaced"]);
    assert.equal(await Deno.readTextFile(`${root}/x.txt`), "2\n");
  });
});

// ---------------------------------------------------------------------------
// Refusals that change nothing

Deno.test("applyOperations: refuses paths that are not plain relative paths", async () => {
  await withProject({ "a.txt": { content: "a\n" } }, async (root) => {
    const before = await snapshot(root);
    for (const path of ["", "/etc/passwd", "../x", "a/../b", "./a", "a//b", "a/", "a\0b"]) {
      const error = await rejectsWithApplyError(
        applyOperations(root, [write("a.txt", "changed\n"), write(path, "x\n")]),
      );
      assert.equal(error.path, path);
      assert.match(error.message, /nothing was changed/);
      assert.deepEqual(await snapshot(root), before);
    }
  });
});

Deno.test("applyOperations: refuses what the path guard's syntax check refuses, in its words", async () => {
  await withProject({ "a.txt": { content: "a\n" } }, async (root) => {
    const before = await snapshot(root);
    for (
      const [path, reason] of [
        ["a:b", /contains `:`/],
        ["src\\a.ts", /contains a backslash/],
        ["x/BUILD~1.SH", /Windows short \(8\.3\) name/],
        ["build.sh.", /ends with `\.`/],
        ["~/a", /home folder/],
        ["./a", /starts with `\.\/`/],
      ] as const
    ) {
      const error = await rejectsWithApplyError(
        applyOperations(root, [write("a.txt", "changed\n"), write(path, "x\n")]),
      );
      assert.equal(error.path, path);
      assert.match(error.message, /^refusing to apply the reply: the path /);
      assert.match(error.message, reason, path);
      assert.deepEqual(await snapshot(root), before);
    }
  });
});

Deno.test("applyOperations: a folder in the way fails and rolls back", async () => {
  await withProject({ "a.txt": { content: "a\n" }, "plain": { content: "p\n" } }, async (root) => {
    await Deno.mkdir(`${root}/folder`);
    const before = await snapshot(root);
    for (const operation of [write("folder", "x\n"), del("folder"), write("plain/x.ts", "x\n")]) {
      const error = await rejectsWithApplyError(
        applyOperations(root, [write("a.txt", "changed\n"), write("n/new.txt", "n\n"), operation]),
      );
      assert.equal(error.path, operation.path);
      assert.match(error.message, /rolled back/);
      assert.deepEqual(await snapshot(root), before);
    }
  });
});

// ---------------------------------------------------------------------------
// Symbolic links are never followed

Deno.test("applyOperations: never writes or deletes through a symbolic link", async () => {
  await using outsideProject = await tempProject({ "target.txt": "outside\n" });
  const outside = outsideProject.root;
  {
    await withProject({ "a.txt": { content: "a\n" } }, async (root) => {
      await Deno.symlink(`${outside}/target.txt`, `${root}/link.txt`);
      await Deno.symlink(outside, `${root}/linkdir`);
      const before = await snapshot(root);
      for (
        const operation of [
          write("link.txt", "pwned\n"),
          del("link.txt"),
          write("linkdir/target.txt", "pwned\n"),
          write("linkdir/new.txt", "pwned\n"),
          del("linkdir/target.txt"),
        ]
      ) {
        const error = await rejectsWithApplyError(
          applyOperations(root, [write("a.txt", "changed\n"), operation]),
        );
        assert.match(error.message, /symbolic link/);
        assert.match(error.message, /rolled back/);
        assert.deepEqual(await snapshot(root), before);
        assert.deepEqual(await snapshot(outside), {
          "target.txt": { type: "file", mode: 0o644, data: "111,117,116,115,105,100,101,10" },
        });
      }
    });
  }
});

Deno.test("applyOperations: a folder swapped for a link after its temporary file was made is caught before the rename", async () => {
  await using outsideProject = await tempProject({ "target.txt": "outside\n" });
  const outside = outsideProject.root;
  {
    await withProject(
      { "a.txt": { content: "a\n" }, "dir/b.txt": { content: "b\n" } },
      async (root) => {
        const { fs: spy } = spyingFs();
        // Once the temporary file is written, "dir" is swapped for a link.
        const fs: ApplyFileSystem = {
          ...spy,
          writeNewFile: async (path, data, mode, onCreated) => {
            await spy.writeNewFile(path, data, mode, onCreated);
            if (path.startsWith(`${root}/dir/.target.txt.`)) {
              await Deno.rename(`${root}/dir`, `${root}/dir-moved`);
              await Deno.symlink(outside, `${root}/dir`);
            }
          },
        };
        const error = await rejectsWithApplyError(
          applyOperations(root, [write("a.txt", "changed\n"), write("dir/target.txt", "x\n")], {
            fs,
          }),
        );
        assert.equal(error.path, "dir/target.txt");
        assert.match(error.message, /"dir" was swapped for a symbolic link/);
        assert.equal(await Deno.readTextFile(`${outside}/target.txt`), "outside\n");
        assert.equal(await Deno.readTextFile(`${root}/a.txt`), "a\n");
        // The temporary file went away with the moved folder, and the link
        // never came back: the applier says where it was.
        assert.equal(error.notRestored.length, 1);
        assert.match(error.notRestored[0], /^dir\/\.target\.txt\.code-commit-[0-9a-f]+\.tmp$/);
        assert.match(error.message, /Rolling back failed for 1 path,/);
        assert.match(error.message, /out of reach/);
        assert.deepEqual(await snapshot(outside), {
          "target.txt": { type: "file", mode: 0o644, data: "111,117,116,115,105,100,101,10" },
        });
      },
    );
  }
});

Deno.test("applyOperations: a temporary file made through a folder just swapped for a link is removed where it landed, before a byte is written", async () => {
  await using outsideProject = await tempProject({ "target.txt": "outside\n" });
  const outside = outsideProject.root;
  {
    await withProject(
      { "a.txt": { content: "a\n" }, "dir/b.txt": { content: "b\n" } },
      async (root) => {
        const { fs: spy } = spyingFs();
        const written: string[] = [];
        // Right before the temporary file is created, "dir" becomes a link out of the project.
        const fs: ApplyFileSystem = {
          ...spy,
          writeNewFile: async (path, data, mode, onCreated) => {
            if (path.startsWith(`${root}/dir/.target.txt.`)) {
              await Deno.rename(`${root}/dir`, `${root}/dir-moved`);
              await Deno.symlink(outside, `${root}/dir`);
            }
            await spy.writeNewFile(path, data, mode, async (identity) => {
              written.push(...[...Deno.readDirSync(outside)].map((entry) => entry.name));
              await onCreated?.(identity);
            });
          },
        };
        const error = await rejectsWithApplyError(
          applyOperations(root, [write("a.txt", "changed\n"), write("dir/target.txt", "x\n")], {
            fs,
          }),
        );
        assert.equal(error.path, "dir/target.txt");
        assert.match(error.message, /"dir" was swapped for a symbolic link/);
        assert.match(error.message, /Every change already made by this reply was rolled back/);
        assert.deepEqual(error.notRestored, []);
        // It did land outside, empty, and is gone from there.
        assert.ok(
          written.some((name) => /^\.target\.txt\.code-commit-[0-9a-f]{16}\.tmp$/.test(name)),
        );
        assert.deepEqual(await snapshot(outside), {
          "target.txt": { type: "file", mode: 0o644, data: "111,117,116,115,105,100,101,10" },
        });
        assert.equal(await Deno.readTextFile(`${root}/a.txt`), "a\n");
        assert.deepEqual(await leftoverTemporaries(root), []);
      },
    );
  }
});

// ---------------------------------------------------------------------------
// All or nothing

/** The project the transactional tests start from. */
const PROJECT: Files = {
  "README.md": { content: "# Project\n" },
  "scripts/run.sh": { content: "#!/bin/sh\necho run\n", mode: 0o755 },
  "src/main.ts": { content: "console.log('main');\n" },
  "src/old.ts": { content: "export const old = 1;\n", mode: 0o600 },
  "src/legacy/util.ts": { content: "export const util = 2;\n", mode: 0o640 },
  "src/secret.txt": { content: "private\n", mode: 0o600 },
  "docs/guide.md": { content: "guide\n" },
};

/** A reply of creates in new nested folders, replaces and deletes. */
const REPLY: readonly FileOperation[] = [
  write("src/features/auth/login.ts", "export function login() {}\n"),
  write("scripts/run.sh", "#!/bin/sh\necho changed\n"),
  del("src/old.ts"),
  write("new/deep/nested/file.txt", "deep\n"),
  write("src/main.ts", "console.log('changed');\n"),
  del("src/legacy/util.ts"),
  write("src/features/auth/empty.ts", ""),
  write("src/secret.txt", "still private\n"),
  del("never/existed.ts"),
];

/**
 * Whether the file system call on `callPath` (absolute) belongs to the
 * operation on `path`: the path itself, its temporary file, or a folder on
 * its way (the root is on every way).
 */
function belongsTo(root: string, callPath: string, path: string): boolean {
  const relative = callPath === root ? "" : callPath.slice(root.length + 1);
  if (relative === path || relative === "") return true;
  const slash = path.lastIndexOf("/");
  const folder = slash < 0 ? "" : path.slice(0, slash);
  const name = path.slice(slash + 1);
  if (relative.startsWith(`${folder === "" ? "" : `${folder}/`}.${name}.code-commit-`)) return true;
  return path.startsWith(`${relative}/`);
}

/** Counts the mutating (or reading) calls a successful apply of `operations` makes. */
async function countCalls(
  operations: readonly FileOperation[],
  mutating: boolean,
): Promise<number> {
  return await withProject(PROJECT, async (root) => {
    const { fs, calls } = spyingFs();
    await applyOperations(root, operations, { fs });
    return calls.filter((call) => call.mutating === mutating).length;
  });
}

Deno.test("applyOperations: the mixed reply applies fully when nothing fails", async () => {
  await withProject(PROJECT, async (root) => {
    const result = await applyOperations(root, REPLY);
    assert.deepEqual(result.changes, [
      { path: "src/features/auth/login.ts", kind: "created" },
      { path: "scripts/run.sh", kind: "replaced" },
      { path: "src/old.ts", kind: "deleted" },
      { path: "new/deep/nested/file.txt", kind: "created" },
      { path: "src/main.ts", kind: "replaced" },
      { path: "src/legacy/util.ts", kind: "deleted" },
      { path: "src/features/auth/empty.ts", kind: "created" },
      { path: "src/secret.txt", kind: "replaced" },
    ]);
    assert.deepEqual(result.warnings, [
      `"never/existed.ts" was to be deleted but does not exist; nothing to delete`,
    ]);
    const after = await snapshot(root);
    assert.equal(after["scripts/run.sh"].mode, 0o755);
    assert.equal(after["src/secret.txt"].mode, 0o600);
    assert.equal(after["src/legacy"].type, "folder"); // emptied folders stay
    assert.equal(after["new/deep/nested"].type, "folder");
    assert.equal(after["src/old.ts"], undefined);
    assert.deepEqual(await leftoverTemporaries(root), []);
  });
});

for (const mutating of [true, false]) {
  const kind = mutating ? "mutating" : "reading";
  Deno.test(`applyOperations: a failure at any ${kind} call leaves the tree exactly as before`, async () => {
    const total = await countCalls(REPLY, mutating);
    assert.ok(total >= (mutating ? 19 : 30), `only ${total} ${kind} calls`);
    for (let k = 1; k <= total; k++) {
      await withProject(PROJECT, async (root) => {
        const before = await snapshot(root);
        const { fs, calls } = spyingFs((call) => call.mutating === mutating && call.index === k);
        const error = await rejectsWithApplyError(applyOperations(root, REPLY, { fs }));
        const failed = calls.find((call) => call.mutating === mutating && call.index === k);
        const context = `failure at ${kind} call ${k} (${failed?.method} ${failed?.path})`;

        assert.deepEqual(await snapshot(root), before, context);
        assert.deepEqual(await leftoverTemporaries(root), [], context);
        assert.ok(
          failed !== undefined && belongsTo(root, failed.path, error.path),
          `${context}: the error names ${error.path}`,
        );
        assert.ok(REPLY.some((operation) => operation.path === error.path), context);
        assert.deepEqual(error.notRestored, [], context);
        assert.ok(error.message.includes(`"${error.path}"`), context);
        assert.match(error.message, /injected failure/, context);
        assert.match(error.message, /Every change already made by this reply was rolled back/);
      });
    }
  });
}

Deno.test("applyOperations: a failed undo step is reported with exactly the paths left behind", async () => {
  await withProject(PROJECT, async (root) => {
    let forwardDone = false;
    const { fs } = spyingFs((call) => {
      // Forward: the rename of src/main.ts fails. Undo: removing the created
      // new/deep/nested/file.txt and restoring scripts/run.sh fail too.
      if (call.method === "rename" && call.path === `${root}/src/main.ts` && !forwardDone) {
        forwardDone = true;
        return true;
      }
      if (!forwardDone) return false;
      return (call.method === "remove" && call.path === `${root}/new/deep/nested/file.txt`) ||
        (call.method === "writeNewFile" && call.path.startsWith(`${root}/scripts/.run.sh.`));
    });
    const error = await rejectsWithApplyError(applyOperations(root, REPLY, { fs }));
    assert.equal(error.path, "src/main.ts");
    assert.deepEqual(error.notRestored, [
      "new/deep/nested/file.txt",
      "scripts/run.sh",
      "new/deep/nested/",
      "new/deep/",
      "new/",
    ]);
    assert.match(error.message, /^could not write "src\/main\.ts": renaming/);
    assert.match(error.message, /Rolling back failed for 5 paths,/);
    assert.match(
      error.message,
      /"scripts\/run\.sh" \(writing the temporary file "scripts\/\.run\.sh\.code-commit-[0-9a-f]+\.tmp" failed: injected failure/,
    );
    assert.match(error.message, /restore them by hand/);
    // Everything else is back.
    await using reference = await tempProject(PROJECT);
    {
      const before = await snapshot(reference.root);
      const after = await snapshot(root);
      const changed = Object.keys(after).filter((path) =>
        JSON.stringify(after[path]) !== JSON.stringify(before[path])
      );
      assert.deepEqual(changed, [
        "new",
        "new/deep",
        "new/deep/nested",
        "new/deep/nested/file.txt",
        "scripts/run.sh",
      ]);
      assert.deepEqual(Object.keys(before).filter((path) => !(path in after)), []);
      assert.equal(await Deno.readTextFile(`${root}/scripts/run.sh`), "#!/bin/sh\necho changed\n");
      assert.deepEqual(await leftoverTemporaries(root), []);
    }
  });
});

Deno.test("applyOperations: a real failure (file name over 255 bytes) mid-reply rolls back everything", async () => {
  const tooLong = `src/${"x".repeat(300)}.ts`;
  const reply = [...REPLY.slice(0, 6), write(tooLong, "never\n"), ...REPLY.slice(6)];
  await withProject(PROJECT, async (root) => {
    const before = await snapshot(root);
    const error = await rejectsWithApplyError(applyOperations(root, reply));
    assert.equal(error.path, tooLong);
    assert.ok(error.message.startsWith(`could not write "${tooLong}": `));
    assert.match(error.message, /too long|os error 36|ENAMETOOLONG/i);
    assert.match(error.message, /Every change already made by this reply was rolled back/);
    assert.deepEqual(error.notRestored, []);
    assert.deepEqual(await snapshot(root), before);
    assert.deepEqual(await leftoverTemporaries(root), []);
  });
});
