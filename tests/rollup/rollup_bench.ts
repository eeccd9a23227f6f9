/**
 * How fast `--rollup` is on a large tree, next to git listing the same files
 * and `cat` reading them (`git ls-files -z -co --exclude-standard | xargs -0
 * cat`), the yardstick of issue 12: `deno task bench` (or `deno bench -P
 * tests/rollup/rollup_bench.ts`).
 *
 * The tree is the walk benchmark's (`generated_tree.ts`): 100,000 files,
 * 76,162 of them listed by git, every one tracked (the usual state of a
 * project). Both make the same set of files (checked before the benches run).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { makeRollup } from "../../lib/rollup/rollup.ts";
import { BENCH_TREE, generateTree } from "../project_files/generated_tree.ts";

const base = await Deno.makeTempDir({ prefix: "code-commit-rollup-bench-" });
const root = join(base, "project");
const home = join(base, "home");
await Deno.mkdir(root);
await Deno.mkdir(home);
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
await generateTree(root, BENCH_TREE);

const env = {
  PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  HOME: home,
  XDG_CONFIG_HOME: home,
  GIT_CONFIG_NOSYSTEM: "1",
};

async function sh(script: string): Promise<string> {
  const output = await new Deno.Command("sh", {
    args: ["-c", script],
    cwd: root,
    clearEnv: true,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) throw new Error(`${script}: ${new TextDecoder().decode(output.stderr)}`);
  return new TextDecoder().decode(output.stdout);
}

await sh("git init -q && git add -A");
const listed = (await sh("git ls-files -z -co --exclude-standard")).split("\0").filter((p) => p);
assert.deepEqual([...(await makeRollup(root)).files].sort(), listed.sort());

const options = { group: "rollup of a 100,000-file tree (76,162 files listed)", n: 5, warmup: 1 };

Deno.bench({
  ...options,
  name: "git ls-files -z -co --exclude-standard | xargs -0 cat",
  baseline: true,
  async fn() {
    await sh("git ls-files -z -co --exclude-standard | xargs -0 cat >/dev/null");
  },
});

Deno.bench({
  ...options,
  name: "makeRollup (listing, reading, blocks; not written)",
  async fn() {
    await makeRollup(root);
  },
});
