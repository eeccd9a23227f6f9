import assert from "node:assert/strict";
import { join } from "node:path";
import { trackedPaths } from "../../lib/preconditions/git_index.ts";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import { git, tempProject } from "../support/project.ts";

/** A repository with files that stress the index format: nesting, Unicode, a long name. */
async function repository(init: string[] = []): Promise<{ root: string; files: string[] }> {
  // Removed by each test.
  const { root } = await tempProject();
  await git(root, "init", "-q", ...init);
  const files = [
    "README.md",
    "agent-config/gemini-key.txt",
    "src/a.ts",
    "src/ab.ts",
    "src/abc/deep/x.ts",
    "src/über/ünïcødé.txt",
    "src/über/ünïcødé2.txt", // in index version 4: told by a suffix after a non-ASCII prefix
    `src/${"long-name-".repeat(20)}.txt`, // a 204-byte name
    // A path of about 3,800 bytes: long paths are stored whole (the name length field caps at 0xfff).
    `src/${Array.from("abcdefghijklmnopqr", (c) => c.repeat(200)).join("/")}/z.txt`,
  ];
  for (const file of files) {
    await Deno.mkdir(join(root, file, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, file), `${file}\n`);
  }
  await git(root, "add", "-A", "-f");
  return { root, files: files.sort() };
}

function sorted(paths: string[]): string[] {
  return [...paths].sort();
}

