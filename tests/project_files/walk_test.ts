import assert from "node:assert/strict";
import { join } from "node:path";
import {
  describeSkipped,
  listFolder,
  type ReadDir,
  walkTree,
} from "../../lib/project_files/walk.ts";
import { IgnoreRules } from "../../lib/guard/ignore_rules.ts";
import { checkPathSyntax } from "../../lib/guard/path_syntax.ts";
import { git, runGit, withProject, writeFiles } from "../support/project.ts";

/** A tree with ignore rules of every kind git has, for comparing the walk with git itself. */
const RULES_TREE: Record<string, string> = {
  ".gitignore": [
    "/agent-config",
    "/logs",
    "node_modules/",
    "*.log",
    "!keep.log",
    "/build/",
    "docs/**/draft-*",
    "src/**/fixtures/big/",
    "tmp",
    "",
  ].join("\n"),
  ".git/info/exclude": "local-only.txt\n",
  "README.md": "",
  "build/out.js": "",
  "src/build/kept.ts": "",
  "src/a.ts": "",
  "src/debug.log": "",
  "src/keep.log": "",
  "src/tmp": "",
  "src/local-only.txt": "",
  "src/deep/er/x.ts": "",
  "src/deep/er/fixtures/big/huge.json": "",
  "src/deep/er/fixtures/small.json": "",
  "src/nested/.gitignore": "*.gen.ts\n!keep.gen.ts\n/only-here.ts\n",
  "src/nested/a.gen.ts": "",
  "src/nested/keep.gen.ts": "",
  "src/nested/only-here.ts": "",
  "src/nested/sub/only-here.ts": "",
  "src/nested/sub/b.gen.ts": "",
  "docs/guide/draft-1.md": "",
  "docs/guide/final.md": "",
  "node_modules/pkg/index.js": "",
  "src/node_modules/inner/index.js": "",
  "agent-config/gemini-key.txt": "",
  "logs/run/query.txt": "",
  "src/logs/kept.ts": "",
};

async function allFiles(root: string, readDir?: ReadDir): Promise<string[]> {
  const rules = await IgnoreRules.load(root);
  const walk = await walkTree(root, "", rules, { readDir });
  return walk.folders.flatMap((folder) => folder.files).sort();
}

Deno.test("walkTree lists exactly the files git lists as not ignored", async () => {
  await withProject({}, async (dir) => {
    const root = join(dir, "project");
    await Deno.mkdir(root);
    await git(root, "init", "-q");
    await writeFiles(root, RULES_TREE);
    const listed = await runGit(root, ["ls-files", "--others", "--exclude-standard", "-z"]);
    assert.equal(listed.code, 0, listed.stderr);
    const expected = listed.stdout.split("\0").filter((path) => path !== "").sort();
    assert.ok(expected.includes("src/nested/keep.gen.ts") && expected.includes("src/keep.log"));
    assert.ok(!expected.includes("src/nested/sub/b.gen.ts"));
    assert.deepEqual(await allFiles(root), expected);
  });
});

Deno.test("walkTree reads a nested .gitignore only when it is a regular file, as git does (a link or a folder is not)", async () => {
  await withProject({}, async (dir) => {
    const root = join(dir, "project");
    await Deno.mkdir(root);
    await git(root, "init", "-q");
    await writeFiles(root, {
      "rules.txt": "*.ts\n",
      "file/.gitignore": "*.ts\n",
      "file/a.ts": "",
      "link/a.ts": "",
      "folder/.gitignore/inner.ts": "",
      "folder/a.ts": "",
    });
    await Deno.symlink("../rules.txt", join(root, "link/.gitignore"));
    const listed = await runGit(root, ["ls-files", "--others", "--exclude-standard", "-z"]);
    const expected = listed.stdout.split("\0").filter((path) => path !== "").sort();
    assert.ok(!expected.includes("file/a.ts") && expected.includes("link/a.ts"));
    // git lists the link itself; the walk leaves links out.
    assert.deepEqual(await allFiles(root), expected.filter((path) => path !== "link/.gitignore"));
  });
});

