/**
 * The --help and --version text. Shell completion, run in the real shells:
 * the bash script sourced in `bash -c` with `COMP_WORDS`/`COMP_CWORD` set
 * and its function called; the fish script asked with `complete -C`; the zsh
 * script parsed with `zsh -n`. A shell that is not installed is skipped with
 * one line (and fails the test in CI).
 */
import assert from "node:assert/strict";
import config from "../../deno.json" with { type: "json" };
import { completionScript, helpText, versionText } from "../../lib/cli/help.ts";
import { COMMANDS, WORKFLOWS } from "../../lib/cli/workflows.ts";
import { OPTIONS } from "../../lib/cli/options.ts";
import { EXIT } from "../../lib/errors/errors.ts";
import { MODEL_NAMES, MODELS } from "../../lib/llm/models.ts";
import { join } from "node:path";
import { IN_CI } from "../support/ci.ts";
import { runChild } from "../support/child.ts";
import { withProject } from "../support/project.ts";

Deno.test("--version prints the version of deno.json", () => {
  assert.equal(versionText(), `code-commit ${config.version}`);
});

Deno.test("--help names every flag of the tables, every model, key file and exit status", () => {
  const text = helpText();
  for (const spec of WORKFLOWS) {
    assert(text.includes(`  ${spec.flags.map((flag) => `--${flag}`).join(", ")}`), spec.id);
    assert(text.includes(spec.help.join(`\n${" ".repeat(27)}`)), `${spec.id}'s lines`);
  }
  for (const option of OPTIONS) {
    const flag = `--${option.flag}${option.value ? ` ${option.value.placeholder}` : ""}`;
    assert(text.includes(`  ${flag}`), flag);
    assert(text.includes(option.help[0]), `${flag}'s first line`);
  }
  for (const command of COMMANDS) assert(text.includes(`--${command.flag}`), command.flag);
  for (const flag of ["-h, --help", "-V, --version", "--completion bash|zsh|fish", "--json"]) {
    assert(text.includes(flag), flag);
  }
  assert(text.includes("--sandbox auto|on|off") && text.includes("--build-network on|off"));
  assert(text.includes("agent-config/settings.json"));
  for (const name of MODEL_NAMES) {
    assert(text.includes(name), name);
    assert(text.includes(MODELS[name].keyFile), MODELS[name].keyFile);
  }
  // One line per exit status, in the order of EXIT, under "Exit status".
  const table = text.slice(text.indexOf("Exit status")).split("\n")
    .map((line) => /^ {2}(\d+) /.exec(line)?.[1])
    .filter((status) => status !== undefined)
    .map(Number);
  assert.deepEqual(table, Object.values(EXIT));
  for (const line of text.split("\n")) assert(line.length <= 100, `too wide: ${line}`);
});

Deno.test("--help says which workflows take an option that not all take, from the table", () => {
  const text = helpText();
  assert.match(
    text,
    /--max-phase N {12}go up to phase N[^\n]*\n {27}\(--auto-workflow\)\n/,
  );
  assert.match(text, /\n {27}\(committing code, --auto-workflow, --undo\)\n {2}--sandbox/);
  assert.match(
    text,
    /--json {19}print one JSON object on stdout when the run ends, whatever the outcome\n {27}\(docs\/json\.md\); everything else goes to stderr\n {2}-h, --help/,
  );
});

/** Whether `shell` can be started. */
async function installed(shell: string): Promise<boolean> {
  try {
    await new Deno.Command(shell, { args: ["-c", "exit 0"], stdout: "null", stderr: "null" })
      .output();
    return true;
  } catch {
    return false;
  }
}

const HAS = {
  bash: await installed("bash"),
  zsh: await installed("zsh"),
  fish: await installed("fish"),
};

/** Every long flag of the tables, with its dashes. */
const EVERY_FLAG = [
  ...WORKFLOWS.flatMap((spec) => spec.flags),
  ...OPTIONS.map((option) => option.flag),
  ...COMMANDS.map((command) => command.flag),
].map((flag) => `--${flag}`);

/** What bash's completion offers for the words `words` (the last one being completed). */
async function bashCompletes(script: string, words: string[]): Promise<string[]> {
  return await withProject({ "code-commit.bash": script }, async (root) => {
    const quotedWords = words.map((word) => `'${word}'`).join(" ");
    const run = await runChild("bash", [
      "-c",
      `source ${join(root, "code-commit.bash")}
complete -p code-commit >/dev/null || exit 9
COMP_WORDS=(code-commit ${quotedWords}); COMP_CWORD=${words.length}
_code_commit
printf '%s\\n' "\${COMPREPLY[@]}"`,
    ], { cwd: root });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    return run.stdout.split("\n").filter((line) => line !== "");
  });
}

