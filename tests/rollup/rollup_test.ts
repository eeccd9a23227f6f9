import assert from "node:assert/strict";
import { join } from "node:path";
import { Console } from "../../lib/console/console.ts";
import { memoryStreams } from "../support/console.ts";
import {
  describeRollup,
  filesHolding,
  loadRollup,
  makeRollup,
  writeRollup,
} from "../../lib/rollup/rollup.ts";

/** How a rollup code-commit made begins (stated apart, as docs/context.md states it). */
const ROLLUP_MARK = "code-commit --rollup:";
import { fileBlock } from "../../lib/project_files/file_block.ts";
import { compareCodePoints } from "../../lib/project_files/order.ts";
import { git, runGit, withProject, writeFiles } from "../support/project.ts";
import { mkfifo } from "../file_system/helpers.ts";
import { runDenoScript } from "../support/child.ts";
import { fileURLToPath } from "node:url";

const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A tree with every kind of ignore rule git has, links, binary and non-UTF-8 files. */
const TREE: Record<string, string> = {
  ".gitignore": [
    "/agent-config",
    "/logs",
    "node_modules/",
    "*.log",
    "!keep.log",
    "/build/",
    "docs/**/draft-*",
    "tmp",
    "tracked-but-ignored.txt",
    "",
  ].join("\n"),
  ".git/info/exclude": "local-only.txt\n",
  "README.md": "# readme\n",
  "build/out.js": "out\n",
  "src/a.ts": "export const a = 1;\n",
  "src/debug.log": "debug\n",
  "src/keep.log": "kept\n",
  "src/tmp": "tmp\n",
  "src/local-only.txt": "local\n",
  "src/deep/er/x.ts": "x\n",
  "src/nested/.gitignore": "*.gen.ts\n!keep.gen.ts\n/only-here.ts\n",
  "src/nested/a.gen.ts": "gen\n",
  "src/nested/keep.gen.ts": "keep gen\n",
  "src/nested/only-here.ts": "only\n",
  "src/nested/sub/only-here.ts": "sub only\n",
  "docs/guide/draft-1.md": "draft\n",
  "docs/guide/final.md": "final\n",
  "node_modules/pkg/index.js": "module\n",
  "agent-config/gemini-key.txt": "AIzaSyTEST-not-a-real-key-0123456789abc\n",
  "agent-config/query.txt": "do it\n",
  "logs/run/query.txt": "log\n",
  "agent-state/specifications/x": "cache\n",
  "src/logs/kept.ts": "kept logs\n",
  "tracked-but-ignored.txt": "tracked anyway\n",
  "empty.txt": "",
  "no-newline.txt": "no newline",
  "unicode/ünï.txt": "ünïcödé\n",
};

