/**
 * The README and the pages of docs/ state rules that live in code; these
 * tests keep the two in step: each table a page prints is the code's, row
 * for row. They also keep the README short, and every page reachable from
 * it.
 */
import assert from "node:assert/strict";
import { PROTECTED_PATHS } from "../lib/guard/protected_paths.ts";
import { RUN_FLAGS } from "../lib/permissions/permissions.ts";
import { MODEL_NAMES, MODELS } from "../lib/llm/models.ts";
import { PRICES, PRICES_DATE } from "../lib/llm/prices.ts";
import { LAYERS } from "./support/layers.ts";

const ROOT = new URL("../", import.meta.url);
const readme = await Deno.readTextFile(new URL("README.md", ROOT));

/** The text of `docs/<name>`. */
function page(name: string): Promise<string> {
  return Deno.readTextFile(new URL(`docs/${name}`, ROOT));
}

/** Every page of docs/ (the `.md` files directly in it), sorted. */
async function pageNames(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(new URL("docs/", ROOT))) {
    if (entry.isFile && entry.name.endsWith(".md")) names.push(entry.name);
  }
  return names.sort();
}

/** The part of `text` from the heading line `from` to the next heading of the same level. */
function section(text: string, from: string): string {
  const start = text.indexOf(`\n${from}\n`);
  assert(start >= 0, `no heading ${from}`);
  const level = from.slice(0, from.indexOf(" ") + 1);
  const end = text.indexOf(`\n${level}`, start + from.length + 2);
  return text.slice(start, end === -1 ? undefined : end);
}

/** The targets of the markdown links of `text` that are not web addresses. */
function relativeLinks(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]).filter((target) =>
    !/^[a-z]+:/.test(target)
  );
}

/** A heading's anchor, as GitHub makes it: lower case, punctuation dropped, spaces as `-`. */
function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

Deno.test("docs/safety.md's protected-path table is the guard's, row for row", async () => {
  const safety = await page("safety.md");
  const rows = section(safety, "## Protected paths").split("\n").filter((line) =>
    line.startsWith("| `")
  );
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
  const sandbox = await page("sandbox.md");
  assert.ok(
    sandbox.includes("](safety.md#protected-paths)"),
    "docs/sandbox.md points to the whole table",
  );
});

Deno.test("docs/safety.md shows the exact flags the tool runs with", async () => {
  const flat = section(await page("safety.md"), "## Deno permissions and the V8 flag")
    .replace(/\s+/g, " ");
  for (const flag of RUN_FLAGS) assert(flat.includes(flag), flag);
});

Deno.test("docs/models.md names every model, key file and endpoint variable", async () => {
  const models = await page("models.md");
  for (const name of MODEL_NAMES) {
    assert(models.includes(`\`${name}\``), name);
    assert(models.includes(MODELS[name].keyFile), MODELS[name].keyFile);
    assert(models.includes(MODELS[name].baseUrlEnv), MODELS[name].baseUrlEnv);
    // The README's set-up and environment tables name them too.
    assert(readme.includes(MODELS[name].keyFile), `README: ${MODELS[name].keyFile}`);
    assert(readme.includes(MODELS[name].baseUrlEnv), `README: ${MODELS[name].baseUrlEnv}`);
  }
});

Deno.test("docs/models.md's price table is the one of lib/llm/prices.ts, with its date", async () => {
  const models = await page("models.md");
  const flat = models.replace(/\s+/g, " ");
  assert(flat.includes(`list prices read **${PRICES_DATE}**`), PRICES_DATE);
  for (const name of MODEL_NAMES) {
    const row = models.split("\n").find((line) =>
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
  assert.deepEqual(headings.slice(0, 4), [
    "Install",
    "First run on your project",
    "What a run prints",
    "Command line",
  ]);
  // The quick start itself is run, literally, by tests/e2e/quick_start_test.ts.
});

Deno.test("docs/architecture.md's layer table is the layering test's, row for row", async () => {
  const rows = section(await page("architecture.md"), "## Layers").split("\n").filter((line) =>
    /^\| \d+\. /.test(line)
  );
  assert.equal(rows.length, LAYERS.length, "one row per layer");
  LAYERS.forEach((layer, index) => {
    const row = rows[index];
    assert.ok(row.startsWith(`| ${index + 1}. ${layer.name} `), `row ${index + 1}: ${row}`);
    const folders = row.split("|")[2];
    const written = [...folders.matchAll(/`([^`]+)`/g)].map((match) => match[1].replace(/\/$/, ""));
    assert.deepEqual(written, [...layer.folders], `row ${index + 1}`);
  });
});

Deno.test("the README is a front page: at most 250 lines, linking every page of docs/", async () => {
  const lines = readme.split("\n").length - (readme.endsWith("\n") ? 1 : 0);
  assert(lines <= 250, `README.md has ${lines} lines; move detail into a page of docs/`);
  const linked = new Set(relativeLinks(readme).map((target) => target.split("#")[0]));
  const pages = await pageNames();
  assert(pages.length > 0);
  const unlinked = pages.filter((name) => !linked.has(`docs/${name}`));
  assert.deepEqual(unlinked, [], "pages of docs/ the README does not link");
});

Deno.test("every link between the pages of docs/ leads to a file and heading there", async () => {
  const problems: string[] = [];
  for (const name of await pageNames()) {
    for (const target of relativeLinks(await page(name))) {
      const [path, fragment] = target.split("#");
      const url = path === ""
        ? new URL(`docs/${name}`, ROOT)
        : new URL(path, new URL("docs/", ROOT));
      let text: string;
      try {
        text = await Deno.readTextFile(url);
      } catch {
        try {
          await Deno.stat(url);
          continue; // a folder or a file that is not text (ci/code-commit.yml is text)
        } catch {
          problems.push(`docs/${name}: ${target} leads nowhere`);
          continue;
        }
      }
      if (fragment === undefined) continue;
      const anchors = [...text.matchAll(/^#{1,6} (.*)$/gm)].map((match) => anchor(match[1]));
      if (!anchors.includes(fragment)) problems.push(`docs/${name}: no heading for ${target}`);
    }
  }
  assert.deepEqual(problems, []);
});

Deno.test("no page cites a document outside the repository", async () => {
  for (
    const [name, text] of [["README.md", readme]].concat(
      await Promise.all(
        (await pageNames()).map(async (name) => [`docs/${name}`, await page(name)]),
      ),
    )
  ) {
    assert.doesNotMatch(text, /SPEC\.md|\bseeds?\b|\bissue \d+/i, name);
  }
});
