/** The README states rules that live in code; these tests keep the two in step. */
import assert from "node:assert/strict";
import { PROTECTED_PATHS } from "../lib/guard/protected_paths.ts";
import { RUN_FLAGS } from "../lib/permissions/permissions.ts";
import { MODEL_NAMES, MODELS } from "../lib/llm/models.ts";
import { PRICES, PRICES_DATE } from "../lib/llm/prices.ts";
import { LAYERS } from "./support/layers.ts";

const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));

Deno.test("the README's protected-path table is the guard's, row for row", () => {
  const section = readme.slice(
    readme.indexOf("### Protected paths"),
    readme.indexOf("### Ignore rules"),
  );
  const rows = section.split("\n").filter((line) => line.startsWith("| `"));
  const where = { "root-file": "root", "root-folder": "root", "any-depth-name": "any" };
  assert.equal(rows.length, PROTECTED_PATHS.length, "one row per protected path");
  PROTECTED_PATHS.forEach((entry, index) => {
    const cells = rows[index].split("|").slice(1, -1).map((cell) => cell.trim());
    assert.ok(cells[0].startsWith(`\`${entry.name}`), `row ${index + 1}: ${rows[index]}`);
    assert.deepEqual(
      cells.slice(1),
      [where[entry.scope], entry.readable ? "yes" : "no", entry.build],
      entry.name,
    );
  });
  const sandbox = readme.slice(
    readme.indexOf("## The build sandbox"),
    readme.indexOf("\n## ", readme.indexOf("## The build sandbox") + 1),
  );
  assert.ok(sandbox.includes("](#protected-paths)"), "the sandbox section points to the table");
});

Deno.test("the README shows the exact flags the tool runs with", () => {
  const flat = readme.replace(/\s+/g, " ");
  for (const flag of RUN_FLAGS) assert(flat.includes(flag), flag);
});

Deno.test("the README names every model, key file and endpoint variable", () => {
  for (const name of MODEL_NAMES) {
    assert(readme.includes(name), name);
    assert(readme.includes(MODELS[name].keyFile), MODELS[name].keyFile);
    assert(readme.includes(MODELS[name].baseUrlEnv), MODELS[name].baseUrlEnv);
  }
});

Deno.test("the README's price table is the one of lib/llm/prices.ts, with its date", () => {
  assert(readme.includes(`list prices read **${PRICES_DATE}**`), PRICES_DATE);
  for (const name of MODEL_NAMES) {
    const row = readme.split("\n").find((line) =>
      line.startsWith(`| \`${name}\` `) && line.includes("$")
    );
    assert(row, `no price row for ${name}`);
    const dollars = [...row.matchAll(/\$(\d+(?:\.\d+)?)/g)].map((match) => Number(match[1]));
    const { base, long } = PRICES[name];
    const expected = [base.input, base.cachedInput, base.output];
    if (long) expected.push(long.rates.input, long.rates.cachedInput, long.rates.output);
    assert.deepEqual(dollars, expected, row);
  }
});

Deno.test("the README starts with the install command and the quick start", () => {
  const first = readme.indexOf("\n## ");
  assert.equal(readme.slice(first + 1, readme.indexOf("\n", first + 1)), "## Install");
  assert.match(readme, /\n```sh\n\.\/build\.sh {2,}# installs Deno into \.tools\//);
  const headings = [...readme.matchAll(/^## (.*)$/gm)].map((match) => match[1]);
  assert.deepEqual(headings.slice(0, 3), [
    "Install",
    "First run on your project",
    "What a run prints",
  ]);
  // The quick start itself is run, literally, by tests/e2e/quick_start_test.ts.
});

Deno.test("the README's layer table is the layering test's, row for row", () => {
  const layout = readme.slice(readme.indexOf("## Layout"), readme.indexOf("## Measurements"));
  const rows = layout.split("\n").filter((line) => /^\| \d+\. /.test(line));
  assert.equal(rows.length, LAYERS.length, "one row per layer");
  LAYERS.forEach((layer, index) => {
    const row = rows[index];
    assert.ok(row.startsWith(`| ${index + 1}. ${layer.name} `), `row ${index + 1}: ${row}`);
    const folders = row.split("|")[2];
    const written = [...folders.matchAll(/`([^`]+)`/g)].map((match) => match[1].replace(/\/$/, ""));
    assert.deepEqual(written, [...layer.folders], `row ${index + 1}`);
  });
});
