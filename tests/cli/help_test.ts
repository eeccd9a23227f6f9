import assert from "node:assert/strict";
import config from "../../deno.json" with { type: "json" };
import { helpText, versionText } from "../../lib/cli/help.ts";
import { COMMANDS, WORKFLOWS } from "../../lib/cli/workflows.ts";
import { OPTIONS } from "../../lib/cli/options.ts";
import { EXIT } from "../../lib/errors/errors.ts";
import { MODEL_NAMES, MODELS } from "../../lib/llm/models.ts";

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
