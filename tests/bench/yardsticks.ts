/**
 * code-commit's time and peak memory at the sizes a model can take and
 * give, each the median of several runs of the real tool (as the launcher
 * `build.sh` makes runs it: `deno run` of main.ts, with the tool's flags)
 * against the fake LLM server on loopback,
 * which answers at once: `deno task bench` prints the table of
 * `docs/benchmarks.md` (then runs the `*_bench.ts` micro-benchmarks).
 *
 * - start-up: `code-commit --version` against a hello-world Deno process,
 *   and `codex --version` / `gemini --version` where they are on `PATH`;
 * - a one-shot run: a 1-file reply, a 1-file rollup, a trivial `./build.sh`;
 * - `--rollup` of a 2,000-file, 4 MB project (about 1M tokens, the largest
 *   prompt a model takes), against `git ls-files -z | xargs -0 cat`;
 * - a one-shot run on that project (its rollup remade first, as every run
 *   does) whose reply writes 52 files, 512 KB (about 128k tokens, the
 *   longest reply a model gives);
 * - where Codex and Gemini CLI are on `PATH`, a one-shot `codex exec` and
 *   `gemini -p` against a loopback stand-in of their APIs (streamed: the
 *   fake LLM server answers only the requests code-commit makes) that
 *   answers one word at once, each with a fresh `HOME`.
 *
 * `BENCH_RUNS` sets how many times each is measured (default 7).
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { makeProject } from "../support/project.ts";
import { RUN_FLAGS } from "../../lib/permissions/permissions.ts";

const TOOL = fileURLToPath(new URL("../../", import.meta.url));
const RUNS = Number(Deno.env.get("BENCH_RUNS") ?? 7);
const decoder = new TextDecoder();

/** Files in the large project, and bytes in each: 2,000 × 2,000 = 4 MB. */
const PROJECT_FILES = 2_000;
const BYTES_PER_FILE = 2_000;
/** Files the large reply writes, and bytes in each: 52 × 10,000 ≈ 512 KB. */
const REPLY_FILES = 52;
const BYTES_PER_REPLY_FILE = 10_000;

const line = "export const value = 'abcdefghijklmnopqrstuvwxyz0123456789';\n"; // 62 bytes
/** Text of exactly `bytes` bytes, ending with a newline. */
const text = (bytes: number) =>
  line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes - 1) + "\n";
const pathOf = (i: number) => `src/module${i % 40}/part${i % 7}/file${i}.ts`;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
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

/** One measured run: wall time in milliseconds, peak resident memory in MiB. */
interface Sample {
  readonly ms: number;
  readonly mib: number;
}

/**
 * Runs `program` under `/usr/bin/time` `RUNS` times after one warm-up
 * (`before` runs untimed ahead of each): the median time and peak memory.
 *
 * @throws {Error} when a run fails.
 */
async function measure(
  program: string,
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; before?: () => Promise<unknown> } = {},
): Promise<Sample> {
  const samples: Sample[] = [];
  for (let index = 0; index <= RUNS; index++) {
    await options.before?.();
    const started = performance.now();
    const result = await run("/usr/bin/time", ["-f", "%M", program, ...args], options);
    const ms = performance.now() - started;
    if (result.code !== 0) {
      throw new Error(`${program} ${args.join(" ")} failed: ${result.stderr.slice(-2000)}`);
    }
    const kib = Number(result.stderr.trim().split("\n").at(-1));
    if (index > 0) samples.push({ ms, mib: kib / 1024 }); // the first warms the caches
  }
  return { ms: median(samples.map((s) => s.ms)), mib: median(samples.map((s) => s.mib)) };
}

/**
 * A script in `folder` that runs the tool as `./code-commit`'s launcher runs it (`deno run` of
 * main.ts with the tool's flags), from the dependency cache this process uses; returns its path.
 */
async function makeLauncher(folder: string): Promise<string> {
  const launcher = join(folder, "code-commit");
  const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
  const command = [
    Deno.execPath(),
    "run",
    "--quiet",
    "--cached-only",
    "--frozen",
    "--config",
    join(TOOL, "deno.json"),
    ...RUN_FLAGS,
    join(TOOL, "main.ts"),
  ];
  await Deno.writeTextFile(launcher, `#!/bin/sh\nexec ${command.map(quote).join(" ")} "$@"\n`);
  await Deno.chmod(launcher, 0o755);
  return launcher;
}