Deno.test("walkTree never opens an ignored folder, a protected folder, or a linked folder", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, RULES_TREE);
    await writeFiles(root, { "src/x/.git/HEAD": "", "vendor/.git/config": "" });
    const outside = await Deno.makeTempDir({ prefix: "code-commit-outside-" });
    try {
      await writeFiles(outside, { "secret.txt": "" });
      await Deno.symlink(outside, join(root, "src/linked"));
      const opened: string[] = [];
      const spy: ReadDir = (path) => {
        opened.push(path === root ? "." : path.slice(root.length + 1));
        return Deno.readDirSync(path);
      };
      const files = await allFiles(root, spy);
      for (const folder of opened) {
        assert.doesNotMatch(
          folder,
          /node_modules|^build$|^build\/|fixtures\/big|agent-config|^logs|\.git|linked/,
          `opened ${folder}`,
        );
      }
      assert.ok(opened.includes("src/deep/er/fixtures"), "the walk does reach deep folders");
      assert.ok(opened.includes("src/logs"), "logs/ is protected only in the root");
      assert.ok(files.includes("src/logs/kept.ts"));
      assert.ok(!files.some((path) => path.includes("secret.txt") || path.includes(".git/")));
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  });
});

Deno.test("listFolder leaves out links, special files and .git, and lists empty folders", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, { ".gitignore": "", "src/real.ts": "", "src/sub/.git": "gitdir: x\n" });
    await Deno.mkdir(join(root, "src/empty"));
    await Deno.symlink("real.ts", join(root, "src/link.ts"));
    await Deno.symlink("/etc/passwd", join(root, "src/passwd"));
    await Deno.symlink("nowhere", join(root, "src/dangling"));
    const fifo = await new Deno.Command("mkfifo", { args: [join(root, "src/pipe")] }).output();
    assert.ok(fifo.success);
    const rules = await IgnoreRules.load(root);
    const { listing, skipped } = await listFolder(root, "src", rules);
    assert.deepEqual(listing, {
      path: "src",
      files: ["src/real.ts"],
      folders: ["src/empty", "src/sub"],
    });
    assert.deepEqual(skipped, []);
    const walk = await walkTree(root, "src", rules);
    assert.deepEqual(walk.folders.map((folder) => folder.path), ["src", "src/empty", "src/sub"]);
    assert.deepEqual(walk.folders[2].files, [], "a .git file is never listed");
  });
});

Deno.test("listFolder reports names the guard would refuse, and leaves them out", async () => {
  await withProject({}, async (root) => {
    const names = ["ok.ts", "new\nline.ts", "trailing.", "BUILD~1.SH", " space.ts", "tab\t.ts"];
    await writeFiles(root, Object.fromEntries(names.map((name) => [`src/${name}`, ""])));
    const rules = await IgnoreRules.load(root);
    const { listing, skipped } = await listFolder(root, "src", rules);
    assert.deepEqual(listing.files, ["src/ok.ts"]);
    assert.deepEqual(
      skipped.map((entry) => entry.path).sort(),
      names.slice(1).map((name) => `src/${name}`).sort(),
    );
    for (const entry of skipped) {
      assert.equal(entry.kind, "refused-name");
      assert.equal(entry.isDirectory, false);
      assert.equal(entry.reason, checkPathSyntax(entry.path));
    }
  });
});

Deno.test("listFolder leaves out what is ignored only once case is folded, as the guard refuses it", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, {
      ".gitignore": "Secret.txt\nBuild/\n",
      "secret.txt": "",
      "build/a": "",
      "b.txt": "",
    });
    const { listing } = await listFolder(root, "", await IgnoreRules.load(root));
    assert.deepEqual(listing, { path: "", files: [".gitignore", "b.txt"], folders: [] });
  });
});

