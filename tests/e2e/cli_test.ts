/**
 * The command line and the preconditions, end to end: the real tool as a
 * subprocess. Every precondition fails before any request reaches the
 * (fake) LLM server, with one line naming the file and what to do.
 */
import assert from "node:assert/strict";
import { EXIT } from "../../lib/errors/errors.ts";
import { join } from "node:path";
import config from "../../deno.json" with { type: "json" };
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { assertNoKeyLeak } from "../support/leaks.ts";
import { makeProject, type ProjectOptions } from "../support/project.ts";
import { runTool } from "../support/run_tool.ts";

Deno.test("--help and --version print and exit 0", async () => {
  await using project = await makeProject();
  const help = await runTool(project.root, ["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^code-commit [\d.]+ — /);
  assert.match(help.stdout, /--consistency-check, --consistency, --cc/);
  assert.equal(help.stderr, "");
  const version = await runTool(project.root, ["--version"]);
  assert.deepEqual(version, { code: 0, stdout: `code-commit ${config.version}\n`, stderr: "" });
  assert.deepEqual(await runTool(project.root, ["-V"]), version, "-V is --version");
  const completion = await runTool(project.root, ["--completion", "bash"]);
  assert.equal(completion.code, 0, completion.stderr);
  assert.match(completion.stdout, /^# bash completion for code-commit/);
  assert.match(completion.stdout, /complete -F _code_commit code-commit\n$/);
  assert.deepEqual(await project.logRuns(), [], "no log folder for --help");
});

Deno.test("usage errors exit 2 with one line on stderr naming the flag", async () => {
  await using project = await makeProject();
  const cases: [string[], RegExp][] = [
    [["--bogus"], /^code-commit: unknown flag --bogus; run code-commit --help for the flags\n$/],
    [
      ["--model", "claude"],
      /^code-commit: --model "claude" is not a supported model; use gemini-2\.5-pro, gpt-5, gemini-3-pro-preview, gpt-5\.2, or local:NAME for a model on a local OpenAI-compatible server\n$/,
    ],
    [["--model"], /^code-commit: --model needs a value/],
    [["--init", "--sandbox", "on"], /^code-commit: --sandbox applies to committing code, /],
    [["--completion", "csh"], /^code-commit: --completion "csh" is not one of bash, zsh, fish\n$/],
    [
      ["--cc", "--aw"],
      /^code-commit: --cc and --aw are two workflow flags; choose one workflow per run\n$/,
    ],
  ];
  for (const [args, stderr] of cases) {
    const run = await runTool(project.root, args);
    assert.equal(run.code, 2, args.join(" "));
    assert.equal(run.stdout, "");
    assert.match(run.stderr, stderr);
    assert.equal(run.stderr.trimEnd().split("\n").length, 1);
  }
});

/** Each broken project, the arguments, and the one line the tool must print. */
const PRECONDITIONS: [string, ProjectOptions, string[], RegExp, (root: string) => Promise<void>][] =
  [
    [
      "no .gitignore",
      { gitignore: null },
      [],
      /\.gitignore not found in the project root: create it with the line \/agent-config/,
      noop,
    ],
    [
      "agent-config not ignored",
      { gitignore: "/logs\n" },
      [],
      /^code-commit: \.gitignore does not ignore everything in agent-config\/ \(agent-config\/gemini-key\.txt, agent-config\/openai-key\.txt, agent-config\/query\.txt, agent-config\/codeRollup\.txt and agent-config\/consistency-report\.txt are not ignored\): add the line \/agent-config at the end of \.gitignore; /,
      noop,
    ],
    [
      "a key file re-included",
      { gitignore: "/agent-config/*\n!/agent-config/gemini-key.txt\n" },
      [],
      /\.gitignore does not ignore everything in agent-config\/ \(agent-config\/gemini-key\.txt is not ignored; the rule !\/agent-config\/gemini-key\.txt on line 2 of \.gitignore can re-include names in it\): add the line \/agent-config/,
      noop,
    ],
    ...[[], ["--cc"], ["--aw"]].map((args): (typeof PRECONDITIONS)[number] => [
      `only the keys and the query ignored, not the rollup, ${args.join(" ") || "committing code"}`,
      {
        gitignore: "/agent-config/*-key.txt\n/agent-config/query.txt\n/logs\n",
        files: {
          "UserSpecification.md": "# Spec\n",
          "ModuleDependencies.md": "# Module Dependencies\n",
        },
      },
      args,
      /^code-commit: \.gitignore does not ignore everything in agent-config\/ \(agent-config\/codeRollup\.txt and agent-config\/consistency-report\.txt are not ignored\): add the line \/agent-config at the end of \.gitignore; /,
      noop,
    ]),
    [
      "no Gemini key",
      { keys: { gemini: null } },
      [],
      /agent-config\/gemini-key\.txt not found: put your Gemini API key in it/,
      noop,
    ],
    [
      "an empty Gemini key",
      { keys: { gemini: "  \n" } },
      [],
      /agent-config\/gemini-key\.txt is empty: put your Gemini API key in it/,
      noop,
    ],
    [
      "no OpenAI key for gpt-5",
      { keys: { openai: null } },
      ["--model", "gpt-5"],
      /agent-config\/openai-key\.txt not found: put your OpenAI API key in it/,
      noop,
    ],
    [
      "no query",
      { query: null },
      [],
      /agent-config\/query\.txt not found: write what you want done in it/,
      noop,
    ],
    [
      "no rollup",
      { rollup: null },
      [],
      /agent-config\/codeRollup\.txt not found: run code-commit --rollup to make it, or use --build-context/,
      noop,
    ],
    ["no build.sh", { buildScript: null }, [], /build\.sh not found in the project root/, noop],
    [
      "build.sh not executable",
      {},
      [],
      /build\.sh is not executable: run chmod \+x build\.sh/,
      (root) => Deno.chmod(join(root, "build.sh"), 0o644),
    ],
    [
      "no query for the consistency report",
      { query: null },
      ["--cc"],
      /agent-config\/query\.txt not found/,
      noop,
    ],
  ];

async function noop(): Promise<void> {}

Deno.test("every precondition fails before any LLM call, exit 3, one line naming the file", async () => {
  for (const [name, options, args, message, prepare] of PRECONDITIONS) {
    await using project = await makeProject(options);
    await prepare(project.root);
    const server = await startFakeLlmServer([geminiReply("^^^src/x.txt\nx\n^^^end\n")]);
    try {
      const run = await runTool(project.root, args, { server });
      assert.equal(run.code, EXIT.setup, `${name}: ${run.stderr}`);
      assert.equal(server.requests.length, 0, `${name}: the LLM was called`);
      assert.match(run.stderr, message, name);
      assert.equal(run.stderr.trimEnd().split("\n").length, 1, `${name}: ${run.stderr}`);
      assert.equal(await project.exists("src/x.txt"), false);
      await assertNoKeyLeak(project.root, [run], server);
    } finally {
      await server.close();
    }
  }
});

Deno.test("an endpoint override that would send the key in clear text is refused", async () => {
  await using project = await makeProject();
  for (
    const url of [
      "http://example.com/v1beta",
      "ftp://127.0.0.1/x",
      "not a url",
      "https://user:pw@example.com",
    ]
  ) {
    const run = await runTool(project.root, [], { env: { CODE_COMMIT_GEMINI_BASE_URL: url } });
    assert.equal(run.code, EXIT.setup, url);
    assert.match(run.stderr, /^code-commit: CODE_COMMIT_GEMINI_BASE_URL /, url);
  }
  const openai = await runTool(project.root, ["--model", "gpt-5"], {
    env: { CODE_COMMIT_OPENAI_BASE_URL: "http://10.0.0.1/v1" },
  });
  assert.equal(openai.code, EXIT.setup);
  assert.match(
    openai.stderr,
    /CODE_COMMIT_OPENAI_BASE_URL is plain http:\/\/ to 10\.0\.0\.1, which would send your API key in clear text/,
  );
});

Deno.test("--llm-timeout gives up on a silent server in one line, exit 4, without retrying", async () => {
  await using project = await makeProject();
  const server = await startFakeLlmServer([{ kind: "hang" }, geminiReply("never sent")]);
  try {
    const run = await runTool(project.root, ["--llm-timeout", "0.5"], { server });
    assert.equal(run.code, 4);
    assert.equal(server.requests.length, 1);
    assert.match(
      run.stderr,
      /code-commit: gemini-2\.5-pro: no reply within 0\.5s; raise --llm-timeout if the model needs longer\n$/,
    );
    const [folder] = await project.logRuns();
    assert.match(
      await project.read(`logs/${folder}/1-initial-query-response.txt`),
      /^ERROR\n.*no reply within/,
    );
  } finally {
    await server.close();
  }
});

Deno.test("every missing or wrong set-up piece is reported in one run, before any call", async () => {
  await using project = await makeProject({
    gitignore: "/logs\n",
    keys: { gemini: null },
    query: "  \n",
    rollup: null,
    buildScript: null,
  });
  const server = await startFakeLlmServer([geminiReply("never sent")]);
  try {
    const run = await runTool(project.root, [], { server });
    assert.equal(run.code, EXIT.setup);
    assert.equal(server.requests.length, 0);
    const lines = run.stderr.trimEnd().split("\n");
    assert.equal(
      lines[0],
      "code-commit: 5 things to set up before code-commit can run (code-commit --init makes the missing files it can):",
    );
    assert.match(lines[1], /^ {2}- \.gitignore does not ignore everything in agent-config\//);
    assert.match(
      lines[2],
      /^ {2}- agent-config\/gemini-key\.txt not found: put your Gemini API key in it/,
    );
    assert.match(
      lines[3],
      /^ {2}- agent-config\/query\.txt is empty: write what you want done in it$/,
    );
    assert.match(
      lines[4],
      /^ {2}- agent-config\/codeRollup\.txt not found: run code-commit --rollup/,
    );
    assert.match(lines[5], /^ {2}- build\.sh not found in the project root/);
    assert.equal(lines.length, 6);
    // With --build-context the rollup is not needed; the consistency report needs no build.sh.
    const cc = await runTool(project.root, ["--cc", "--build-context"], { server });
    assert.match(cc.stderr, /^code-commit: 3 things to set up/);
    assert(!/^ {2}- (agent-config\/codeRollup\.txt|build\.sh)/m.test(cc.stderr), cc.stderr);
  } finally {
    await server.close();
  }
});

Deno.test("--init's placeholder build.sh counts as a missing build", async () => {
  await using project = await makeProject({ buildScript: null });
  const init = await runTool(project.root, ["--init"]);
  assert.equal(init.code, 0, init.stderr);
  await Deno.rename(
    join(project.root, "agent-config/starter-build.sh"),
    join(project.root, "build.sh"),
  );
  const run = await runTool(project.root, []);
  assert.equal(run.code, EXIT.setup);
  assert.match(
    run.stderr,
    /^code-commit: build\.sh is still the placeholder code-commit --init wrote: put your project's build and test commands in it/,
  );
});

Deno.test("run from a subfolder of the repository, code-commit says where to run it", async () => {
  await using project = await makeProject();
  await Deno.mkdir(join(project.root, "lib"));
  for (const args of [[], ["--cc"], ["--aw"]]) {
    const run = await runTool(join(project.root, "lib"), args);
    assert.equal(run.code, EXIT.setup, args.join(" "));
    assert.equal(
      run.stderr,
      `code-commit: ${project.root}/lib is inside the git repository ${project.root}, not at its ` +
        `root: run code-commit from ${project.root}\n`,
    );
  }
});

/**
 * A bash wrapper that starts the tool with `stream` (1 or 2) on a real pipe
 * whose reader is closed before the tool starts: a fifo opened for reading
 * and writing, then for writing, then its reader closed, so that every
 * write fails with EPIPE (`code-commit --init | head -2`, its reader gone,
 * without the race).
 */
function closedPipe(stream: 1 | 2): string[] {
  const script = `set -e
dir=$(mktemp -d)
mkfifo "$dir/pipe"
exec 3<>"$dir/pipe" 4>"$dir/pipe" 3<&-
rm -r "$dir"
exec "$@" ${stream}>&4 4>&-`;
  return ["bash", "-c", script, "closed-pipe"];
}

Deno.test("a closed stdout or stderr (a reader that is gone) is no error of the run: output is dropped quietly, the run ends with its own exit status", async () => {
  await using project = await makeProject({
    gitignore: null,
    buildScript: null,
    query: null,
    rollup: null,
    keys: { gemini: null, openai: null },
  });
  // stdout gone: --init still does its work and exits 0, nothing on stderr.
  const init = await runTool(project.root, ["--init"], { wrapper: closedPipe(1) });
  assert.equal(init.code, 0, init.stderr);
  assert.equal(init.stderr, "");
  assert.equal(init.stdout, "");
  assert.match(await project.read(".gitignore"), /^\/agent-config$/m);
  // stderr gone: the results still reach stdout.
  const again = await runTool(project.root, ["--init"], { wrapper: closedPipe(2) });
  assert.equal(again.code, 0);
  assert.match(again.stdout, /^\.gitignore: kept/m);
  // A run that fails keeps its exit status, its error line dropped.
  const usage = await runTool(project.root, ["--bogus"], { wrapper: closedPipe(2) });
  assert.equal(usage.code, 2);
  const help = await runTool(project.root, ["--help"], { wrapper: closedPipe(1) });
  assert.deepEqual(help, { code: 0, stdout: "", stderr: "" });
});
