import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ParallelReadOptions, RollupReads } from "../../lib/rollup/parallel_reads.ts";
import { readerWorkerUrl } from "../../lib/rollup/reader_loader.ts";
import { readRollupFilesHere, type RollupFileOutcome } from "../../lib/rollup/rollup_file.ts";
import { READ_WORKER_SOURCE } from "../../lib/rollup/read_worker_source.ts";
import { mkfifo } from "../file_system/helpers.ts";
import { runDenoScript } from "../support/child.ts";
import { withProject } from "../support/project.ts";

const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Reads `paths` with a `RollupReads`, added `piece` paths at a time (all at once by default). */
async function readRollupFiles(
  root: string,
  paths: readonly string[],
  options: ParallelReadOptions,
  piece = paths.length,
): Promise<RollupFileOutcome[]> {
  const reads = new RollupReads(root, options);
  try {
    for (let start = 0; start < paths.length; start += piece) {
      reads.add(paths.slice(start, start + piece));
      // As the walk does between its listings: the worker's answers come in meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    assert.deepEqual(reads.paths, paths);
    return await reads.finish();
  } finally {
    reads.close();
  }
}

/**
 * A project with every outcome a rollup read has, among 1,300 plain files:
 * more than two chunks, so both threads read some of each kind.
 */
async function withEveryKind(
  fn: (root: string, paths: string[]) => Promise<void>,
): Promise<void> {
  const files: Record<string, string | Uint8Array> = {};
  for (let i = 0; i < 1_300; i++) files[`src/m${i % 13}/f${i}.ts`] = `export const v${i} = ${i};\n`;
  files["odd/binary.bin"] = new Uint8Array([0x61, 0x00, 0x62]);
  files["odd/latin1.txt"] = new Uint8Array([0x63, 0x61, 0x66, 0xe9]);
  files["odd/big.txt"] = "x".repeat(1024 * 1024 + 1);
  files["odd/twin-a.txt"] = "twin\n";
  await withProject(files, async (root) => {
    await Deno.symlink("twin-a.txt", join(root, "odd/link.txt"));
    await Deno.link(join(root, "odd/twin-a.txt"), join(root, "odd/twin-b.txt"));
    await Deno.mkdir(join(root, "odd/folder"));
    await mkfifo(join(root, "odd/pipe"));
    const odd = [
      "odd/binary.bin",
      "odd/latin1.txt",
      "odd/big.txt",
      "odd/link.txt",
      "odd/twin-a.txt",
      "odd/folder",
      "odd/pipe",
      "odd/gone.txt",
    ];
    // The odd ones spread over the chunks (one every 180 paths).
    const paths = Object.keys(files).filter((path) => path.startsWith("src/"));
    odd.forEach((path, index) => paths.splice(index * 180, 0, path));
    await fn(root, paths);
  });
}

/** The bundled reader, as the tool starts it (through its loader), with `wrap` to break it. */
function bundledWorker(wrap: (source: string) => string = (source) => source): () => Worker {
  return () => new Worker(readerWorkerUrl(wrap(READ_WORKER_SOURCE)), { type: "module" });
}

/** How the worker fails, and what the read must still give: every outcome, in order. */
const BROKEN_WORKERS: ReadonlyArray<{ name: string; start: () => Worker }> = [
  {
    name: "a worker that cannot be started",
    start: () => {
      throw new Error("no worker here");
    },
  },
  {
    name: "a worker whose script throws as it loads",
    start: bundledWorker(() => "throw new Error('broken reader');"),
  },
  {
    // No loader to catch it: the error reaches the main thread's handler, which must keep it
    // from becoming the run's uncaught error. (Deno itself prints it on standard error, which
    // the test output shows: keeping it off is the loader's work, tested in reader_loader_test.)
    name: "a worker started without the loader, whose script throws as it loads",
    start: () =>
      new Worker(`data:text/javascript,${encodeURIComponent("throw new Error('no loader');")}`, {
        type: "module",
      }),
  },
  {
    name: "a worker whose script does not parse",
    start: bundledWorker(() => "this is ((( not a script"),
  },
  {
    name: "a worker that throws on its second chunk (unheard of: it is stopped when it is late)",
    start: bundledWorker((source) =>
      `let asked = 0;
       const real = (event) => { if (++asked === 2) throw new Error("second chunk"); };
       ${source}
       const theirs = self.onmessage;
       self.onmessage = (event) => { real(event); theirs(event); };`
    ),
  },
  {
    name: "a worker that answers with one outcome too few",
    start: bundledWorker((source) =>
      `const post = self.postMessage.bind(self);
       self.postMessage = (answer) => post({ ...answer, outcomes: answer.outcomes.slice(1) });
       ${source}`
    ),
  },
  {
    name: "a worker that never answers",
    start: bundledWorker(() => "self.onmessage = () => {};"),
  },
];

Deno.test("two threads read every kind of file exactly as one thread does, in path order", async () => {
  await withEveryKind(async (root, paths) => {
    const alone = await readRollupFilesHere(root, paths);
    const kinds = new Set(
      alone.map((outcome) => typeof outcome === "string" ? "text" : outcome.kind),
    );
    assert.deepEqual(
      [...kinds].sort(),
      [
        "binary",
        "hard-link",
        "missing",
        "not-utf8",
        "special",
        "symbolic-link",
        "text",
        "too-large",
      ],
    );
    const reads = new RollupReads(root, { parallel: true, startWorker: bundledWorker() });
    try {
      reads.add(paths);
      assert.deepEqual(await reads.finish(), alone);
      assert.ok(reads.workerChunks >= 1, "the worker answered no chunk the reads took");
    } finally {
      reads.close();
    }
    assert.deepEqual(await readRollupFiles(root, paths, { parallel: false }), alone);
  });
});

Deno.test("paths added a few at a time, as the walk lists them, are read as when added at once", async () => {
  await withEveryKind(async (root, paths) => {
    const alone = await readRollupFilesHere(root, paths);
    for (const piece of [7, 37, 499, 501]) {
      const options = { parallel: true, startWorker: bundledWorker() };
      assert.deepEqual(await readRollupFiles(root, paths, options, piece), alone, `by ${piece}`);
    }
    // A worker that fails while paths are still being added hands its chunks back.
    const broken = BROKEN_WORKERS.find(({ name }) => name.includes("second chunk"))!;
    assert.deepEqual(
      await readRollupFiles(
        root,
        paths,
        { parallel: true, startWorker: broken.start, patienceMs: 300 },
        300,
      ),
      alone,
    );
  });
});

Deno.test("a RollupReads closed before it finished stops its worker, and the process can end", async () => {
  await withEveryKind(async (root, paths) => {
    let terminated = false;
    const start = () => {
      const worker = bundledWorker()();
      const terminate = worker.terminate.bind(worker);
      worker.terminate = () => {
        terminated = true;
        terminate();
      };
      return worker;
    };
    const reads = new RollupReads(root, { parallel: true, startWorker: start });
    reads.add(paths.slice(0, 1_000)); // the walk failed here: finish is never called
    reads.close();
    assert.ok(terminated, "the worker was stopped");
    await new Promise((resolve) => setTimeout(resolve, 200)); // an answer on its way, if any
    assert.equal(reads.workerChunks, 0, "no answer is taken after close");
  });
});

for (const { name, start } of BROKEN_WORKERS) {
  Deno.test(`${name}: the main thread reads its chunks, and nothing is lost`, async () => {
    await withEveryKind(async (root, paths) => {
      const alone = await readRollupFilesHere(root, paths);
      assert.deepEqual(
        await readRollupFiles(root, paths, { parallel: true, startWorker: start, patienceMs: 300 }),
        alone,
      );
    });
  });
}

Deno.test("RollupReads: no path after finish, one finish, and no worker started once closed", async () => {
  await withEveryKind(async (root, paths) => {
    let started = 0;
    let stopped = 0;
    const start = () => {
      started++;
      const worker = bundledWorker()();
      const terminate = worker.terminate.bind(worker);
      worker.terminate = () => {
        stopped++;
        terminate();
      };
      return worker;
    };
    const reads = new RollupReads(root, { parallel: true, startWorker: start });
    reads.add(paths);
    await reads.finish();
    assert.ok(stopped >= 1, "finish stops the worker: nothing keeps the process alive");
    assert.throws(() => reads.add(["a.ts"]), RangeError);
    await assert.rejects(() => reads.finish(), RangeError);
    reads.close();

    const closed = new RollupReads(root, { startWorker: start });
    closed.add(paths.slice(0, 1_000)); // not yet worth a worker
    closed.close();
    closed.add(paths.slice(1_000)); // would be, but the reads are closed
    assert.equal(started, 1, "no worker is started after close");
    assert.deepEqual(await closed.finish(), await readRollupFilesHere(root, paths));
  });
});

Deno.test("the bundled reader answers a request it cannot read with its id alone, and prints nothing", async () => {
  const worker = bundledWorker()();
  try {
    const answer = await new Promise((resolve) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.postMessage({ id: 7, root: "/", paths: null });
    });
    assert.deepEqual(answer, { id: 7 });
  } finally {
    worker.terminate();
  }
});

