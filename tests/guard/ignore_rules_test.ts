import assert from "node:assert/strict";
import { join } from "node:path";
import { IgnoreRules } from "../../lib/guard/ignore_rules.ts";
import { gitCheckIgnore } from "./helpers.ts";
import { withProject, writeFiles } from "../support/project.ts";

/**
 * Asserts IgnoreRules and `git check-ignore` agree on every path (folders end
 * with `/`): `isIgnored`, and the verdicts of `inFolder` on each folder asked
 * about without a listing (as the guard asks; its own rules, the deepest
 * paths first, so that no folder above was asked before).
 */
async function assertAgreesWithGit(
  root: string,
  entries: readonly string[],
  ignoreCase = false,
): Promise<number> {
  const paths = entries.map((e) => e.replace(/\/$/, ""));
  const answers = await gitCheckIgnore(
    root,
    paths,
    ignoreCase ? ["core.ignorecase=true"] : [],
  );
  const rules = await IgnoreRules.load(root, { ignoreCase });
  const disagreements: string[] = [];
  for (const entry of entries) {
    const isDir = entry.endsWith("/");
    const path = entry.replace(/\/$/, "");
    const ours = await rules.isIgnored(path, isDir);
    if (ours !== answers.get(path)) {
      disagreements.push(`${entry}: git says ${answers.get(path)}, IgnoreRules says ${ours}`);
    }
  }
  const byFolder = await IgnoreRules.load(root, { ignoreCase });
  const deepestFirst = [...entries].sort((a, b) => b.split("/").length - a.split("/").length);
  for (const entry of deepestFirst) {
    const isDir = entry.endsWith("/");
    const path = entry.replace(/\/$/, "");
    const slash = path.lastIndexOf("/");
    const folder = await byFolder.inFolder(slash < 0 ? "" : path.slice(0, slash));
    const ours = folder.ignores(path.slice(slash + 1), isDir);
    if (ours !== answers.get(path)) {
      disagreements.push(`${entry}: git says ${answers.get(path)}, inFolder says ${ours}`);
    }
  }
  assert.deepEqual(disagreements, [], "IgnoreRules disagrees with git check-ignore");
  return [...answers.values()].filter((ignored) => ignored).length;
}

Deno.test("a nearer .gitignore re-includes a folder the root one ignores (cross-source)", async () => {
  await withProject({
    ".gitignore": "a/b/\n",
    "a/.gitignore": "!b/\n",
    "a/b/c": "",
    "a/b/d/e": "",
  }, async (root) => {
    const rules = await IgnoreRules.load(root);
    assert.equal(await rules.isIgnored("a/b", true), false);
    assert.equal(await rules.isIgnored("a/b/c", false), false);
    assert.equal(await rules.isIgnored("a/b/d/e", false), false);
    await assertAgreesWithGit(root, ["a/", "a/b/", "a/b/c", "a/b/d/", "a/b/d/e"]);
  }, { git: true });
});

Deno.test("a file under an ignored folder stays ignored whatever negations say", async () => {
  await withProject({
    ".gitignore": "build/\n!build/keep.txt\ncache/\n",
    "build/keep.txt": "",
    "cache/.gitignore": "!*\n",
    "cache/x": "",
  }, async (root) => {
    const rules = await IgnoreRules.load(root);
    assert.equal(await rules.isIgnored("build/keep.txt", false), true);
    assert.equal(await rules.isIgnored("cache/x", false), true);
    assert.equal(await rules.isIgnored("cache/.gitignore", false), true);
    await assertAgreesWithGit(root, [
      "build/",
      "build/keep.txt",
      "cache/",
      "cache/x",
      "cache/.gitignore",
    ]);
  }, { git: true });
});

Deno.test("a negation re-includes a file when its folder is not ignored", async () => {
  await withProject({
    ".gitignore": "*.log\n!keep.log\nlogs/*\n!logs/keep.txt\n",
    "keep.log": "",
    "x.log": "",
    "logs/keep.txt": "",
    "logs/other.txt": "",
  }, async (root) => {
    const rules = await IgnoreRules.load(root);
    assert.equal(await rules.isIgnored("keep.log", false), false);
    assert.equal(await rules.isIgnored("x.log", false), true);
    assert.equal(await rules.isIgnored("logs/keep.txt", false), false);
    assert.equal(await rules.isIgnored("logs/other.txt", false), true);
    await assertAgreesWithGit(root, [
      "keep.log",
      "x.log",
      "logs/",
      "logs/keep.txt",
      "logs/other.txt",
    ]);
  }, { git: true });
});