/** A CLI's `--version`, when the CLI is installed (on PATH); undefined otherwise. */
async function versionOf(program: string): Promise<Sample | undefined> {
  try {
    if ((await run(program, ["--version"])).code !== 0) return undefined;
  } catch {
    return undefined; // not installed
  }
  return await measure(program, ["--version"]);
}

const rows: string[][] = [];
const show = (s: Sample) => `${s.ms.toFixed(0)} ms`;
const memory = (s: Sample) => `${s.mib.toFixed(0)} MiB`;

const base = await Deno.makeTempDir({ prefix: "code-commit-yardsticks-" });
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const tool = await makeLauncher(await Deno.makeTempDir({ dir: base }));
// Read with cat: Deno asks for every permission to read /proc.
const load =
  (await run("cat", ["/proc/loadavg"]).catch(() => ({ stdout: "?" }))).stdout.split(" ")[0];
console.log(
  `${Deno.build.os} ${Deno.build.arch}, ${navigator.hardwareConcurrency} cores, Deno ` +
    `${Deno.version.deno}, load average ${load} at the start; medians of ${RUNS} runs; the tool ` +
    `run as ./code-commit's launcher runs it (main.ts)\n`,
);

// --- start-up ---------------------------------------------------------------------------------

const hello = join(base, "hello.ts");
await Deno.writeTextFile(hello, 'console.log("hello");\n');
const helloRun = await measure(Deno.execPath(), ["run", hello]);
rows.push(["Deno hello world", show(helloRun), memory(helloRun)]);
const version = await measure(tool, ["--version"], { cwd: base });
rows.push(["`code-commit --version`", show(version), memory(version)]);
for (const cli of ["codex", "gemini"]) {
  const sample = await versionOf(cli);
  if (sample !== undefined) rows.push([`\`${cli} --version\``, show(sample), memory(sample)]);
}

// --- one-shot runs ----------------------------------------------------------------------------

const env = (server: { env: Record<string, string> }) => ({ NO_COLOR: "1", ...server.env });

{
  const small = "^^^src/a.txt\nhello\n^^^end\n";
  const server = await startFakeLlmServer(
    Array.from({ length: RUNS + 1 }, () => geminiReply(small)),
  );
  try {
    const project = await makeProject({
      files: { "src/a.txt": "hi\n" },
      rollup: "--- src/a.txt ---\nhi\n",
    });
    const sample = await measure(tool, ["--sandbox", "off"], {
      cwd: project.root,
      env: env(server),
      before: () => run("git", ["checkout", "-q", "--", "src/a.txt"], { cwd: project.root }),
    });
    rows.push([
      "one-shot run: 1-file rollup, 1-file reply, trivial build, `--sandbox off`",
      show(sample),
      memory(sample),
    ]);
    await Deno.remove(project.root, { recursive: true });
  } finally {
    await server.close();
  }
}

{
  const files: Record<string, string> = {};
  for (let i = 0; i < PROJECT_FILES; i++) files[pathOf(i)] = text(BYTES_PER_FILE);
  const project = await makeProject({ files });
  const cwd = project.root;
  const cat = await measure("sh", ["-c", "git ls-files -z | xargs -0 cat >/dev/null"], { cwd });
  const rollup = await measure(tool, ["--rollup"], { cwd });
  const said = await run(tool, ["--rollup"], { cwd });
  const summary = `${said.stdout}${said.stderr}`.trim();
  rows.push([
    `\`code-commit --rollup\`: ${summary.replace(/^.*codeRollup\.txt: /, "").split(";")[0]}`,
    show(rollup),
    memory(rollup),
  ]);
  rows.push(["`git ls-files -z | xargs -0 cat` of the same files", show(cat), memory(cat)]);
  await run("git", ["add", "-A"], { cwd });
  await run("git", ["commit", "-q", "-m", "rollup"], { cwd });

  // Half the reply replaces files of the project, half makes new ones.
  const reply = Array.from(
    { length: REPLY_FILES },
    (_, i) =>
      `^^^${i % 2 === 0 ? pathOf(i) : `src/new/file${i}.ts`}\n${
        text(BYTES_PER_REPLY_FILE)
      }^^^end\n`,
  )
    .join("");
  const server = await startFakeLlmServer(
    Array.from({ length: RUNS + 1 }, () => geminiReply(reply)),
  );
  try {
    const restore = async () => {
      await run("git", ["checkout", "-q", "--", "."], { cwd });
      await run("git", ["clean", "-qfd", "src"], { cwd });
    };
    const sample = await measure(tool, ["--sandbox", "off"], {
      cwd,
      env: env(server),
      before: restore,
    });
    rows.push([
      `one-shot run on that project (rollup remade) with a ${REPLY_FILES}-file, ` +
      `${(reply.length / 1024).toFixed(0)} KiB reply, trivial build, \`--sandbox off\``,
      show(sample),
      memory(sample),
    ]);
  } finally {
    await server.close();
    await Deno.remove(cwd, { recursive: true });
  }
}