for (const version of [2, 3, 4]) {
  Deno.test(`index version ${version}: every tracked path, as git ls-files lists them`, async () => {
    const { root, files } = await repository();
    try {
      await git(root, "update-index", "--index-version", String(version));
      if (version === 3) await git(root, "update-index", "--skip-worktree", "src/a.ts"); // extended flags
      const listed = (await git(root, "ls-files", "-z")).split("\0").filter(Boolean);
      assert.deepEqual(sorted(listed), files);
      assert.deepEqual(sorted((await trackedPaths(root)).paths), files);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
}

Deno.test("a SHA-256 repository's index is read too", async () => {
  const { root, files } = await repository(["--object-format=sha256"]);
  try {
    assert.deepEqual(sorted((await trackedPaths(root)).paths), files);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("no repository, no index, or a .git file: nothing is tracked", async () => {
  await using project = await tempProject();
  const root = project.root;
  assert.deepEqual(await trackedPaths(root), { paths: [], notUtf8: new Set() });
  await git(root, "init", "-q");
  assert.deepEqual(await trackedPaths(root), { paths: [], notUtf8: new Set() });
  await Deno.remove(join(root, ".git"), { recursive: true });
  await Deno.writeTextFile(join(root, ".git"), "gitdir: /elsewhere\n");
  assert.deepEqual(await trackedPaths(root), { paths: [], notUtf8: new Set() });
});

Deno.test("a damaged index is an error that says how to repair it", async () => {
  const { root } = await repository();
  try {
    const index = await Deno.readFile(join(root, ".git/index"));
    await Deno.writeFile(join(root, ".git/index"), index.subarray(0, 100));
    await assert.rejects(trackedPaths(root), (error: unknown) => {
      assert(error instanceof CodeCommitError);
      assert.match(error.message, /\.git\/index is not a git index .*git status/);
      return true;
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/**
 * A version 4 index of SHA-1 entries, made by hand: `a.txt`, then an entry
 * whose path strips `strip` (its bytes as written) from it and adds
 * `suffix`, its name length field `length` (0xfff: 4,095 bytes or more).
 */
function version4Index(strip: number[], suffix: string, length = 5): Uint8Array {
  const encoder = new TextEncoder();
  const entry = (stripBytes: number[], name: string, length: number) => {
    // Stat data and object id of ones: read as a SHA-256 index, no entry parses.
    const fixed = new Uint8Array(40 + 20 + 2).fill(1); // stat data, object id, flags
    new DataView(fixed.buffer).setUint16(60, length);
    return [...fixed, ...stripBytes, ...encoder.encode(name), 0];
  };
  const header = new Uint8Array(12);
  header.set(encoder.encode("DIRC"));
  new DataView(header.buffer).setUint32(4, 4);
  new DataView(header.buffer).setUint32(8, 2);
  return new Uint8Array([
    ...header,
    ...entry([0], "a.txt", 5),
    ...entry(strip, suffix, length),
    ...new Uint8Array(20), // the checksum
  ]);
}

Deno.test("index version 4: a strip count past the previous path is refused, however it is written", async () => {
  await using project = await tempProject();
  const root = project.root;
  await Deno.mkdir(join(root, ".git"));
  // The hand-made index is well formed: with a fitting count it is read.
  await Deno.writeFile(join(root, ".git/index"), version4Index([0x05], "b.txt"));
  assert.deepEqual((await trackedPaths(root)).paths, ["a.txt", "b.txt"]);
  await Deno.writeFile(join(root, ".git/index"), version4Index([0x03], "xyz"));
  assert.deepEqual((await trackedPaths(root)).paths, ["a.txt", "a.xyz"]);
  for (
    const strip of [
      [0x06], // one past "a.txt"
      [0x80, 0x00], // 128: a continuation byte adds one, as git counts
      [0x86, 0xff, 0x80, 0x80, 0x00], // past 2^31: wrapped to a negative count in 32 bits
      [0x8e, 0xfe, 0xfd, 0xff, 0x00], // wrapped to -16384 in 32 bits
      [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], // past 2^64
    ]
  ) {
    // The length field of a long name: a path made longer by a bad count would match it.
    await Deno.writeFile(join(root, ".git/index"), version4Index(strip, "b.txt", 0xfff));
    await assert.rejects(trackedPaths(root), /\.git\/index is not a git index/, `${strip}`);
  }
});

Deno.test("what is not an index at all, or an empty index file, is refused", async () => {
  const { root } = await repository();
  try {
    for (const bytes of [new TextEncoder().encode("not an index at all"), new Uint8Array(0)]) {
      await Deno.writeFile(join(root, ".git/index"), bytes);
      await assert.rejects(trackedPaths(root), /\.git\/index is not a git index/);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test(".git/index as a fifo, or a link to /dev/zero, is refused at once, naming it", async () => {
  const { root } = await repository();
  try {
    await Deno.remove(join(root, ".git/index"));
    const made = await new Deno.Command("mkfifo", { args: [join(root, ".git/index")] }).output();
    assert.ok(made.success);
    await assert.rejects(trackedPaths(root), (error: unknown) => {
      assert.ok(error instanceof CodeCommitError);
      assert.match(error.message, /^\.git\/index is a fifo \(named pipe\); /);
      return true;
    });
    await Deno.remove(join(root, ".git/index"));
    await Deno.symlink("/dev/zero", join(root, ".git/index"));
    await assert.rejects(
      trackedPaths(root),
      /\.git\/index leads to a character device \(through a symbolic link\)/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test(".git/index reached through a link to a regular index is read, as git reads it", async () => {
  const { root, files } = await repository();
  try {
    await Deno.rename(join(root, ".git/index"), join(root, ".git/index.real"));
    await Deno.symlink("index.real", join(root, ".git/index"));
    assert.deepEqual(sorted((await trackedPaths(root)).paths), files);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

for (const version of [2, 4]) {
  Deno.test(`index version ${version}: a name beginning with U+FEFF, names sharing part of a character, a name not in UTF-8`, async () => {
    const { root } = await tempProject();
    try {
      await git(root, "init", "-q");
      // è and é share their first byte: a version 4 entry keeps half a character of the last.
      for (const file of ["\uFEFFbom.txt", "a/è.txt", "a/é.txt", "z.txt"]) {
        await Deno.mkdir(join(root, file, ".."), { recursive: true });
        await Deno.writeTextFile(join(root, file), `${file}\n`);
      }
      // A Latin-1 name (caf\xe9.txt): not UTF-8, so only a shell can name it.
      const made = await new Deno.Command("sh", {
        args: ["-c", "printf 'x\\n' > \"$(printf 'caf\\351.txt')\""],
        cwd: root,
      }).output();
      assert.ok(made.success);
      await git(root, "add", "-A");
      await git(root, "update-index", "--index-version", String(version));
      assert.deepEqual(sorted((await trackedPaths(root)).paths), [
        "a/è.txt",
        "a/é.txt",
        "caf\uFFFD.txt",
        "z.txt",
        "\uFEFFbom.txt",
      ]);
      // Only the name that is not UTF-8 is marked so: nothing is read by its decoded path.
      assert.deepEqual((await trackedPaths(root)).notUtf8, new Set(["caf\uFFFD.txt"]));
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  });
}