Deno.test("walkTree reports a folder it cannot read and goes on", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, { "src/a/x.ts": "", "src/b/y.ts": "" });
    const failing: ReadDir = (path) => {
      if (path.endsWith("/src/a")) {
        throw new Deno.errors.PermissionDenied("Permission denied (os error 13)");
      }
      return Deno.readDirSync(path);
    };
    const walk = await walkTree(root, "src", await IgnoreRules.load(root), { readDir: failing });
    assert.deepEqual(walk.folders.map((folder) => folder.path), ["src", "src/b"]);
    assert.equal(walk.skipped.length, 1);
    assert.equal(walk.skipped[0].path, "src/a");
    assert.equal(walk.skipped[0].kind, "unreadable-folder");
    assert.match(walk.skipped[0].reason, /^Permission denied/);
  });
});

Deno.test("walkTree lists folders in tree order, whatever the concurrency", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, { "src/a-b/1": "", "src/a/b/2": "", "src/a/3": "", "src/B/4": "" });
    for (const concurrency of [1, 2, 64]) {
      const walk = await walkTree(root, "src", await IgnoreRules.load(root), { concurrency });
      assert.deepEqual(walk.folders.map((folder) => folder.path), [
        "src",
        "src/B",
        "src/a",
        "src/a/b",
        "src/a-b",
      ]);
    }
  });
});

Deno.test("walkTree with enter lists a folder it does not enter, and never opens it", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, {
      "src/a/x.ts": "",
      "src/a/inner/y.ts": "",
      "src/a/inner/deep/z.ts": "",
      "src/a/other/w.ts": "",
    });
    const opened: string[] = [];
    const spy: ReadDir = (path) => {
      opened.push(path.slice(root.length + 1));
      return Deno.readDirSync(path);
    };
    const walk = await walkTree(root, "src/a", await IgnoreRules.load(root), {
      readDir: spy,
      enter: (folder) => folder !== "src/a/inner",
    });
    assert.deepEqual(walk.folders, [
      { path: "src/a", files: ["src/a/x.ts"], folders: ["src/a/inner", "src/a/other"] },
      { path: "src/a/other", files: ["src/a/other/w.ts"], folders: [] },
    ]);
    assert.deepEqual(opened.sort(), ["src/a", "src/a/other"]);
  });
});

Deno.test("describeSkipped says what the entry was left out of, the path shown safely", () => {
  assert.equal(
    describeSkipped(
      {
        path: "src/a\nb.ts",
        kind: "refused-name",
        isDirectory: false,
        reason: "contains the control character U+000A",
      },
      "the summary",
    ),
    '"src/a\\nb.ts": left out of the summary: contains the control character U+000A',
  );
  assert.equal(
    describeSkipped(
      {
        path: "src/a",
        kind: "unreadable-folder",
        isDirectory: true,
        reason: "Permission denied (os error 13)",
      },
      "the codebase",
    ),
    "src/a: could not be read, so it is left out of the codebase: Permission denied (os error 13)",
  );
});

/**
 * Lists `folder` of the project at `root` as if it held exactly `entries`
 * (name → whether it is a folder), through a `readDir` that yields them.
 */
async function listAsIf(
  root: string,
  folder: string,
  entries: readonly (readonly [string, boolean])[],
) {
  const readDir: ReadDir = function* () {
    for (const [name, isDirectory] of entries) {
      yield { name, isFile: !isDirectory, isDirectory, isSymlink: false };
    }
  };
  return await listFolder(root, folder, await IgnoreRules.load(root), { readDir });
}

Deno.test("listFolder leaves out the protected table's unreadable entries: .git anywhere, agent-config only in the root", async () => {
  const cases: [string, string, boolean][] = [
    ["", ".git", true],
    ["src/deep", ".git", true],
    ["target", ".git", true],
    ["src", ".GIT", true],
    ["", "agent-config", true],
    ["", "Agent-Config", true],
    ["", "agent-state", true],
    ["", "app-data", true],
    ["", "logs", true],
    ["src", "agent-config", false],
    ["src", "logs", false],
    ["", "target", false],
    ["", "build.sh", false],
    ["", ".gitignore", false],
  ];
  await withProject({}, async (root) => {
    for (const [folder, name, unreadable] of cases) {
      const { listing, skipped } = await listAsIf(root, folder, [[name, true]]);
      const path = folder === "" ? name : `${folder}/${name}`;
      assert.deepEqual(listing.folders, unreadable ? [] : [path], path);
      assert.deepEqual(skipped, [], path);
    }
  });
});