// --- other CLIs, one-shot ---------------------------------------------------------------------

/**
 * A loopback stand-in for the streamed APIs Codex (OpenAI Responses) and
 * Gemini CLI (`streamGenerateContent`) call: one word, at once.
 */
function startStandIn(): { url: string; close: () => Promise<void> } {
  const gemini = {
    candidates: [{ content: { parts: [{ text: "hello" }], role: "model" }, finishReason: "STOP" }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1, totalTokenCount: 11 },
  };
  const responses = [
    { type: "response.created", response: { id: "resp_1" } },
    {
      type: "response.output_item.done",
      output_index: 0,
      item: {
        type: "message",
        role: "assistant",
        id: "msg_1",
        content: [{ type: "output_text", text: "hello", annotations: [] }],
      },
    },
    {
      type: "response.completed",
      response: {
        id: "resp_1",
        usage: {
          input_tokens: 10,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 1,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 11,
        },
      },
    },
  ];
  const sse = { "content-type": "text/event-stream" };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.text();
    const path = new URL(request.url).pathname;
    if (path.endsWith("/responses")) {
      const events = responses.map((event) =>
        `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`
      );
      return new Response(events.join(""), { headers: sse });
    }
    if (path.includes(":streamGenerateContent")) {
      return new Response(`data: ${JSON.stringify(gemini)}\r\n\r\n`, { headers: sse });
    }
    return Response.json({ error: { code: 404, message: "not here" } }, { status: 404 });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

if (rows.some((row) => row[0].startsWith("`codex") || row[0].startsWith("`gemini"))) {
  const standIn = startStandIn();
  try {
    const home = await Deno.makeTempDir({ dir: base, prefix: "home-" });
    const project = await Deno.makeTempDir({ dir: base, prefix: "cli-project-" });
    await run("git", ["init", "-q"], { cwd: project });
    await Deno.mkdir(join(home, ".codex"));
    await Deno.writeTextFile(
      join(home, ".codex/config.toml"),
      `model = "gpt-5"\nmodel_provider = "local"\n\n[model_providers.local]\nname = "local"\n` +
        `base_url = "${standIn.url}/v1"\nwire_api = "responses"\nenv_key = "LOCAL_KEY"\n`,
    );
    await Deno.mkdir(join(home, ".gemini"));
    await Deno.writeTextFile(
      join(home, ".gemini/settings.json"),
      JSON.stringify({
        security: { auth: { selectedType: "gemini-api-key" } },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      }),
    );
    const env = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      CODEX_HOME: join(home, ".codex"),
      LOCAL_KEY: "fake",
      GEMINI_API_KEY: "fake",
      GOOGLE_GEMINI_BASE_URL: standIn.url,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    };
    const clis: [string, string, string[]][] = [
      ["codex", "`codex exec --skip-git-repo-check 'say hello'`", [
        "exec",
        "--skip-git-repo-check",
        "say hello",
      ]],
      ["gemini", "`gemini -p 'say hello'`", ["-p", "say hello", "-m", "gemini-2.5-pro"]],
    ];
    for (const [cli, what, args] of clis) {
      if (!rows.some((row) => row[0] === `\`${cli} --version\``)) continue;
      try {
        const sample = await measure(cli, args, { cwd: project, env });
        rows.push([`${what} (one word from a loopback stand-in)`, show(sample), memory(sample)]);
      } catch (error) {
        rows.push([`${what}: failed (${String(error).split("\n")[0].slice(0, 80)})`, "—", "—"]);
      }
    }
  } finally {
    await standIn.close();
  }
}

// --- the table ---------------------------------------------------------------------------------

const header = ["what", "time", "peak memory"];
// A `|` inside a cell (a shell pipe) is escaped, as a markdown table needs.
const cell = (value: string) => value.replaceAll(" | ", " \\| ");
const widths = header.map((_, column) =>
  Math.max(...[header, ...rows].map((row) => cell(row[column]).length))
);
const format = (row: string[]) =>
  `| ${row.map((value, column) => cell(value).padEnd(widths[column])).join(" | ")} |`;
console.log(format(header));
console.log(`| ${widths.map((width) => "-".repeat(width)).join(" | ")} |`);
for (const row of rows) console.log(format(row));
