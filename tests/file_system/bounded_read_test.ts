/**
 * Tests of the one bounded read, on real files: fifos made with `mkfifo`,
 * links to `/dev/zero` and to `/proc` files, hard links, and the file
 * swapped between the check and the open (through the `beforeOpen` hook).
 * The open that never returns, and Deno's permissions as code-commit runs
 * with them, are tested in a child process (`read_in_child.ts`).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CodeCommitError, EXIT } from "../../lib/errors/errors.ts";
import {
  FileReadError,
  readBounded,
  type ReadBoundedOptions,
  type ReadProblem,
} from "../../lib/file_system/bounded_read.ts";
import { mkfifo } from "./helpers.ts";
import { withProject } from "../support/project.ts";
import { REPOSITORY, toolModules } from "../support/imports.ts";

const LIMIT = { bytes: 16, what: "a test file" };
const follow: ReadBoundedOptions = { limit: LIMIT, followSymlink: true };
const noFollow: ReadBoundedOptions = { limit: LIMIT, followSymlink: false };
const text = (bytes: Uint8Array | undefined) => bytes && new TextDecoder().decode(bytes);

/** Asserts that `promise` rejects with a FileReadError of `problem` whose one-line message matches `message`. */
async function refuses(
  promise: Promise<unknown>,
  problem: ReadProblem,
  message: RegExp,
): Promise<FileReadError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof FileReadError, `expected a FileReadError, got ${caught}`);
  assert.ok(caught instanceof CodeCommitError);
  assert.equal(caught.exitCode, EXIT.setup);
  assert.equal(caught.problem, problem, caught.message);
  assert.match(caught.message, message);
  assert.ok(!caught.message.includes("\n"), "one line");
  return caught;
}

Deno.test("readBounded reads a regular file whole, up to exactly the limit", async () => {
  await withProject({}, async (dir) => {
    await Deno.writeTextFile(join(dir, "a"), "hello\n");
    await Deno.writeTextFile(join(dir, "empty"), "");
    await Deno.writeTextFile(join(dir, "full"), "x".repeat(16));
    assert.equal(text(await readBounded(join(dir, "a"), noFollow)), "hello\n");
    assert.equal(text(await readBounded(join(dir, "empty"), noFollow)), "");
    assert.equal(text(await readBounded(join(dir, "full"), follow)), "x".repeat(16));
  });
});

Deno.test("readBounded: undefined when nothing is there", async () => {
  await withProject({}, async (dir) => {
    await Deno.writeTextFile(join(dir, "file"), "");
    await Deno.symlink("nowhere", join(dir, "dangling"));
    assert.equal(await readBounded(join(dir, "missing"), noFollow), undefined);
    assert.equal(await readBounded(join(dir, "file/below"), follow), undefined);
    assert.equal(await readBounded(join(dir, "dangling"), follow), undefined);
  });
});

Deno.test("readBounded: one byte over the limit is refused unread, naming the file", async () => {
  await withProject({}, async (dir) => {
    await Deno.writeTextFile(join(dir, "big"), "x".repeat(17));
    const error = await refuses(
      readBounded(join(dir, "big"), { ...noFollow, name: "agent-config/big.txt" }),
      "too-large",
      /^agent-config\/big\.txt is 17 bytes, more than the 16 bytes code-commit reads from a test file: /,
    );
    assert.equal(error.size, 17);
    assert.equal(error.path, "agent-config/big.txt");
  });
});

Deno.test("readBounded: a fifo is refused before it is opened (an open would wait forever)", async () => {
  await withProject({}, async (dir) => {
    await mkfifo(join(dir, "pipe"));
    await Deno.symlink("pipe", join(dir, "link"));
    for (const options of [noFollow, follow]) {
      await refuses(
        readBounded(join(dir, "pipe"), { ...options, name: "pipe" }),
        "special",
        /^pipe is a fifo \(named pipe\); code-commit reads a test file only from a regular file: /,
      );
    }
    await refuses(
      readBounded(join(dir, "link"), { ...follow, name: "link" }),
      "special",
      /^link leads to a fifo \(named pipe\) \(through a symbolic link\); /,
    );
  });
});