Deno.test({
  name: "[bash] the completion completes the flags, and the values of --model, --sandbox",
  ignore: !HAS.bash && !IN_CI,
  async fn() {
    const script = completionScript("bash");
    assert.deepEqual(await bashCompletes(script, ["--cons"]), [
      "--consistency-check",
      "--consistency",
    ]);
    assert.deepEqual(await bashCompletes(script, ["--model", ""]), [...MODEL_NAMES, "local:"]);
    assert.deepEqual(await bashCompletes(script, ["--cc", "--model", "gpt"]), ["gpt-5", "gpt-5.2"]);
    assert.deepEqual(await bashCompletes(script, ["--sandbox", "o"]), ["on", "off"]);
    assert.deepEqual(await bashCompletes(script, ["--completion", ""]), ["bash", "zsh", "fish"]);
    assert.deepEqual(await bashCompletes(script, ["--build-timeout", ""]), []);
    const all = await bashCompletes(script, [""]);
    for (const flag of [...EVERY_FLAG, "-h", "-V"]) assert(all.includes(flag), flag);
    assert.equal(all.length, EVERY_FLAG.length + 2);
  },
});

Deno.test({
  name: "[fish] the script parses, and completes --cons and --model's values",
  ignore: !HAS.fish && !IN_CI,
  async fn() {
    await withProject({ "code-commit.fish": completionScript("fish") }, async (root) => {
      const file = join(root, "code-commit.fish");
      const syntax = await runChild("fish", ["-n", file], { cwd: root });
      assert.equal(syntax.code, 0, syntax.stderr);
      const ask = async (line: string) => {
        const run = await runChild("fish", [
          "--no-config",
          "-c",
          `source ${file}; complete -C '${line}'`,
        ], { cwd: root });
        assert.equal(run.code, 0, run.stderr);
        return run.stdout.split("\n").filter((l) => l !== "").map((l) => l.split("\t")[0]);
      };
      assert.deepEqual((await ask("code-commit --cons")).sort(), [
        "--consistency",
        "--consistency-check",
      ]);
      assert.deepEqual(
        (await ask("code-commit --model ")).sort(),
        [...MODEL_NAMES, "local:"].sort(),
      );
    });
  },
});

Deno.test({
  name: "[zsh] the script parses (zsh -n), and its function offers the flags and --model's values",
  ignore: !HAS.zsh && !IN_CI,
  async fn() {
    await withProject({ "_code-commit": completionScript("zsh") }, async (root) => {
      const file = join(root, "_code-commit");
      const run = await runChild("zsh", ["-n", file], { cwd: root });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, "");
      // The function itself, in a real zsh, with the completion system's builtins stubbed to
      // print what they are given.
      const ask = async (words: string[]) => {
        const called = await runChild("zsh", [
          "-f",
          "-c",
          `compdef() { :; }
compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }
_describe() { local name=\${@[-1]}; print -l -- \${(P)name}; }
_message() { print -- "message: $*"; }
source ${file}
words=(code-commit ${words.map((word) => `'${word}'`).join(" ")}); CURRENT=${words.length + 1}
_code_commit`,
        ], { cwd: root });
        assert.equal(called.code, 0, called.stderr);
        return called.stdout.split("\n").filter((line) => line !== "");
      };
      assert.deepEqual(await ask(["--model", ""]), [...MODEL_NAMES, "local:"]);
      assert.deepEqual(await ask(["--build-network", ""]), ["on", "off"]);
      const flags = await ask(["--cons"]);
      assert(flags.includes("--consistency-check:the consistency report"), flags.join("\n"));
      assert(flags.includes("-V:print the version"), flags.join("\n"));
    });
  },
});

Deno.test("every script names every flag of the tables", () => {
  for (const shell of ["bash", "zsh", "fish"] as const) {
    const script = completionScript(shell);
    for (const flag of EVERY_FLAG) {
      const named = shell === "fish" ? `-l ${flag.slice(2)} ` : flag;
      assert(script.includes(named), `${shell}: ${flag}`);
    }
  }
});

for (const [shell, has] of Object.entries(HAS)) {
  if (!has && !IN_CI) {
    console.log(`skipped: ${shell} is not installed, so its completion is not run`);
  }
}
