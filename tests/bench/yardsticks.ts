/**
 * code-commit's figures beside their yardsticks, all measured in one run on
 * this machine, each the median of several: `deno task bench` prints this
 * table first (then runs the `*_bench.ts` micro-benchmarks). Issue 12's
 * goals are printed beside each ratio, with whether it holds.
 *
 * - start-up: `code-commit --version`, `--help` and a usage error (every
 *   run of the tool here goes through the launcher `build.sh` makes when it
 *   cannot compile, made in a temporary folder: `deno run` of the bundle,
 *   with the tool's permissions) against a hello-world Deno process, and
 *   `codex --version` where Codex is installed;
 * - a one-shot run (a 1-file reply from a loopback model that answers at
 *   once, a trivial `./build.sh`), `--sandbox off` and `--sandbox auto`,
 *   time and peak memory;
 * - parsing a 2,000-file, 20 MB reply, against `cat` of the same reply;
 *   guarding its 2,000 paths, against `git check-ignore` of them;
 * - the project walk of a 100,000-file tree with nested `.gitignore` files,
 *   against `git ls-files -co --exclude-standard`, and `--rollup` of it
 *   against `git ls-files -z -co --exclude-standard | xargs -0 cat`;
 * - a whole run whose reply writes those 2,000 files, against `tar -x` of
 *   them (`big_reply.ts`), and its extra peak memory against the reply's
 *   size.
 *
 * `BENCH_RUNS` sets how many times each is measured (default 11).
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { guardOperations } from "../../lib/guard/guard.ts";
import { IgnoreRules } from "../../lib/guard/ignore_rules.ts";
import { walkTree } from "../../lib/project_files/walk.ts";
import { parseReply } from "../../lib/reply/parse.ts";
import { formatCount } from "../../lib/text/numbers.ts";
import { BENCH_TREE, countFiles, generateTree } from "../project_files/generated_tree.ts";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { makeProject } from "../support/project.ts";
import { BIG_REPLY, BIG_REPLY_FILES, measureBigReply } from "./big_reply.ts";

const TOOL = fileURLToPath(new URL("../../", import.meta.url));
const RUNS = Number(Deno.env.get("BENCH_RUNS") ?? 11);
const decoder = new TextDecoder();

/** One row of the table. */
interface Row {
  readonly what: string;
  readonly figure: string;
  readonly yardstick: string;
  readonly ratio: string;
  readonly goal: string;
}
const rows: Row[] = [];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The median time of `fn` over `runs` runs, after one warm-up, in milliseconds. */
async function timed(fn: () => Promise<unknown> | unknown, runs = RUNS): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return median(times);
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(
  program: string,
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  const output = await new Deno.Command(program, {
    args: [...args],
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** The peak resident memory of a run, in MiB (from /usr/bin/time), or undefined without it. */
async function peakMiB(
  program: string,
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<number | undefined> {
  try {
    const result = await run("/usr/bin/time", ["-f", "%M", program, ...args], options);
    const kib = Number(result.stderr.trim().split("\n").at(-1));
    return Number.isFinite(kib) ? kib / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `./code-commit` as the build makes it when it cannot compile: the launcher
 * of `scripts/make_launcher.sh`, running the bundle (made here, in `folder`).
 *
 * @throws {Error} when the launcher cannot be made.
 */
async function makeLauncher(folder: string): Promise<{ launcher: string; entry: string }> {
  const launcher = join(folder, "code-commit");
  const bundle = join(folder, "bundle");
  const made = await run(join(TOOL, "scripts/make_launcher.sh"), [
    Deno.execPath(),
    launcher,
    bundle,
  ]);
  if (made.code !== 0) throw new Error(`make_launcher.sh failed: ${made.stderr}`);
  const text = await Deno.readTextFile(launcher);
  const entry = text.includes(join(bundle, "main.js"))
    ? join(bundle, "main.js")
    : join(TOOL, "main.ts");
  return { launcher, entry };
}

const ms = (value: number) =>
  value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(1)} ms`;
const times = (value: number) => `${value.toFixed(2)}×`;
const holds = (ok: boolean) => (ok ? "holds" : "MISSED");

const base = await Deno.makeTempDir({ prefix: "code-commit-yardsticks-" });
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const { launcher: tool, entry } = await makeLauncher(await Deno.makeTempDir({ dir: base }));
const load =
  (await run("cat", ["/proc/loadavg"]).catch(() => ({ stdout: "?" }))).stdout.split(" ")[0];
console.log(
  `code-commit yardsticks: ${Deno.build.os} ${Deno.build.arch}, ${navigator.hardwareConcurrency} ` +
    `cores, Deno ${Deno.version.deno}, ${(await run("git", ["--version"])).stdout.trim()}; ` +
    `load average ${load} at the start; medians of ${RUNS} runs; the tool run as ./code-commit's ` +
    `launcher runs it (${
      entry.endsWith("main.js") ? "the bundle" : "main.ts: deno bundle failed"
    })`,
);

// --- start-up ---------------------------------------------------------------------------

const hello = join(base, "hello.ts");
await Deno.writeTextFile(hello, 'console.log("hello");\n');
const deno = Deno.execPath();
const helloMs = await timed(() => run(deno, ["run", hello]));
const versionMs = await timed(() => run(tool, ["--version"], { cwd: base }));
const helpMs = await timed(() => run(tool, ["--help"], { cwd: base }));
const usageMs = await timed(() => run(tool, ["--no-such-flag"], { cwd: base }));
let codexMs: number | undefined;
try {
  if ((await run("codex", ["--version"])).code === 0) {
    codexMs = await timed(() => run("codex", ["--version"]));
  }
} catch {
  codexMs = undefined; // not installed
}
const versionMiB = await peakMiB(tool, ["--version"], { cwd: base });
const helloMiB = await peakMiB(deno, ["run", hello]);
rows.push({
  what: "`code-commit --version`",
  figure: `${ms(versionMs)}${versionMiB ? `, ${versionMiB.toFixed(0)} MiB` : ""}`,
  yardstick: `Deno hello world ${ms(helloMs)}${helloMiB ? `, ${helloMiB.toFixed(0)} MiB` : ""}`,
  ratio: times(versionMs / helloMs),
  goal: `≤ 2× the floor: ${holds(versionMs <= 2 * helloMs)}`,
});
if (codexMs !== undefined) {
  rows.push({
    what: "`code-commit --version`",
    figure: ms(versionMs),
    yardstick: `\`codex --version\` ${ms(codexMs)}`,
    ratio: times(versionMs / codexMs),
    goal: `≤ 0.3× Codex: ${holds(versionMs <= 0.3 * codexMs)}`,
  });
}
rows.push({
  what: "`code-commit --help` / a usage error",
  figure: `${ms(helpMs)} / ${ms(usageMs)}`,
  yardstick: `Deno hello world ${ms(helloMs)}`,
  ratio: `${times(helpMs / helloMs)} / ${times(usageMs / helloMs)}`,
  goal: `load only the command line`,
});

// --- one-shot run ---------------------------------------------------------------------------

const oneShots = 2 * (RUNS + 1) + 2;
const server = await startFakeLlmServer(
  Array.from({ length: oneShots }, () => geminiReply("^^^src/a.txt\nhello\n^^^end\n")),
);
try {
  const project = await makeProject({
    files: { "src/a.txt": "hi\n" },
    rollup: "--- src/a.txt ---\nhi\n",
  });
  const env = { NO_COLOR: "1", ...server.env };
  for (const sandbox of ["off", "auto"]) {
    const args = ["--sandbox", sandbox];
    // Each run starts from the committed file (restored between runs, not timed).
    const samples: number[] = [];
    for (let index = 0; index <= RUNS; index++) {
      await run("git", ["checkout", "-q", "--", "src/a.txt"], { cwd: project.root });
      const started = performance.now();
      const result = await run(tool, args, { cwd: project.root, env });
      if (result.code !== 0) throw new Error(`one-shot run failed: ${result.stderr}`);
      if (index > 0) samples.push(performance.now() - started); // the first warms the caches
    }
    const oneShotMs = median(samples);
    await run("git", ["checkout", "-q", "--", "src/a.txt"], { cwd: project.root });
    const oneShotMiB = await peakMiB(tool, args, { cwd: project.root, env });
    rows.push({
      what: `one-shot run, \`--sandbox ${sandbox}\` (1-file reply, instant loopback model, ` +
        "trivial build)",
      figure: `${ms(oneShotMs)}${oneShotMiB ? `, ${oneShotMiB.toFixed(0)} MiB` : ""}`,
      yardstick: `Deno hello world ${ms(helloMs)}`,
      ratio: times(oneShotMs / helloMs),
      goal: `≤ 130 ms (0.65× of 0.2 s before): ${holds(oneShotMs <= 130)}` +
        (oneShotMiB === undefined ? "" : `; ≤ 55 MiB: ${holds(oneShotMiB <= 55)}`),
    });
  }
  await Deno.remove(project.root, { recursive: true });
} finally {
  await server.close();
}

// --- walk and rollup of a 100,000-file tree ----------------------------------------------------

const tree = join(base, "tree");
await Deno.mkdir(tree);
await generateTree(tree, BENCH_TREE);
// The new files are written out first: their write-back would otherwise compete with the walks.
await run("sync", []);
const gitEnv = {
  PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  HOME: base,
  XDG_CONFIG_HOME: base,
  GIT_CONFIG_NOSYSTEM: "1",
};
const sh = (script: string) => run("sh", ["-c", script], { cwd: tree, env: gitEnv });
await sh("git init -q");
const walkFiles = async () =>
  (await walkTree(tree, "", await IgnoreRules.load(tree))).folders.reduce(
    (sum, folder) => sum + folder.files.length,
    0,
  );
const listed = (await sh("git ls-files -co --exclude-standard")).stdout.split("\n").filter((p) =>
  p
);
const walked = await walkFiles();
if (walked !== listed.length) {
  throw new Error(`the walk lists ${walked} files, git ${listed.length}`);
}
const walkMs = await timed(walkFiles);
const lsFilesMs = await timed(() => sh("git ls-files -co --exclude-standard >/dev/null"));
rows.push({
  what:
    `walk a ${formatCount(countFiles(BENCH_TREE))}-file tree with nested \`.gitignore\` files ` +
    `(${formatCount(walked)} files listed)`,
  figure: ms(walkMs),
  yardstick: `\`git ls-files -co --exclude-standard\` ${ms(lsFilesMs)}`,
  ratio: times(walkMs / lsFilesMs),
  goal: `≤ 2×: ${holds(walkMs <= 2 * lsFilesMs)}`,
});

await sh("git add -A");
const rollupRuns = Math.max(3, Math.ceil(RUNS / 3));
const catAllMs = await timed(
  () => sh("git ls-files -z -co --exclude-standard | xargs -0 cat >/dev/null"),
  rollupRuns,
);
// The command as a user runs it: its own process, the tool's permissions, the file written.
const rollupCommandMs = await timed(async () => {
  const result = await run(tool, ["--rollup"], { cwd: tree });
  if (result.code !== 0) throw new Error(`--rollup failed: ${result.stderr}`);
}, rollupRuns);
// The same command with every permission: Deno then checks no path at all (with any --allow-read,
// even an unscoped one, it checks each path it opens or stats).
const broad = [
  "run",
  "--quiet",
  "--cached-only",
  "--config",
  join(TOOL, "deno.json"),
  "--allow-all",
  entry,
  "--rollup",
];
const rollupMs = await timed(async () => {
  const result = await run(deno, broad, { cwd: tree });
  if (result.code !== 0) throw new Error(`--rollup failed: ${result.stderr}`);
}, rollupRuns);
rows.push({
  what: "`code-commit --rollup` of that tree, every file tracked",
  figure: ms(rollupCommandMs),
  yardstick: `\`git ls-files -z -co --exclude-standard | xargs -0 cat\` ${ms(catAllMs)}`,
  ratio: times(rollupCommandMs / catAllMs),
  goal: `≤ 2×: ${holds(rollupCommandMs <= 2 * catAllMs)}`,
});
rows.push({
  what: "the same, run with `--allow-all` (no permission check at all)",
  figure: ms(rollupMs),
  yardstick: `the same ${ms(catAllMs)}`,
  ratio: times(rollupMs / catAllMs),
  goal: "(where the command's time goes)",
});

// --- a 2,000-file, 20 MB reply ---------------------------------------------------------------

const FILES = BIG_REPLY_FILES;
const reply = BIG_REPLY;
const replyFile = join(base, "reply.txt");
await Deno.writeTextFile(replyFile, reply);
const megabytes = reply.length / 1e6;
const parseMs = await timed(() => parseReply(reply));
const catMs = await timed(() => run("cat", [replyFile]));
rows.push({
  what: `parse a ${formatCount(FILES)}-file, ${megabytes.toFixed(0)} MB reply`,
  figure: `${ms(parseMs)} (${(megabytes / (parseMs / 1000)).toFixed(0)} MB/s)`,
  yardstick: `\`cat\` of it ${ms(catMs)}`,
  ratio: times(parseMs / catMs),
  goal: `≥ 500 MB/s: ${holds(megabytes / (parseMs / 1000) >= 500)}`,
});

const parsed = parseReply(reply);
if (!parsed.ok) throw new Error(parsed.reason);
const guardRoot = join(base, "guard");
await Deno.mkdir(guardRoot);
await Deno.writeTextFile(join(guardRoot, ".gitignore"), "/agent-config\nnode_modules/\n*.log\n");
for (let m = 0; m < 40; m++) {
  await Deno.mkdir(join(guardRoot, `src/module${m}`), { recursive: true });
  await Deno.writeTextFile(
    join(guardRoot, `src/module${m}/.gitignore`),
    "*.tmp\n!keep.tmp\n/build/\n",
  );
}
await run("git", ["init", "-q"], { cwd: guardRoot });
const guardMs = await timed(async () => {
  const guarded = await guardOperations(guardRoot, parsed.operations);
  if (!guarded.ok) throw new Error("the guard refused the bench reply");
});
const paths = parsed.operations.map((operation) => operation.path);
const checkIgnoreMs = await timed(async () => {
  const child = new Deno.Command("git", {
    args: ["check-ignore", "--no-index", "--stdin", "-z", "-n", "-v"],
    cwd: guardRoot,
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(paths.map((path) => `${path}\0`).join("")));
  await writer.close();
  await child.status;
});
rows.push({
  what: `guard its ${formatCount(FILES)} paths (nested \`.gitignore\`, \`lstat\` of each folder)`,
  figure: ms(guardMs),
  yardstick: `\`git check-ignore --stdin\` of them ${ms(checkIgnoreMs)}`,
  ratio: times(guardMs / checkIgnoreMs),
  goal: `≤ 20 ms: ${holds(guardMs <= 20)}`,
});

// --- the whole run with that reply ------------------------------------------------------------

const big = await measureBigReply(tool, base, Math.max(3, Math.ceil(RUNS / 3)));
rows.push({
  what: `a run whose reply writes those ${formatCount(FILES)} files (${
    megabytes.toFixed(0)
  } MB): extra time over a 1-file run`,
  figure: `${ms(big.bigMs - big.smallMs)} (${ms(big.bigMs)} against ${ms(big.smallMs)})`,
  yardstick: `\`tar -x\` of the same files ${ms(big.tarMs)}`,
  ratio: `${times(big.ratio)} (rounds: ${big.ratios.map((ratio) => ratio.toFixed(1)).join(", ")})`,
  goal: `≤ 2× \`tar -x\`: ${holds(big.ratio <= 2)}`,
});
if (big.bigMiB !== undefined && big.smallMiB !== undefined) {
  const extra = big.bigMiB - big.smallMiB;
  rows.push({
    what: "the same run: extra peak memory over a 1-file run",
    figure: `${extra.toFixed(0)} MiB (${big.bigMiB.toFixed(0)} against ${
      big.smallMiB.toFixed(0)
    } MiB)`,
    yardstick: `the reply's size, ${big.replyMiB.toFixed(0)} MiB`,
    ratio: times(extra / big.replyMiB),
    goal: `≤ 3× the reply: ${holds(extra <= 3 * big.replyMiB)}`,
  });
}

// --- the table ---------------------------------------------------------------------------------

const header: Row = {
  what: "what",
  figure: "code-commit",
  yardstick: "yardstick (same run)",
  ratio: "ratio",
  goal: "goal (issue 12)",
};
const columns = ["what", "figure", "yardstick", "ratio", "goal"] as const;
// A `|` inside a cell (a shell pipe) is escaped, as a markdown table needs.
const cell = (text: string) => text.replaceAll(" | ", " \\| ");
const widths = columns.map((column) =>
  Math.max(...[header, ...rows].map((row) => cell(row[column]).length))
);
const format = (row: Row) =>
  `| ${columns.map((column, index) => cell(row[column]).padEnd(widths[index])).join(" | ")} |`;
console.log(format(header));
console.log(`| ${widths.map((width) => "-".repeat(width)).join(" | ")} |`);
for (const row of rows) console.log(format(row));
