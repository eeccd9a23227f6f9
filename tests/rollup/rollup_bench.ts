/**
 * How fast the rollup is made for the largest project a model takes (2,000
 * files, 4 MB: about 1M tokens), next to git listing the same files and
 * `cat` reading them (`git ls-files -z -co --exclude-standard | xargs -0
 * cat`): `deno task bench` (or `deno bench -P tests/rollup/rollup_bench.ts`).
 * Every file is tracked (the usual state of a project). Both make the same
 * set of files (checked before the benches run).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { makeRollup } from "../../lib/rollup/rollup.ts";
import { writeFiles } from "../support/project.ts";

const base = await Deno.makeTempDir({ prefix: "code-commit-rollup-bench-" });
const root = join(base, "project");
const home = join(base, "home");
await Deno.mkdir(root);
await Deno.mkdir(home);
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const line = "export const value = 'abcdefghijklmnopqrstuvwxyz0123456789';\n"; // 62 bytes
const content = line.repeat(33).slice(0, 1_999) + "\n"; // 2,000 bytes
await writeFiles(
  root,
  Object.fromEntries(
    Array.from(
      { length: 2_000 },
      (_, i) => [`src/module${i % 40}/part${i % 7}/file${i}.ts`, content],
    ),
  ),
);

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

const options = { group: "rollup of a 2,000-file, 4 MB project", n: 20, warmup: 2 };

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
