/**
 * How fast the shared walk (the context builder's summary, the auto
 * workflow's module search) is on a large tree, next to git's own walk of
 * the same tree: `deno bench --allow-read --allow-write --allow-run
 * --allow-env tests/project_files/walk_bench.ts`.
 *
 * The tree (see `generated_tree.ts`) has 100,000 files: 80,000 under `src/`
 * in 840 folders, 4,000 of them ignored by `*.log`, and 20,000 in an ignored
 * `node_modules/`, which neither walk opens. Both walks list the same
 * 76,000 files (checked before the benches run).
 *
 * git runs with an empty index (every file untracked, so `--others` walks and
 * matches every path, as our walk does) and with an index holding every file
 * (the usual state of a project).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildSummary } from "../../lib/context_builder/summary.ts";
import { walkTree } from "../../lib/project_files/walk.ts";
import { IgnoreRules } from "../../lib/guard/ignore_rules.ts";
import { BENCH_TREE, countFiles, generateTree } from "./generated_tree.ts";

const base = await Deno.makeTempDir({ prefix: "code-commit-walk-bench-" });
const root = join(base, "project");
const home = join(base, "home");
await Deno.mkdir(root);
await Deno.mkdir(home);
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));

await generateTree(root, BENCH_TREE);
const fullIndex = join(base, "index-full");

async function git(args: string[], index?: string): Promise<string> {
  const output = await new Deno.Command("git", {
    args,
    cwd: root,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      XDG_CONFIG_HOME: home,
      GIT_CONFIG_NOSYSTEM: "1",
      ...(index === undefined ? {} : { GIT_INDEX_FILE: index }),
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(output.stderr)}`);
  }
  return new TextDecoder().decode(output.stdout);
}

const LS_FILES = ["ls-files", "--cached", "--others", "--exclude-standard", "-z"];
await git(["init", "-q"]);
await git(["add", "-A"], fullIndex);

async function ourFiles(): Promise<string[]> {
  const walk = await walkTree(root, "", await IgnoreRules.load(root));
  return walk.folders.flatMap((folder) => folder.files);
}

// Both walks see the same files, and they are as many as the tree says.
const gitFiles = (await git(LS_FILES)).split("\0").filter((path) => path !== "").sort();
assert.deepEqual((await ourFiles()).sort(), gitFiles);
assert.equal(countFiles(BENCH_TREE), 100_162);
assert.equal(gitFiles.length, 76_162);

const options = { group: "walk of a 100,000-file tree", n: 10, warmup: 2 } as const;

Deno.bench({
  ...options,
  name: "git ls-files --cached --others --exclude-standard (empty index)",
  baseline: true,
  async fn() {
    await git(LS_FILES);
  },
});

Deno.bench({
  ...options,
  name: "git ls-files --cached --others --exclude-standard (every file in the index)",
  async fn() {
    await git(LS_FILES, fullIndex);
  },
});

Deno.bench({
  ...options,
  name: "walkTree of the whole tree (ignore rules loaded each time)",
  async fn() {
    await ourFiles();
  },
});

Deno.bench({
  ...options,
  name: "buildSummary (the walk, plus reading 80 module documents)",
  async fn() {
    await buildSummary(root, await IgnoreRules.load(root));
  },
});
