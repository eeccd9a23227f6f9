/**
 * The tables of docs/cli.md, written from the tables of
 * `lib/cli/workflows.ts`: the docs test holds the page to them. To remake
 * them: `deno run tests/support/cli_docs.ts` prints both.
 *
 * @module
 */
import { WORKFLOWS } from "../../lib/cli/workflows.ts";
import { OPTIONS, SETTINGS } from "../../lib/cli/options.ts";

/** Collapses the padding of markdown tables, so that a table `deno fmt` aligned compares equal. */
export function unpadded(text: string): string {
  return text.replace(/ {2,}/g, " ").replace(/-{3,}/g, "---");
}

/** One markdown table with `header` and `rows`, columns padded as `deno fmt` pads them. */
function table(header: readonly string[], given: readonly (readonly string[])[]): string {
  const rows = given.map((row) => row.map((cell) => cell.replaceAll("|", "\\|")));
  const widths = header.map((cell, column) =>
    Math.max(cell.length, 3, ...rows.map((row) => row[column].length))
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join(
    "\n",
  );
}

/** The workflow table: flags, options taken, what it needs, builds, lock, recovery. */
export function workflowTable(): string {
  return table(
    ["workflow", "flags", "options (besides `--json`)", "needs", "builds"],
    WORKFLOWS.map((spec) => {
      const needs = Object.entries(spec.needs).filter(([, needed]) => needed).map(([what]) =>
        ({
          key: "the model's key",
          query: "`agent-config/query.txt`",
          rollup: "`agent-config/codeRollup.txt` (unless `--build-context`)",
          buildScript: "`./build.sh`",
        })[what] ?? what
      );
      return [
        spec.title,
        spec.flags.map((flag) => `\`--${flag}\``).join(", "),
        spec.options.filter((flag) => flag !== "json").map((flag) => `\`--${flag}\``).join(
          ", ",
        ) || "—",
        needs.join(", ") || "—",
        spec.runsBuilds ? "yes" : "no",
      ];
    }),
  );
}

/** The option table: flag and what it does. */
export function optionTable(): string {
  return table(
    ["option", "what it does"],
    OPTIONS.map((option) => [
      `\`--${option.flag}${option.value ? ` ${option.value.placeholder}` : ""}\``,
      option.brief,
    ]),
  );
}

/** The settings table: key, the option it stands for, what it takes. */
export function settingsTable(): string {
  return table(
    ["key", "what it sets", "allowed"],
    SETTINGS.map((setting) => [`\`${setting.key}\``, setting.brief, setting.allowed]),
  );
}

if (import.meta.main) {
  console.log(`${workflowTable()}\n\n${optionTable()}\n\n${settingsTable()}`);
}
