/**
 * The overhead of containment: a trivial `./build.sh` (`exit 0`) run by
 * the build runner as it is, and inside bubblewrap the way every contained
 * build is started (the project's protected entries found on disk, then
 * `bwrap`). docs/sandbox.md quotes the difference.
 */
import { join } from "node:path";
import type { HostView } from "../../lib/sandbox/bubblewrap.ts";
import { runBuild } from "../../lib/build/run_build.ts";
import { buildLaunch, type Containment } from "../../lib/sandbox/containment.ts";
import { planSandbox } from "../../lib/sandbox/sandbox_plan.ts";
import { scanProject } from "../../lib/sandbox/project_scan.ts";
import { BWRAP, BWRAP_MISSING } from "../support/sandbox.ts";

/** A probe that found nothing to hide. */
const NO_HOST: HostView = { hidden: [], boundBack: [], varRunIsFolder: false };

const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "code-commit-bench-" }));
await Deno.writeTextFile(join(root, "build.sh"), "#!/bin/sh\nexit 0\n");
await Deno.chmod(join(root, "build.sh"), 0o755);
await Deno.writeTextFile(join(root, ".gitignore"), "/agent-config\n/logs\n");
await Deno.mkdir(join(root, "agent-config"));
await Deno.mkdir(join(root, ".git"));
await Deno.mkdir(join(root, "src"));
await Deno.writeTextFile(join(root, "src/main.ts"), "console.log(1);\n");
globalThis.addEventListener("unload", () => Deno.removeSync(root, { recursive: true }));

const program = BWRAP ?? "/usr/bin/bwrap";
const contained: Containment = {
  kind: "bubblewrap",
  network: "on",
  program,
  host: NO_HOST,
};
const noNetwork: Containment = {
  kind: "bubblewrap",
  network: "off",
  program,
  host: NO_HOST,
};

/** The launch of one contained build, as the build step makes it: a walk, a plan, the command. */
async function launch(containment: Containment) {
  return await buildLaunch(containment, await scanProject(root, { hardLinks: true }));
}

Deno.bench("trivial build, not contained", { group: "containment", baseline: true }, async () => {
  await runBuild(root, { timeoutMs: 60_000 });
});

Deno.bench(
  "trivial build, contained by bubblewrap (network on)",
  { group: "containment", ignore: BWRAP_MISSING !== undefined },
  async () => {
    await runBuild(root, { timeoutMs: 60_000, launch: await launch(contained) });
  },
);

Deno.bench(
  "trivial build, contained by bubblewrap (no network)",
  { group: "containment", ignore: BWRAP_MISSING !== undefined },
  async () => {
    await runBuild(root, { timeoutMs: 60_000, launch: await launch(noNetwork) });
  },
);

const toolRoot = new URL("../../", import.meta.url).pathname;

Deno.bench("find the protected entries of a small project", { group: "plan" }, async () => {
  await planSandbox(root);
});

Deno.bench("find the protected entries of code-commit's own tree", { group: "plan" }, async () => {
  await planSandbox(toolRoot);
});
