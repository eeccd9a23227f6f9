/**
 * docs/cli.md holds the tables of `lib/cli/workflows.ts`, row for row, and
 * the README's command-line table names every flag of them.
 */
import assert from "node:assert/strict";
import { COMMANDS, WORKFLOWS } from "../../lib/cli/workflows.ts";
import { OPTIONS, SETTINGS } from "../../lib/cli/options.ts";
import { optionTable, settingsTable, unpadded, workflowTable } from "../support/cli_docs.ts";

const page = await Deno.readTextFile(new URL("../../docs/cli.md", import.meta.url));
const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));

Deno.test("docs/cli.md shows the workflow, option and settings tables of the code", () => {
  for (
    const [name, table] of [
      ["workflow", workflowTable()],
      ["option", optionTable()],
      ["settings", settingsTable()],
    ]
  ) {
    assert(
      unpadded(page).includes(unpadded(table)),
      `docs/cli.md's ${name} table differs from the code's; deno run tests/support/cli_docs.ts prints it:\n${table}`,
    );
  }
  for (const setting of SETTINGS) assert(page.includes(`"${setting.key}"`), setting.key);
  for (const shell of COMMANDS[2].choices) {
    assert(page.includes(`code-commit --completion ${shell}`), shell);
  }
});

Deno.test("the README's command-line table names every flag and the settings file", () => {
  const section = readme.slice(
    readme.indexOf("## Command line"),
    readme.indexOf("## Project set-up"),
  );
  for (const spec of WORKFLOWS) {
    assert(section.includes(`--${spec.flags[spec.flags.length - 1]}`), spec.id);
  }
  for (const option of OPTIONS) assert(section.includes(`\`--${option.flag}`), option.flag);
  for (
    const flag of ["`-V`", "`--completion", "`-h`", "agent-config/settings.json", "docs/cli.md"]
  ) {
    assert(section.includes(flag), flag);
  }
});