/** Makes the tree in `root`, a git repository, with a commit, then the untracked and odd files. */
async function makeTree(root: string): Promise<void> {
  await runGit(root, ["init", "-q"]);
  await writeFiles(root, TREE);
  await runGit(root, ["add", "-A"]);
  await runGit(root, ["add", "-f", "tracked-but-ignored.txt", "agent-state/specifications/x"]);
  await runGit(root, ["commit", "-q", "-m", "start"]);
  // Untracked, after the commit: a binary file, a file that is not UTF-8, links.
  await Deno.writeFile(join(root, "src/logo.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1]));
  await Deno.writeFile(
    join(root, "src/latin1.txt"),
    new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
  );
  await Deno.symlink("a.ts", join(root, "src/link-to-a.ts"));
  await Deno.symlink("/etc", join(root, "etc-link"));
  await Deno.symlink("../src", join(root, "docs/src-link"));
  await writeFiles(root, { "src/new-untracked.ts": "new\n", "src/nested/b.gen.ts": "gen2\n" });
}

/** What `git ls-files -co --exclude-standard` lists, sorted. */
async function gitListing(root: string): Promise<string[]> {
  const result = await runGit(root, [
    "-c",
    "core.quotePath=false",
    "ls-files",
    "-z",
    "-co",
    "--exclude-standard",
  ]);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout.split("\0").filter((path) => path !== "").sort(compareCodePoints);
}

Deno.test("the rollup holds exactly what git ls-files -co --exclude-standard lists, less what a prompt may not hold", async () => {
  await withProject({}, async (root) => {
    await makeTree(root);
    const rollup = await makeRollup(root);
    const listed = await gitListing(root);
    const links = ["docs/src-link", "etc-link", "src/link-to-a.ts"];
    const expectedOut = new Set([
      ...links,
      "src/logo.png",
      "src/latin1.txt",
      "agent-state/specifications/x",
    ]);
    // git lists the ignored-but-tracked file, the links and the binary files; never agent-config/ or logs/.
    assert(listed.includes("tracked-but-ignored.txt"));
    for (const link of links) assert(listed.includes(link), link);
    assert(!listed.some((path) => path.startsWith("agent-config/") || path.startsWith("logs/")));
    assert.deepEqual(
      [...rollup.files],
      listed.filter((path) => !expectedOut.has(path)),
    );
    assert.deepEqual(
      rollup.leftOut.map((entry) => `${entry.kind} ${entry.path}`),
      [
        "protected agent-state/specifications/x",
        "symbolic-link docs/src-link",
        "symbolic-link etc-link",
        "not-utf8 src/latin1.txt",
        "symbolic-link src/link-to-a.ts",
        "binary src/logo.png",
      ],
    );
    // The format: the mark line, then one block per file, in code-point order.
    const expectedText = rollup.files.map((path) =>
      fileBlock(path, Deno.readTextFileSync(join(root, path)))
    ).join("");
    assert(rollup.text.startsWith(`${ROLLUP_MARK} ${rollup.files.length} files `));
    assert.equal(rollup.text.slice(rollup.text.indexOf("\n") + 1), expectedText);
    assert(rollup.text.includes("--- no-newline.txt ---\nno newline\n--- "));
    assert(rollup.text.includes("--- empty.txt ---\n--- "));
    rollup.files.forEach((path, index) =>
      assert(rollup.text.startsWith(`--- ${path} ---\n`, rollup.starts[index]), path)
    );
  });
});

Deno.test("describeRollup: files, bytes, estimated tokens and what was left out, on one line", async () => {
  await withProject({}, async (root) => {
    await makeTree(root);
    const rollup = await makeRollup(root);
    const line = describeRollup(rollup);
    const bytes = new TextEncoder().encode(rollup.text).length;
    assert(!line.includes("\n"));
    assert(
      line.startsWith(
        `agent-config/codeRollup.txt: ${rollup.files.length} files, ${bytes} bytes, about ${
          Math.round(bytes / 4)
        } tokens (largest: `,
      ),
      line,
    );
    assert.match(line, /\(largest: [^ ]+ \d+ %, [^ ]+ \d+ %, [^ ]+ \d+ %\); left out: /);
    assert.match(line, /1 binary file \(src\/logo\.png\)/);
    assert.match(line, /1 file not in UTF-8 \(src\/latin1\.txt\)/);
    assert.match(line, /3 symbolic links \(docs\/src-link, etc-link, src\/link-to-a\.ts\)/);
    assert.match(line, /1 tracked file in a folder no prompt may read \(agent-state/);
    assert.equal(
      describeRollup({ text: "x", files: [], starts: [], leftOut: [] }),
      "agent-config/codeRollup.txt: 0 files, 1 bytes, about 0 tokens; nothing left out",
    );
  });
});

Deno.test("a name the guard refuses, a file over 1 MiB, and a name ignored once case is folded are left out", async () => {
  await withProject({}, async (root) => {
    await runGit(root, ["init", "-q"]);
    await writeFiles(root, {
      ".gitignore": "*.log\n",
      "ok.txt": "ok\n",
      "bad\nname.txt": "--- forged ---\n",
      "big.txt": "x".repeat(1024 * 1024 + 1),
      "DEBUG.LOG": "git lists it, the guard would refuse it\n",
    });
    const rollup = await makeRollup(root);
    assert((await gitListing(root)).includes("DEBUG.LOG"));
    assert.deepEqual([...rollup.files], [".gitignore", "ok.txt"]);
    assert.deepEqual(rollup.leftOut.map((entry) => `${entry.kind} ${entry.path}`), [
      "ignored-by-case DEBUG.LOG",
      "refused-name bad\nname.txt",
      "too-large big.txt",
    ]);
    assert.match(describeRollup(rollup), /1 name the path guard refuses \("bad\\nname\.txt"\)/);
  });
});

Deno.test("writeRollup writes atomically, makes agent-config/, and never writes through a link", async () => {
  await withProject({}, async (root) => {
    await withProject({}, async (outside) => {
      await writeFiles(root, { "a.txt": "a\n" });
      const rollup = await makeRollup(root);
      await writeRollup(root, rollup);
      assert.equal(await Deno.readTextFile(join(root, "agent-config/codeRollup.txt")), rollup.text);
      const names = [...Deno.readDirSync(join(root, "agent-config"))].map((entry) => entry.name);
      assert.deepEqual(names, ["codeRollup.txt"], "no temporary file is left");

      // The rollup itself a link: refused, the link's target untouched.
      await Deno.remove(join(root, "agent-config/codeRollup.txt"));
      await Deno.writeTextFile(join(outside, "target.txt"), "theirs");
      await Deno.symlink(join(outside, "target.txt"), join(root, "agent-config/codeRollup.txt"));
      await assert.rejects(writeRollup(root, rollup), /codeRollup\.txt is a symbolic link/);
      assert.equal(await Deno.readTextFile(join(outside, "target.txt")), "theirs");

      // agent-config a link: refused, nothing written there.
      await Deno.remove(join(root, "agent-config"), { recursive: true });
      await Deno.symlink(outside, join(root, "agent-config"));
      await assert.rejects(writeRollup(root, rollup), /agent-config is a symbolic link/);
      assert.deepEqual([...Deno.readDirSync(outside)].map((entry) => entry.name), ["target.txt"]);
    });
  });
});

Deno.test("filesHolding names the files whose text holds a secret", () => {
  const text = `${ROLLUP_MARK} 3 files\n`;
  const blocks = ["--- a ---\nclean\n", "--- b ---\nkey=SECRET123\n", "--- c ---\nSECRET123\n"];
  const starts: number[] = [];
  let offset = text.length;
  for (const block of blocks) {
    starts.push(offset);
    offset += block.length;
  }
  const rollup = { text: text + blocks.join(""), files: ["a", "b", "c"], starts, leftOut: [] };
  assert.deepEqual(filesHolding(rollup, ["SECRET123"]), ["b", "c"]);
  assert.deepEqual(filesHolding(rollup, ["absent", ""]), []);
});

Deno.test("loadRollup names only the tracked files changed after the rollup was written", async () => {
  await withProject({}, async (root) => {
    await runGit(root, ["init", "-q"]);
    await writeFiles(root, { "a.txt": "a\n", "b.txt": "b\n", "untracked.txt": "" });
    await runGit(root, ["add", "a.txt", "b.txt"]);
    await writeFiles(root, { "agent-config/codeRollup.txt": "--- a.txt ---\na\n" });
    const old = new Date(Date.now() - 60_000);
    const since = new Date(Date.now() - 30_000);
    for (const path of ["a.txt", "b.txt", "untracked.txt"]) {
      await Deno.utime(join(root, path), old, old);
    }
    await Deno.utime(join(root, "agent-config/codeRollup.txt"), since, since);
    const quiet = memoryStreams();
    await loadRollup(root, new Console(quiet));
    assert.deepEqual(quiet.err, [], "nothing changed since");
    await Deno.writeTextFile(join(root, "b.txt"), "b2\n");
    await Deno.writeTextFile(join(root, "untracked.txt"), "new\n");
    const streams = memoryStreams();
    await loadRollup(root, new Console(streams));
    assert.match(streams.err.join(""), /is older than 1 tracked file \(b\.txt\):/);
  });
});

Deno.test("loadRollup remakes a rollup code-commit made, and warns about a stale one it did not", async () => {
  await withProject({}, async (root) => {
    await runGit(root, ["init", "-q"]);
    await writeFiles(root, { "index.js": "old\n" });
    await runGit(root, ["add", "index.js"]);
    await writeRollup(root, await makeRollup(root));
    await Deno.writeTextFile(join(root, "index.js"), "new\n");

    const streams = memoryStreams();
    const text = await loadRollup(root, new Console(streams));
    assert.match(text, /--- index\.js ---\nnew\n/);
    assert.equal(
      await Deno.readTextFile(join(root, "agent-config/codeRollup.txt")),
      text,
      "written too",
    );
    assert.match(streams.err.join(""), /^remade agent-config\/codeRollup\.txt: 1 file, /);

    // The user's own rollup: used as it is, with a warning naming the newer tracked file.
    const own = "--- index.js ---\nold\n";
    await Deno.writeTextFile(join(root, "agent-config/codeRollup.txt"), own);
    const past = new Date(Date.now() - 60_000);
    await Deno.utime(join(root, "agent-config/codeRollup.txt"), past, past);
    const quiet = memoryStreams();
    assert.equal(await loadRollup(root, new Console(quiet)), own);
    assert.match(
      quiet.err.join(""),
      /^warning: agent-config\/codeRollup\.txt is older than 1 tracked file \(index\.js\): .*run code-commit --rollup/,
    );
    // Made after every tracked file: no warning.
    await Deno.utime(join(root, "agent-config/codeRollup.txt"), new Date(), new Date());
    const none = memoryStreams();
    await loadRollup(root, new Console(none));
    assert.deepEqual(none.err, []);
  });
});

Deno.test("a file with more than one hard link and a fifo are left out, and the summary names each", async () => {
  await withProject({}, async (root) => {
    await withProject({ "secret.txt": "password=hunter2\n" }, async (outside) => {
      await runGit(root, ["init", "-q"]);
      await writeFiles(root, { "ok.txt": "ok\n", "tracked.txt": "tracked\n" });
      await runGit(root, ["add", "-A"]);
      await runGit(root, ["commit", "-qm", "start"]);
      // An untracked hard link to a file outside, a tracked file given a second name, a fifo.
      await Deno.link(join(outside, "secret.txt"), join(root, "notes.txt"));
      await Deno.link(join(root, "tracked.txt"), join(outside, "other-name.txt"));
      const fifo = new Deno.Command("mkfifo", { args: [join(root, "pipe")] });
      assert.equal((await fifo.output()).code, 0);
      const rollup = await makeRollup(root);
      assert.deepEqual([...rollup.files], ["ok.txt"]);
      assert(!rollup.text.includes("hunter2"));
      assert.deepEqual(rollup.leftOut.map((entry) => `${entry.kind} ${entry.path}`), [
        "hard-link notes.txt",
        "special pipe",
        "hard-link tracked.txt",
      ]);
      const line = describeRollup(rollup);
      assert.match(line, /2 files with more than one hard link \(notes\.txt, tracked\.txt\)/);
      assert.match(line, /1 fifo, socket or device \(pipe\)/);
    });
  });
});

Deno.test("a tracked file git ignores, in conflict (three index entries), is in the rollup once", async () => {
  await withProject({ ".gitignore": "conflict.txt\n", "conflict.txt": "base\n" }, async (root) => {
    const git = async (...args: string[]) => {
      const result = await runGit(root, args);
      assert.equal(result.code === 0 || args[0] === "merge", true, result.stderr);
    };
    await git("init", "-q");
    await git("add", "-f", ".gitignore", "conflict.txt");
    await git("commit", "-qm", "base");
    await git("checkout", "-qb", "other");
    await Deno.writeTextFile(join(root, "conflict.txt"), "other\n");
    await git("commit", "-qam", "other");
    await git("checkout", "-q", "-");
    await Deno.writeTextFile(join(root, "conflict.txt"), "mine\n");
    await git("commit", "-qam", "mine");
    await git("merge", "-q", "other");
    const stages = (await runGit(root, ["ls-files", "--stage", "conflict.txt"])).stdout;
    assert.equal(stages.trim().split("\n").length, 3, stages);
    const rollup = await makeRollup(root);
    assert.deepEqual(rollup.files.filter((path) => path === "conflict.txt"), ["conflict.txt"]);
  });
});

Deno.test("a tracked name that is not UTF-8 is never read by its decoded path, which may name an ignored file", async () => {
  await withProject({ ".gitignore": "caf*\n", "ok.txt": "ok\n" }, async (root) => {
    await runGit(root, ["init", "-q"]);
    // caf\xe9.txt (Latin-1, so only a shell can name it), tracked, then gone from the tree.
    const shell = (script: string) =>
      new Deno.Command("sh", { args: ["-c", script], cwd: root }).output();
    assert.ok((await shell("printf 'x\\n' > \"$(printf 'caf\\351.txt')\"")).success);
    assert.equal((await runGit(root, ["add", "-f", "-A"])).code, 0);
    assert.ok((await shell("rm \"$(printf 'caf\\351.txt')\"")).success);
    // The name the index's bytes decode to, an ignored file of its own.
    await Deno.writeTextFile(join(root, "caf\uFFFD.txt"), "TOP-SECRET=hunter2\n");
    const rollup = await makeRollup(root);
    assert.doesNotMatch(rollup.text, /TOP-SECRET/);
    assert.deepEqual([...rollup.files], [".gitignore", "ok.txt"]);
    assert.deepEqual(rollup.leftOut.map((entry) => `${entry.kind} ${entry.path}`), [
      "refused-name caf\uFFFD.txt",
    ]);
  });
});

Deno.test("git's data behind a .git file stays out of the rollup, untracked or tracked, root or nested", async () => {
  await withProject({}, async (root) => {
    // The repository kept in `.repo/`: git lists `.repo/config`, `.repo/hooks/*.sample`, ...
    // as untracked files.
    await git(root, "init", "-q", "--separate-git-dir", ".repo", ".");
    await writeFiles(root, { ".gitignore": "/agent-config\n", "src/a.ts": "a\n" });
    const rollup = await makeRollup(root);
    assert.deepEqual([...rollup.files], [".gitignore", "src/a.ts"]);
    assert.deepEqual(rollup.leftOut, []);
    assert(!rollup.text.includes(".repo/"));
  });
  await withProject({}, async (root) => {
    // A nested repository kept in `../.subrepo`, whose data the outer repository tracks.
    await git(root, "init", "-q");
    await writeFiles(root, {
      ".gitignore": "/agent-config\n",
      "src/a.ts": "a\n",
      "sub/b.ts": "b\n",
    });
    await git(join(root, "sub"), "init", "-q", "--separate-git-dir", "../.subrepo", ".");
    await git(root, "add", ".gitignore", "src", ".subrepo");
    await git(root, "commit", "-q", "-m", "start");
    assert.match(await git(root, "ls-files"), /^\.subrepo\/config$/m);
    const rollup = await makeRollup(root);
    assert.deepEqual([...rollup.files], [".gitignore", "src/a.ts", "sub/b.ts"]);
    assert(!rollup.text.includes(".subrepo/"));
    assert(rollup.leftOut.length > 0);
    assert.deepEqual(
      rollup.leftOut.filter((entry) =>
        entry.kind !== "protected" || !entry.path.startsWith(".subrepo/")
      ),
      [],
    );
    assert.match(
      describeRollup(rollup),
      /tracked files? in (a folder|folders) no prompt may read \(\.subrepo\//,
    );
  });
});

Deno.test("files are read a batch at a time and kept in order, every kind left out among them", async () => {
  const files: Record<string, string | Uint8Array> = {};
  for (let i = 0; i < 40; i++) {
    files[`f${String(i).padStart(2, "0")}.ts`] = `export const v${i} = ${i};\n`;
  }
  // The odd ones sort among the plain ones: f05.ts, f05b-binary.bin, f06.ts, …
  files["f05b-binary.bin"] = new Uint8Array([0x61, 0x00, 0x62]);
  files["f11b-latin1.txt"] = new Uint8Array([0x63, 0x61, 0x66, 0xe9]);
  files["f17b-big.txt"] = "x".repeat(1024 * 1024 + 1);
  files["f23b-twin.txt"] = "twin\n";
  files["f31b-gone.txt"] = "gone\n";
  files["f33b-folder"] = "a file, then a folder\n";
  await withProject(files, async (root) => {
    await runGit(root, ["init", "-q"]);
    await runGit(root, ["add", "f31b-gone.txt", "f33b-folder"]);
    await runGit(root, ["commit", "-qm", "start"]);
    await Deno.remove(join(root, "f31b-gone.txt"));
    await Deno.remove(join(root, "f33b-folder"));
    await Deno.mkdir(join(root, "f33b-folder"));
    await Deno.symlink("f00.ts", join(root, "f29b-link.txt"));
    await Deno.link(join(root, "f23b-twin.txt"), join(root, "f35b-twin.txt"));
    await mkfifo(join(root, "f38b-pipe"));
    const rollup = await makeRollup(root);
    const plain = Object.keys(files).filter((path) => /^f\d\d\.ts$/.test(path));
    assert.deepEqual([...rollup.files], plain);
    const blocks = plain.map((path) => fileBlock(path, files[path] as string)).join("");
    assert.equal(rollup.text.slice(rollup.text.indexOf("\n") + 1), blocks);
    // A tracked file gone, or now a folder, is named nowhere: git shows it deleted.
    assert.deepEqual(rollup.leftOut.map((entry) => `${entry.kind} ${entry.path}`), [
      "binary f05b-binary.bin",
      "not-utf8 f11b-latin1.txt",
      "too-large f17b-big.txt",
      "hard-link f23b-twin.txt",
      "symbolic-link f29b-link.txt",
      "hard-link f35b-twin.txt",
      "special f38b-pipe",
    ]);
  });
});

Deno.test("with the run's permissions (--allow-read=.), the rollup reads the project, and nothing outside", async () => {
  await withProject({ "in.txt": "inside\n" }, async (root) => {
    const outside = await Deno.makeTempDir({ prefix: "code-commit-outside-" });
    try {
      await Deno.writeTextFile(join(outside, "secret.txt"), "outside\n");
      const script = `
        import { makeRollup } from ${JSON.stringify(`${TOOL_ROOT}lib/rollup/rollup.ts`)};
        const inside = await makeRollup(Deno.cwd());
        const outside = await makeRollup(${JSON.stringify(outside)}).then(
          (rollup) => rollup.text,
          (error) => error.message,
        );
        console.log(JSON.stringify([inside.files, inside.text.includes("inside\\n"), outside]));
      `;
      const output = await runDenoScript(root, ["--no-prompt", "--allow-read=."], script);
      assert.equal(output.code, 0, output.stderr);
      const [files, read, other] = JSON.parse(output.stdout);
      assert.deepEqual([files, read], [["in.txt"], true]);
      assert.match(other, /Requires read access/);
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  });
});