Deno.test("readBounded: a link to /dev/zero is refused as a device when followed, as a link when not", async () => {
  await withProject({}, async (dir) => {
    await Deno.symlink("/dev/zero", join(dir, "zero"));
    await refuses(
      readBounded(join(dir, "zero"), { ...follow, name: ".git/index" }),
      "special",
      /^\.git\/index leads to a character device \(through a symbolic link\)/,
    );
    await refuses(
      readBounded(join(dir, "zero"), { ...noFollow, name: "src/a.ts" }),
      "symlink",
      /^src\/a\.ts is a symbolic link; code-commit reads a test file only from a regular file, never through a link/,
    );
  });
});

Deno.test("readBounded: a link is followed to a regular file when asked", async () => {
  await withProject({}, async (dir) => {
    await Deno.writeTextFile(join(dir, "target"), "key");
    await Deno.symlink("target", join(dir, "link"));
    assert.equal(text(await readBounded(join(dir, "link"), follow)), "key");
  });
});

Deno.test("readBounded: a folder is refused", async () => {
  await withProject({}, async (dir) => {
    await Deno.mkdir(join(dir, "folder"));
    await Deno.symlink("folder", join(dir, "link"));
    await refuses(
      readBounded(join(dir, "folder"), { ...follow, name: "f" }),
      "folder",
      /^f is a folder;/,
    );
    await refuses(
      readBounded(join(dir, "link"), { ...follow, name: "l" }),
      "folder",
      /^l leads to a folder \(through a symbolic link\);/,
    );
  });
});

Deno.test("readBounded: a file with more than one hard link is refused where asked", async () => {
  await withProject({}, async (dir) => {
    await Deno.writeTextFile(join(dir, "a"), "shared");
    await Deno.link(join(dir, "a"), join(dir, "b"));
    assert.equal(text(await readBounded(join(dir, "a"), noFollow)), "shared");
    await refuses(
      readBounded(join(dir, "a"), { ...noFollow, refuseHardLinks: true, name: "src/a" }),
      "hard-link",
      /^src\/a has 2 hard links, so the same file has another name that may be outside the project; /,
    );
    await Deno.remove(join(dir, "b"));
    assert.equal(
      text(await readBounded(join(dir, "a"), { ...noFollow, refuseHardLinks: true })),
      "shared",
    );
  });
});

// The file swapped between the check and the open: the opened file is checked again.

Deno.test("readBounded: another regular file swapped in after the check is refused", async () => {
  await withProject({}, async (dir) => {
    await Deno.writeTextFile(join(dir, "a"), "checked");
    await Deno.writeTextFile(join(dir, "other"), "swapped");
    await refuses(
      readBounded(join(dir, "a"), {
        ...noFollow,
        name: "a",
        beforeOpen: () => Deno.rename(join(dir, "other"), join(dir, "a")),
      }),
      "changed",
      /^a changed while code-commit was opening it/,
    );
  });
});

Deno.test("readBounded: a link to /dev/zero swapped in after the check is refused, nothing read", async () => {
  await withProject({}, async (dir) => {
    await Deno.writeTextFile(join(dir, "a"), "checked");
    for (const options of [noFollow, follow]) {
      await refuses(
        readBounded(join(dir, "a"), {
          ...options,
          beforeOpen: async () => {
            await Deno.remove(join(dir, "a"));
            await Deno.symlink("/dev/zero", join(dir, "a"));
          },
        }),
        "changed",
        /changed while code-commit was opening it/,
      );
      await Deno.remove(join(dir, "a"));
      await Deno.writeTextFile(join(dir, "a"), "checked");
    }
  });
});