Deno.test("info/exclude has the lowest precedence", async () => {
  await withProject({
    ".gitignore": "!keep.txt\n",
    "keep.txt": "",
    "other.txt": "",
    "private/x": "",
  }, async (root) => {
    await writeFiles(root, { ".git/info/exclude": "*.txt\nprivate/\n" });
    const rules = await IgnoreRules.load(root);
    assert.equal(await rules.isIgnored("keep.txt", false), false);
    assert.equal(await rules.isIgnored("other.txt", false), true);
    assert.deepEqual(await rules.explain("private/x", false), {
      path: "private",
      source: ".git/info/exclude",
      pattern: "private/",
    });
    await assertAgreesWithGit(root, ["keep.txt", "other.txt", "private/", "private/x"]);
  }, { git: true });
});

Deno.test("info/exclude is skipped when .git is a file (a worktree or submodule)", async () => {
  await withProject({ ".git": "gitdir: /elsewhere\n", "x.txt": "" }, async (root) => {
    await writeFiles(root, { "elsewhere/info/exclude": "*.txt\n" });
    const rules = await IgnoreRules.load(root);
    assert.equal(await rules.isIgnored("x.txt", false), false);
  });
});

Deno.test("a symlinked .gitignore is not read, as git >= 2.32 does not follow it", async () => {
  await withProject({ "rules.txt": "secret\n", "secret": "", "sub/secret": "" }, async (root) => {
    await Deno.symlink("rules.txt", join(root, ".gitignore"));
    await Deno.symlink("../rules.txt", join(root, "sub/.gitignore"));
    const rules = await IgnoreRules.load(root);
    assert.equal(await rules.isIgnored("secret", false), false);
    assert.equal(await rules.isIgnored("sub/secret", false), false);
  }, { git: true });
});

Deno.test("a .gitignore inside a symlinked folder is not read", async () => {
  await withProject({ "real/.gitignore": "x\n", "real/x": "" }, async (root) => {
    await Deno.symlink("real", join(root, "link"));
    const rules = await IgnoreRules.load(root);
    assert.equal(await rules.isIgnored("real/x", false), true);
    assert.equal(await rules.isIgnored("link/x", false), false);
  }, { git: true });
});

Deno.test("info/exclude through a link is read, as git reads it; a fifo or a device there is refused", async () => {
  await withProject({ "x.txt": "", "rules": "*.txt\n" }, async (root) => {
    await Deno.mkdir(join(root, ".git/info"), { recursive: true });
    await Deno.remove(join(root, ".git/info/exclude")).catch(() => {});
    await Deno.symlink("../../rules", join(root, ".git/info/exclude"));
    assert.equal(await (await IgnoreRules.load(root)).isIgnored("x.txt", false), true);
    await Deno.remove(join(root, ".git/info/exclude"));
    const fifo = await new Deno.Command("mkfifo", { args: [join(root, "pipe")] }).output();
    assert.ok(fifo.success);
    await Deno.symlink("../../pipe", join(root, ".git/info/exclude"));
    await assert.rejects(
      IgnoreRules.load(root),
      /^FileReadError: \.git\/info\/exclude leads to a fifo \(named pipe\) \(through a symbolic link\)/,
    );
    await Deno.remove(join(root, ".git/info/exclude"));
    await Deno.symlink("/dev/zero", join(root, ".git/info/exclude"));
    await assert.rejects(IgnoreRules.load(root), /leads to a character device/);
    await Deno.remove(join(root, ".git/info/exclude"));
    await Deno.symlink("/tmp", join(root, ".git/info/exclude"));
    assert.equal(await (await IgnoreRules.load(root)).isIgnored("x.txt", false), false);
  });
});

Deno.test("a nested .gitignore that is a fifo is not read (git reads regular files only)", async () => {
  await withProject({ "src/x.txt": "" }, async (root) => {
    const fifo = await new Deno.Command("mkfifo", { args: [join(root, "src/.gitignore")] })
      .output();
    assert.ok(fifo.success);
    assert.equal(await (await IgnoreRules.load(root)).isIgnored("src/x.txt", false), false);
  });
});

Deno.test("an ignore file over 4 MiB is refused, naming it: the guard must not guess", async () => {
  await withProject({ "src/.gitignore": "#".repeat(4 * 1024 * 1024 + 1) }, async (root) => {
    const rules = await IgnoreRules.load(root);
    await assert.rejects(
      rules.isIgnored("src/x.txt", false),
      /^FileReadError: src\/\.gitignore is 4\.0 MiB, more than the 4 MiB code-commit reads from an ignore-rules file/,
    );
  });
});

