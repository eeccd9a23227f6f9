/**
 * What the walks around every build cost on a large project: 100,000 files
 * in an ignored `node_modules/` (which only the hard-link scan opens), and
 * 100,000 files in folders git reads. docs/sandbox.md quotes the figures.
 */
import { join } from "node:path";
import {
  checkAfterBuild,
  snapshotBeforeBuild,
  snapshotBuildScript,
} from "../../lib/preconditions/tamper_check.ts";
import { planSandbox } from "../../lib/sandbox/sandbox_plan.ts";
import { scanProject } from "../../lib/sandbox/project_scan.ts";

/** A project of 100,000 small files: 2,000 folders of 50, under `folder`. */
async function largeProject(folder: string, gitignore: string): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "code-commit-large-" }));
  Deno.writeTextFileSync(join(root, ".gitignore"), gitignore);
  Deno.mkdirSync(join(root, ".git"));
  Deno.mkdirSync(join(root, "agent-config"));
  for (let p = 0; p < 2_000; p++) {
    const dir = join(root, folder, `group${p % 20}`, `pkg${p}`, "lib");
    Deno.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 50; f++) Deno.writeTextFileSync(join(dir, `f${f}.js`), "x\n");
  }
  for (let g = 0; g < 20; g++) {
    Deno.writeTextFileSync(join(root, folder, `group${g}`, ".gitignore"), "*.tmp\n");
  }
  return root;
}

const ignored = await largeProject("node_modules", "/agent-config\n/logs\nnode_modules/\n");
const read = await largeProject("src", "/agent-config\n/logs\n");
globalThis.addEventListener("unload", () => {
  Deno.removeSync(ignored, { recursive: true });
  Deno.removeSync(read, { recursive: true });
});
const readBefore = await snapshotBeforeBuild(read, await scanProject(read));
const noBuildScript = await snapshotBuildScript(read);

Deno.bench("100,000 files in an ignored node_modules/: the snapshot and the check after", {
  group: "ignored",
  baseline: true,
}, async () => {
  const before = await snapshotBeforeBuild(ignored, await scanProject(ignored));
  await checkAfterBuild(ignored, noBuildScript, before);
});

Deno.bench("100,000 files in an ignored node_modules/: the plan (hard-link scan)", {
  group: "ignored",
}, async () => {
  await planSandbox(ignored);
});

Deno.bench("100,000 files git reads: the snapshot before a build", {
  group: "read",
  baseline: true,
}, async () => {
  await snapshotBeforeBuild(read, await scanProject(read));
});

Deno.bench("100,000 files git reads: the check after a build", { group: "read" }, async () => {
  await checkAfterBuild(read, noBuildScript, readBefore);
});

Deno.bench("100,000 files git reads: the plan (hard-link scan)", { group: "read" }, async () => {
  await planSandbox(read);
});