Deno.test("readBounded: a fifo swapped in after the check, with a writer, is refused once opened", async () => {
  await withProject({}, async (dir) => {
    await Deno.writeTextFile(join(dir, "a"), "checked");
    let writer: Promise<void> | undefined;
    await refuses(
      readBounded(join(dir, "a"), {
        ...noFollow,
        beforeOpen: async () => {
          await Deno.remove(join(dir, "a"));
          await mkfifo(join(dir, "a"));
          // A writer waiting on the fifo lets the open go through at once; it
          // writes and closes, so a read that went ahead would end, not hang.
          writer = Deno.open(join(dir, "a"), { write: true }).then(async (file) => {
            await file.write(new TextEncoder().encode("from the fifo")).catch(() => 0);
            file.close();
          });
        },
      }),
      "changed",
      /changed while code-commit was opening it/,
    );
    await writer;
  });
});

// In a child process: the open that never returns, and code-commit's own permissions.

const CHILD = fileURLToPath(new URL("./read_in_child.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

/**
 * Runs `read_in_child.ts` with `request`, with read and write access to
 * `readable` only, or to everything (Deno lets only such a process read `/proc`).
 */
async function readInChild(
  readable: string | "all",
  request: Record<string, unknown>,
): Promise<{ code: number; outcome: { text?: string; problem?: string; message?: string } }> {
  const permissions = readable === "all"
    ? ["--allow-all"]
    : [`--allow-read=${readable},${CHILD}`, `--allow-write=${readable}`];
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--cached-only",
      "--config",
      CONFIG,
      "--no-prompt",
      ...permissions,
      CHILD,
      JSON.stringify(request),
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // A stuck child must fail the test, not hang the suite.
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  try {
    const output = await child.output();
    const stdout = new TextDecoder().decode(output.stdout);
    const stderr = new TextDecoder().decode(output.stderr);
    assert.notEqual(output.signal, "SIGKILL", `the child hung: ${stdout}${stderr}`);
    assert.equal(stdout.trim().split("\n").length, 1, stdout + stderr);
    return { code: output.code, outcome: JSON.parse(stdout) };
  } finally {
    clearTimeout(guard);
  }
}

Deno.test("readBounded: a fifo swapped in after the check ends the read at the timer, and the process still exits", async () => {
  await withProject({}, async (dir) => {
    await Deno.writeTextFile(join(dir, "a"), "checked");
    await mkfifo(join(dir, "fifo"));
    const { code, outcome } = await readInChild(dir, {
      path: join(dir, "a"),
      follow: false,
      timeoutMs: 200,
      swap: { from: join(dir, "fifo"), to: join(dir, "a") },
    });
    assert.equal(code, 1);
    assert.equal(outcome.problem, "open-timeout");
    assert.match(
      outcome.message!,
      /a did not open within 0\.2 s, as a fifo does not until something writes to it/,
    );
  });
});

Deno.test("readBounded follows a link out of the folder Deno may read (a key kept elsewhere), and checks its target", async () => {
  await withProject({}, async (dir) => {
    const project = join(dir, "project");
    const outside = join(dir, "outside");
    await Deno.mkdir(project);
    await Deno.mkdir(outside);
    await Deno.writeTextFile(join(outside, "key"), "the key");
    await Deno.writeTextFile(join(outside, "other"), "the kez"); // the same size
    await Deno.symlink(join(outside, "key"), join(project, "key"));
    await Deno.symlink(outside, join(project, "dir"));
    const read = (path: string, swap?: Record<string, unknown>, follow = true) =>
      readInChild(project, { path: join(project, path), follow, timeoutMs: 1_000, swap });

    assert.deepEqual(await read("key"), { code: 0, outcome: { text: "the key" } });
    assert.deepEqual(await read("dir/key"), { code: 0, outcome: { text: "the key" } });
    // Where links are not followed, a file that turns out to be outside is refused.
    assert.equal((await read("dir/key", undefined, false)).outcome.problem, "changed");
    // The link swapped after the check: for one to /dev/zero, to another file, to a fifo.
    await mkfifo(join(project, "fifo"));
    const swaps = [
      ["/dev/zero", "changed"],
      [join(outside, "other"), "changed"],
      [join(project, "fifo"), "open-timeout"],
    ] as const;
    for (const [target, problem] of swaps) {
      await Deno.symlink(target, join(project, "replacement"));
      const swap = { from: join(project, "replacement"), to: join(project, "key") };
      const { code, outcome } = await read("key", swap);
      assert.equal(code, 1, JSON.stringify(outcome));
      assert.equal(outcome.problem, problem, `${target}: ${outcome.message}`);
      await Deno.remove(join(project, "key"));
      await Deno.symlink(join(outside, "key"), join(project, "key"));
    }
  });
});

Deno.test("readBounded never reads more than the limit plus one byte, whatever size the file claims", async () => {
  // /proc files are regular files that claim a size of 0 and hold more.
  await withProject({}, async (dir) => {
    await Deno.symlink("/proc/self/status", join(dir, "status"));
    const request = { path: join(dir, "status"), follow: true, timeoutMs: 5_000 };
    const small = await readInChild("all", { ...request, limit: 16 });
    assert.equal(small.code, 1);
    assert.equal(small.outcome.problem, "too-large");
    assert.match(
      small.outcome.message!,
      /status grew past the 16 bytes code-commit reads from a test file while it was read$/,
    );
    const whole = await readInChild("all", { ...request, limit: 1024 * 1024 });
    assert.equal(whole.code, 0);
    assert.match(whole.outcome.text!, /^Name:/);
  });
});

Deno.test("no module of the tool reads a file but through the one bounded read", async () => {
  const modules = await toolModules();
  assert(modules.length > 50, `only ${modules.length} modules found`);
  // Any call that opens or reads a file by name (writes go through write_atomically.ts).
  const direct =
    /\bDeno\.(?:readFile|readTextFile|open)(?:Sync)?\s*\(|\b(?:from\s+|import\(\s*)"node:fs(?:\/promises)?"/;
  const reads =
    /\bDeno\.(?:readFile|readTextFile)(?:Sync)?\s*\(|\b(?:from\s+|import\(\s*)"node:fs(?:\/promises)?"/;
  /** Modules that open files to write or sync them (never to read one), and why. */
  const writers = new Map([
    [
      "lib/file_system/file_system.ts",
      "the exclusive create of the file-system interface keeps the new file open to check " +
      "where it landed before writing to it",
    ],
    [
      "lib/project_lock/project_lock.ts",
      "the project lock opens its lock file to hold the system's lock on it (flock needs an " +
      "open file) and reads who holds it through that same handle, in agent-config/, which no " +
      "build can see",
    ],
    [
      "lib/project_lock/running_build.ts",
      "the record of a running build is written to a new file and renamed into place (it is " +
      "read through the bounded read)",
    ],
    [
      "lib/file_system/write_atomically.ts",
      "the atomic write flushes a file and its folder when asked (fsync needs one open), and " +
      "streams the apply journal's copies to their temporary file",
    ],
  ]);
  // What a writer may take from node:fs: a descriptor's identity and mode, never a read
  // (file_system.ts sets a new file's mode through a descriptor: Deno's FsFile has no chmod; it
  // loads node:fs only then, so no ordinary run starts Deno's Node layer).
  const nodeNames = new Set(["closeSync", "constants", "fchmodSync", "fstatSync", "openSync"]);
  const harmlessImport = (line: string) => {
    const names =
      /^(?:import \{([^}]*)\} from "node:fs"|const \{([^}]*)\} = await import\("node:fs"\));$/
        .exec(line.trim())?.slice(1).find((group) => group !== undefined);
    return names !== undefined && names.split(",").every((name) => nodeNames.has(name.trim()));
  };
  const found: string[] = [];
  for (const module of modules) {
    if (module === "lib/file_system/bounded_read.ts") continue;
    const pattern = writers.has(module) ? reads : direct;
    const source = await Deno.readTextFile(join(REPOSITORY, module));
    source.split("\n").forEach((line, index) => {
      if (!pattern.test(line) || (writers.has(module) && harmlessImport(line))) return;
      found.push(`${module}:${index + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, [], `\n${found.join("\n")}`);
});