Deno.test("a nested .gitignore is read only when a path below it is asked about, once", async () => {
  await withProject({
    ".gitignore": "ignored/\n",
    "a/.gitignore": "x\n",
    "ignored/.gitignore": "!y\n",
  }, async (root) => {
    const rules = await IgnoreRules.load(root);
    // Nothing inside an ignored folder is read: replacing its .gitignore by a fifo changes nothing.
    await Deno.remove(join(root, "ignored/.gitignore"));
    const fifo = await new Deno.Command("mkfifo", { args: [join(root, "ignored/.gitignore")] })
      .output();
    assert.ok(fifo.success);
    assert.equal(await rules.isIgnored("ignored/y", false), true);
    assert.equal(await rules.isIgnored("a/x", false), true);
    await Deno.writeTextFile(join(root, "a/.gitignore"), "");
    assert.equal(await rules.isIgnored("a/x", false), true, "read once, then remembered");
  });
});

Deno.test("explain names the source, the rule and the ignored ancestor", async () => {
  await withProject(
    { ".gitignore": "# c\nsecrets/\n", "src/.gitignore": "*.gen.ts\n" },
    async (root) => {
      const rules = await IgnoreRules.load(root);
      assert.deepEqual(await rules.explain("src/a/b.gen.ts", false), {
        path: "src/a/b.gen.ts",
        source: "src/.gitignore",
        pattern: "*.gen.ts",
      });
      assert.deepEqual(await rules.explain("x/secrets/deep/key", false), {
        path: "x/secrets",
        source: ".gitignore",
        pattern: "secrets/",
      });
      assert.equal(await rules.explain("src/a.ts", false), undefined);
      assert.equal(await rules.explain("./src/x.gen.ts", false) !== undefined, true);
    },
    { git: true },
  );
});

Deno.test("folder-only rules do not match files", async () => {
  await withProject({ ".gitignore": "out/\n" }, async (root) => {
    const rules = await IgnoreRules.load(root);
    assert.equal(await rules.isIgnored("out", false), false);
    assert.equal(await rules.isIgnored("out", true), true);
    assert.equal(await rules.isIgnored("out/x", false), true);
  }, { git: true });
});

Deno.test("ignoreCase folds rules and paths the way case-insensitive file systems do", async () => {
  await withProject({ ".gitignore": "secrets/\nBuild.LOG\nstraße\n" }, async (root) => {
    const exact = await IgnoreRules.load(root);
    const folded = await IgnoreRules.load(root, { ignoreCase: true });
    assert.equal(await exact.isIgnored("Secrets/key", false), false);
    assert.equal(await folded.isIgnored("Secrets/key", false), true);
    assert.equal(await folded.isIgnored("ſecrets/key", false), true);
    assert.equal(await folded.isIgnored("build.log", false), true);
    assert.equal(await folded.isIgnored("STRASSE", false), true);
    assert.equal(exact.withIgnoreCase(true).ignoreCase, true);
    assert.equal(exact.withIgnoreCase(false), exact);
    assert.equal(exact.withIgnoreCase(true).withIgnoreCase(false), exact);
  }, { git: true });
});

Deno.test("a project without any ignore file ignores nothing", async () => {
  await withProject({}, async (root) => {
    const rules = await IgnoreRules.load(root);
    assert.equal(await rules.isIgnored("a/b/c", false), false);
  });
});

Deno.test("paths that are not project paths are a programming error", async () => {
  await withProject({}, async (root) => {
    const rules = await IgnoreRules.load(root);
    for (const bad of ["", "a//b", "../x", "a/./b", "./", "/x"]) {
      await assert.rejects(() => rules.isIgnored(bad, false), RangeError, JSON.stringify(bad));
    }
  });
});

// ---------------------------------------------------------------------------
// Agreement with real git over generated trees.

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FOLDER_NAMES = ["a", "b", "src", "lib", "build", "tmp", "x", "Foo", "foo", "deep", "gen"];
const FILE_NAMES = [
  "f.txt",
  "g.js",
  "h.log",
  "Main.rs",
  "x",
  "keep.txt",
  "b",
  "notes.md",
  "a.gen.ts",
  "Build.LOG",
  "tmp",
  "data.TXT",
];