/** Runs scripts/bundle_read_worker.ts --check of the tool at `root`: its exit code and what it said. */
async function checkBundle(root: string): Promise<{ code: number; stderr: string }> {
  const checked = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-run",
      "--config",
      join(root, "deno.json"),
      join(root, "scripts/bundle_read_worker.ts"),
      "--check",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: checked.code, stderr: new TextDecoder().decode(checked.stderr) };
}

Deno.test("the bundled reader is what scripts/bundle_read_worker.ts makes of the code today", async () => {
  // Under the Deno that made it, the bytes are compared; under another Deno (bundles differ
  // from one to another), the modules it is made from.
  const checked = await checkBundle(TOOL_ROOT);
  assert.equal(checked.code, 0, checked.stderr);
  const file = await Deno.readTextFile(`${TOOL_ROOT}lib/rollup/read_worker_source.ts`);
  assert.match(file, /^\/\/ Bundled by Deno \S+\.$/m, "the file says which Deno bundled it");
  assert.match(file, /^\/\/ Made from modules whose SHA-256 is [0-9a-f]{64}\.$/m);
  assert.doesNotMatch(READ_WORKER_SOURCE, /^\s*import\b|\bimport\s*\(/m, "it imports nothing");
});

Deno.test("a bundle made by another Deno is stale once a module it is made from changes", async () => {
  // A copy of the tool whose bundle says another Deno made it.
  const copy = await Deno.makeTempDir({ prefix: "code-commit-bundle-" });
  try {
    const copied = await new Deno.Command("cp", {
      args: ["-R", "lib", "scripts", "deno.json", "deno.lock", copy],
      cwd: TOOL_ROOT,
    }).output();
    assert.ok(copied.success);
    const target = join(copy, "lib/rollup/read_worker_source.ts");
    const bundle = await Deno.readTextFile(target);
    await Deno.writeTextFile(
      target,
      bundle.replace(/^\/\/ Bundled by Deno \S+\.$/m, "// Bundled by Deno 0.0.0-other."),
    );
    const unchanged = await checkBundle(copy);
    assert.equal(unchanged.code, 0, unchanged.stderr);
    assert.match(unchanged.stderr, /bundled by Deno 0\.0\.0-other, .*its modules are unchanged/);
    // A read limit changed, and the bundle not made again.
    const limits = join(copy, "lib/file_system/read_limits.ts");
    const text = await Deno.readTextFile(limits);
    assert.match(text, /projectFile: \{ bytes: 1 \* MiB/);
    await Deno.writeTextFile(
      limits,
      text.replace(/projectFile: \{ bytes: 1 \* MiB/, "projectFile: { bytes: 512 * KiB"),
    );
    const changed = await checkBundle(copy);
    assert.equal(changed.code, 1, changed.stderr);
    assert.match(
      changed.stderr,
      /is not the bundle of the code it is made from: run deno task bundle-worker/,
    );
  } finally {
    await Deno.remove(copy, { recursive: true });
  }
});

Deno.test("the worker has the run's permissions: with --allow-read=. it reads the project, and nothing outside", async () => {
  await withProject({ "in.txt": "inside\n" }, async (root) => {
    const outside = await Deno.makeTempDir({ prefix: "code-commit-outside-" });
    try {
      await Deno.writeTextFile(join(outside, "secret.txt"), "outside\n");
      // A child with the tool's read permission, started in the project, asks the bundled
      // reader for a file inside and one outside.
      const script = `
        import { READ_WORKER_SOURCE } from ${
        JSON.stringify(`${TOOL_ROOT}lib/rollup/read_worker_source.ts`)
      };
        const worker = new Worker("data:text/javascript;base64," + btoa(READ_WORKER_SOURCE), { type: "module" });
        const answers = [];
        worker.onmessage = (event) => {
          answers.push(event.data.outcomes);
          if (answers.length === 2) { console.log(JSON.stringify(answers)); worker.terminate(); }
        };
        worker.postMessage({ id: 0, root: Deno.cwd(), paths: ["in.txt"] });
        worker.postMessage({ id: 1, root: ${JSON.stringify(outside)}, paths: ["secret.txt"] });
      `;
      const output = await runDenoScript(root, ["--no-prompt", "--allow-read=."], script);
      assert.equal(output.code, 0, output.stderr);
      assert.deepEqual(JSON.parse(output.stdout), [
        ["inside\n"],
        [{ kind: "unreadable" }],
      ]);
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  });
});
