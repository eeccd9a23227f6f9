import assert from "node:assert/strict";
import config from "../../deno.json" with { type: "json" };
import { helpText, versionText } from "../../lib/cli/help.ts";
import { EXIT } from "../../lib/errors/errors.ts";
import { MODEL_NAMES, MODELS } from "../../lib/llm/models.ts";

Deno.test("--version prints the version of deno.json", () => {
  assert.equal(versionText(), `code-commit ${config.version}`);
});

Deno.test("--help names every workflow flag, model, key file and exit status", () => {
  const text = helpText();
  for (
    const flag of [
      "--commit",
      "--consistency-check",
      "--consistency",
      "--cc",
      "--auto-workflow",
      "--aw",
      "--init",
      "--rollup",
      "--check-build",
      "--model",
      "--build-context",
      "--build-timeout",
      "--llm-timeout",
      "--max-phase",
      "--sandbox auto|on|off",
      "--build-network on|off",
      "--json",
      "--help",
      "--version",
    ]
  ) {
    assert(text.includes(flag), flag);
  }
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