Deno.test("listFolder refuses exactly the names the guard's syntax check refuses, with its reason", async () => {
  const names = [
    "a.ts",
    ".gitignore",
    "UserSpecification.md",
    "file-name_1+2@x=y,z.tar.gz",
    "trailing.",
    "..",
    ".",
    "~1",
    "BUILD~1.SH",
    "~home",
    "a:b",
    "a\\b",
    "new\nline",
    " lead",
    "trail ",
    "zero\u200bwidth",
    "é.ts",
    "x".repeat(255),
    "x".repeat(256),
    "ü".repeat(200),
  ];
  const deep = Array.from({ length: 40 }, (_, i) => `folder${i}${"x".repeat(100)}`).join("/");
  const parents = ["", "src", `src/${"d".repeat(200)}/${"e".repeat(200)}`, "ü".repeat(120), deep];
  assert.notEqual(checkPathSyntax(`${deep}/a.ts`), undefined, "over 4096 bytes");
  await withProject({}, async (root) => {
    for (const parent of parents) {
      const { listing, skipped } = await listAsIf(root, parent, names.map((name) => [name, false]));
      for (const name of names) {
        const path = parent === "" ? name : `${parent}/${name}`;
        const problem = checkPathSyntax(path);
        const refused = skipped.find((entry) => entry.path === path);
        assert.equal(refused?.reason, problem, JSON.stringify(path));
        assert.equal(listing.files.includes(path), problem === undefined, JSON.stringify(path));
        if (refused !== undefined) assert.equal(refused.kind, "refused-name");
      }
    }
  });
});

Deno.test("walkTree leaves out git's data behind a .git file, at the root and nested, as it leaves out .git", async () => {
  await withProject({}, async (root) => {
    // The repository kept in `.repo/`; a nested one kept in `../.subrepo`; a hand-written
    // pointer naming a folder beside it; a linked worktree (whose gitdir is in `.repo/`).
    await git(root, "init", "-q", "--separate-git-dir", ".repo", ".");
    await writeFiles(root, { ".gitignore": "/agent-config\n", "src/a.ts": "a\n" });
    await git(root, "add", ".gitignore", "src/a.ts");
    await git(root, "commit", "-q", "-m", "start");
    await Deno.mkdir(join(root, "sub"));
    await git(join(root, "sub"), "init", "-q", "--separate-git-dir", "../.subrepo", ".");
    await writeFiles(root, {
      "sub/lib.ts": "",
      "inner/.git": "gitdir: .inner\n",
      "inner/.inner/HEAD": "ref: refs/heads/main\n",
      "inner/.inner/hooks/pre-commit": "#!/bin/sh\n",
      "inner/main.ts": "",
    });
    await git(root, "worktree", "add", "-q", "wt");
    // git itself lists its data kept under another name as untracked files.
    const untracked = await git(root, "ls-files", "--others", "--exclude-standard");
    assert.match(untracked, /^\.repo\/config$/m);
    assert.match(untracked, /^\.subrepo\/HEAD$/m);
    const files = await allFiles(root);
    assert.deepEqual(
      files.filter((path) => /(^|\/)\.(repo|subrepo|inner)\//.test(path)),
      [],
      "git's data was listed",
    );
    assert.deepEqual(files, [
      ".gitignore",
      "inner/main.ts",
      "src/a.ts",
      "sub/lib.ts",
      "wt/.gitignore",
      "wt/src/a.ts",
    ]);
    // A walk started below the root leaves it out too.
    const rules = await IgnoreRules.load(root);
    const inner = await walkTree(root, "inner", rules);
    assert.deepEqual(inner.folders.flatMap((folder) => folder.files), ["inner/main.ts"]);
  });
});
