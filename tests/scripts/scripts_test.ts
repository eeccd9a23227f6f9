/**
 * The build's helper scripts: the launcher made when deno compile cannot
 * get a runtime, and the one line that says why.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import config from "../../deno.json" with { type: "json" };
import { RUN_FLAGS } from "../../lib/permissions/permissions.ts";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { makeProject, STATUS_BUILD } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";

const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));

async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    clearEnv: options.env !== undefined,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** Makes `folder/code-commit` with make_launcher.sh, its bundle in `folder/bundle`; returns its path. */
async function makeLauncher(folder: string): Promise<string> {
  const launcher = join(folder, "code-commit");
  const made = await run(join(TOOL_ROOT, "scripts/make_launcher.sh"), [
    Deno.execPath(),
    launcher,
    join(folder, "bundle"),
  ]);
  assert.equal(made.code, 0, made.stderr);
  return launcher;
}

Deno.test("the launcher works with another HOME: it pins the DENO_DIR the build filled", async () => {
  const folder = await Deno.makeTempDir({ prefix: "code-commit-launcher-" });
  try {
    const launcher = await makeLauncher(folder);
    const text = await Deno.readTextFile(launcher);
    assert(text.includes(`'${join(folder, "bundle", "main.js")}' "$@"`), text);
    assert.match(text, /^DENO_DIR='[^']+'; export DENO_DIR$/m);
    for (const flag of RUN_FLAGS) assert(text.includes(`'${flag}'`), flag);
    assert.match(text, / run --quiet --cached-only /);

    const home = join(folder, "another-home");
    await Deno.mkdir(home);
    const env = { PATH: "/usr/bin:/bin", HOME: home, NO_COLOR: "1" };
    const version = await run(launcher, ["--version"], { env });
    assert.deepEqual(version, { code: 0, stdout: `code-commit ${config.version}\n`, stderr: "" });
    await using project = await makeProject({ rollup: null, files: { "a.js": "a\n" } });
    const rollup = await run(launcher, ["--rollup"], { cwd: project.root, env });
    assert.equal(rollup.code, 0, rollup.stderr);
    assert.match(rollup.stdout, /^agent-config\/codeRollup\.txt: 3 files, /);

    // Without the pin, loading an npm package (zod, which a run loads with its first LLM call;
    // --version and --rollup load none) fails: the cache is looked for under the other HOME.
    if (Deno.env.get("DENO_DIR") === undefined) {
      const unpinned = await run(
        Deno.execPath(),
        [
          "run",
          "--cached-only",
          "--config",
          join(TOOL_ROOT, "deno.json"),
          join(TOOL_ROOT, "lib/llm/gemini.ts"),
        ],
        { env },
      );
      assert.notEqual(unpinned.code, 0, "the test would not notice a launcher without the pin");
      assert.match(unpinned.stderr, /zod/);
    }
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("the launcher runs the bundle as main.ts runs: the same output, files and prompts, then --undo", async () => {
  const folder = await Deno.makeTempDir({ prefix: "code-commit-launcher-" });
  try {
    const launcher = await makeLauncher(folder);
    // A failed build, then a repair: the reply parser, the guard, the applier, the journal,
    // the build runner and the repair prompt all run, in the bundle and in main.ts.
    const replies = () => [
      geminiReply("^^^src/status.txt\nnot yet\n^^^end\n"),
      geminiReply("^^^src/status.txt\nok\n^^^end\n"),
    ];
    const runs = [];
    for (const via of ["launcher", "main.ts"] as const) {
      await using project = await makeProject({ buildScript: STATUS_BUILD });
      const server = await startFakeLlmServer(replies());
      try {
        const tool = (args: string[]) =>
          via === "launcher"
            ? run(launcher, args, {
              cwd: project.root,
              env: { PATH: "/usr/bin:/bin", HOME: folder, NO_COLOR: "1", ...server.env },
            })
            : runTool(project.root, args, { server });
        const result = await tool(["--sandbox", "off"]);
        assert.equal(result.code, 0, result.stderr);
        const status = await project.read("src/status.txt");
        // Then the run is taken back (the journal, read by another process and workflow).
        const undo = await tool(["--undo"]);
        assert.equal(undo.code, 0, undo.stderr);
        const neutral = (text: string) =>
          text.replaceAll(project.root, "/P").replace(/\b\d+(\.\d+)? ?s\b/g, "N s")
            .replace(/logs\/[0-9T:.Z_-]+/g, "logs/T")
            .replace(/\d{4}-\d\d-\d\dT[0-9:.]+Z/g, "DATE");
        runs.push({
          stdout: neutral(result.stdout + undo.stdout),
          stderr: neutral(result.stderr + undo.stderr),
          status,
          existsAfterUndo: await project.exists("src/status.txt"),
          prompts: server.requests.map((request) => neutral(request.bodyText)),
        });
      } finally {
        await server.close();
      }
    }
    assert.equal(runs[0].status, "ok\n");
    assert.equal(runs[0].existsAfterUndo, false);
    assert.deepEqual(runs[0], runs[1]);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

/**
 * A Deno whose `bundle` subcommand runs `onBundle` (a shell snippet; `$real` is the real Deno),
 * the rest the real one.
 */
async function denoWithBundle(folder: string, onBundle: string): Promise<string> {
  const deno = join(folder, "deno");
  await Deno.writeTextFile(
    deno,
    `#!/bin/sh\nreal='${Deno.execPath()}'\nif [ "$1" = bundle ]; then ${onBundle}; fi\n` +
      `exec "$real" "$@"\n`,
  );
  await Deno.chmod(deno, 0o755);
  return deno;
}

for (
  const [what, onBundle, said] of [
    [
      "deno bundle fails (as when esbuild cannot be fetched)",
      'echo "error: no esbuild" >&2; exit 1',
      /error: no esbuild/,
    ],
    [
      "the bundle lacks a chunk a run would load later",
      '"$real" "$@" || exit 1; ' +
      'for a; do [ "$prev" = --outdir ] && d=$a; prev=$a; done; rm -f "$d"/workflow-*.js; exit 0',
      /printed nothing, but left no complete bundle/,
    ],
  ] as const
) {
  Deno.test(`when ${what}, the launcher runs main.ts, the old bundle goes, and make_launcher.sh says so`, async () => {
    const folder = await Deno.makeTempDir({ prefix: "code-commit-launcher-" });
    try {
      const deno = await denoWithBundle(folder, onBundle);
      // A bundle of an earlier build: it must not stay to be taken for this one's.
      await Deno.mkdir(join(folder, "bundle"));
      await Deno.writeTextFile(join(folder, "bundle", "main.js"), "// old\n");
      const launcher = join(folder, "code-commit");
      const made = await run(join(TOOL_ROOT, "scripts/make_launcher.sh"), [
        deno,
        launcher,
        join(folder, "bundle"),
      ]);
      assert.equal(made.code, 0, made.stderr);
      assert.match(made.stderr, /deno bundle failed, so the launcher runs main\.ts/);
      assert.match(made.stderr, said);
      const text = await Deno.readTextFile(launcher);
      assert(text.includes(`'${join(TOOL_ROOT, "main.ts")}' "$@"`), text);
      assert.deepEqual([...Deno.readDirSync(folder)].map((entry) => entry.name).sort(), [
        "code-commit",
        "deno",
      ]);
      assert.equal((await run(launcher, ["--version"])).stdout, `code-commit ${config.version}\n`);
    } finally {
      await Deno.remove(folder, { recursive: true });
    }
  });
}

Deno.test("make_launcher.sh never replaces a folder that holds no bundle", async () => {
  const folder = await Deno.makeTempDir({ prefix: "code-commit-launcher-" });
  try {
    await Deno.mkdir(join(folder, "mine"));
    await Deno.writeTextFile(join(folder, "mine", "notes.txt"), "keep\n");
    const made = await run(join(TOOL_ROOT, "scripts/make_launcher.sh"), [
      Deno.execPath(),
      join(folder, "code-commit"),
      join(folder, "mine"),
    ]);
    assert.notEqual(made.code, 0);
    assert.match(made.stderr, /mine exists and holds no bundle \(no main\.js\); move it away/);
    assert.equal(await Deno.readTextFile(join(folder, "mine", "notes.txt")), "keep\n");
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("the launcher may be named without a folder, as build.sh names code-commit.tmp", async () => {
  const folder = await Deno.makeTempDir({ prefix: "code-commit-launcher-" });
  try {
    const made = await run(join(TOOL_ROOT, "scripts/make_launcher.sh"), [
      Deno.execPath(),
      "code-commit.tmp",
      join(folder, "bundle"),
    ], { cwd: folder });
    assert.equal(made.code, 0, made.stderr);
    assert.equal(
      (await run(join(folder, "code-commit.tmp"), ["--version"])).stdout,
      `code-commit ${config.version}\n`,
    );
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("the reason deno compile failed is one line, cut between words, keeping its root cause", async () => {
  const folder = await Deno.makeTempDir({ prefix: "code-commit-reason-" });
  try {
    const log = join(folder, "compile.log");
    const dns = "error: error sending request for url " +
      "(https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip): client error " +
      "(Connect): dns error: failed to lookup address information: Name or service not known";
    await Deno.writeTextFile(log, `Check main.ts\n${dns}\n    0: more detail\n`);
    const reason = await run(join(TOOL_ROOT, "scripts/compile_reason.sh"), [log]);
    assert.equal(reason.code, 0, reason.stderr);
    const line = reason.stdout.trimEnd();
    assert(!line.includes("\n"));
    assert.equal(
      line,
      "error sending request for url … client error (Connect): dns error: failed to lookup address information: Name or service not known",
    );
    await Deno.writeTextFile(log, "error: short reason\n");
    assert.equal(
      (await run(join(TOOL_ROOT, "scripts/compile_reason.sh"), [log])).stdout,
      "short reason\n",
    );
    await Deno.writeTextFile(log, "nothing wrong\n");
    assert.equal((await run(join(TOOL_ROOT, "scripts/compile_reason.sh"), [log])).stdout, "\n");
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});