/**
 * One random .gitignore line from the shapes git supports. Nested files lean
 * towards negations, so that a nearer source often re-includes what a farther
 * one ignores (the case a per-source "parent ignored" shortcut gets wrong).
 */
function randomPattern(random: () => number, nested: boolean): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const name = () => pick([...FOLDER_NAMES, ...FILE_NAMES]);
  const folder = () => pick(FOLDER_NAMES);
  if (nested && random() < 0.35) {
    return pick([() => `!${folder()}/`, () => `!${folder()}`, () => `!${name()}`, () => "!*/"])();
  }
  const shapes: (() => string)[] = [
    name,
    name,
    () => `!${name()}`,
    () => `${folder()}/`,
    () => `!${folder()}/`,
    () => `/${name()}`,
    () => `/${folder()}/`,
    () => `${folder()}/${name()}`,
    () => `**/${name()}`,
    () => `${folder()}/**`,
    () => `${folder()}/**/${name()}`,
    () => `**/${folder()}/*.js`,
    () => pick(["*.log", "*.LOG", "*.t?t", "[fg].*", "*.txt", "!*.txt", "*", "!*/", "*/"]),
    () => pick(["!keep.txt", "!*.md", "!Main.rs", "*.gen.ts", "!/b", "# a comment", ""]),
    () => `${name()}   `,
    () => `${folder()}/*`,
  ];
  return pick(shapes)();
}

interface GeneratedTree {
  /** Relative path → content; folders are created by their files. */
  readonly files: Record<string, string>;
  /** Every path to check, folders ending with `/`. */
  readonly entries: string[];
  readonly exclude: string;
}

function generateTree(seed: number): GeneratedTree {
  const random = prng(seed);
  const files: Record<string, string> = {};
  const entries: string[] = [];
  const rules = (count: number, nested: boolean) =>
    Array.from({ length: count }, () => randomPattern(random, nested)).join("\n") + "\n";
  const fill = (folder: string, depth: number) => {
    const prefix = folder === "" ? "" : `${folder}/`;
    if (folder === "" || random() < 0.45) {
      files[`${prefix}.gitignore`] = rules(1 + Math.floor(random() * 5), folder !== "");
      entries.push(`${prefix}.gitignore`);
    }
    const fileCount = 2 + Math.floor(random() * 5);
    for (let i = 0; i < fileCount; i++) {
      const name = FILE_NAMES[Math.floor(random() * FILE_NAMES.length)];
      if (`${prefix}${name}` in files) continue;
      files[`${prefix}${name}`] = "";
      entries.push(`${prefix}${name}`);
    }
    if (depth >= 4) return;
    const folderCount = [5, 3, 2, 2][depth] + Math.floor(random() * 2);
    const used = new Set<string>();
    for (let i = 0; i < folderCount; i++) {
      const name = FOLDER_NAMES[Math.floor(random() * FOLDER_NAMES.length)];
      if (used.has(name) || `${prefix}${name}` in files) continue;
      used.add(name);
      entries.push(`${prefix}${name}/`);
      fill(`${prefix}${name}`, depth + 1);
    }
  };
  fill("", 0);
  return { files, entries, exclude: rules(1 + Math.floor(random() * 3), false) };
}

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

Deno.test("IgnoreRules agrees with git check-ignore on generated trees", async () => {
  let checked = 0;
  let ignored = 0;
  for (const seed of SEEDS) {
    const tree = generateTree(seed);
    assert.ok(tree.entries.length >= 150, `seed ${seed}: only ${tree.entries.length} paths`);
    await withProject(tree.files, async (root) => {
      await writeFiles(root, { ".git/info/exclude": tree.exclude });
      ignored += await assertAgreesWithGit(root, tree.entries);
    }, { git: true });
    checked += tree.entries.length;
  }
  // The trees must test both answers, not agree on "nothing is ignored".
  assert.ok(ignored > checked / 5 && ignored < (checked * 4) / 5, `${ignored} of ${checked}`);
  console.log(`    ${checked} paths checked, ${ignored} ignored`);
});

Deno.test("IgnoreRules with ignoreCase agrees with git -c core.ignorecase=true (ASCII names)", async () => {
  for (const seed of SEEDS.slice(0, 6)) {
    const tree = generateTree(seed * 7919);
    await withProject(tree.files, async (root) => {
      await writeFiles(root, { ".git/info/exclude": tree.exclude });
      await assertAgreesWithGit(root, tree.entries, true);
    }, { git: true });
  }
});
