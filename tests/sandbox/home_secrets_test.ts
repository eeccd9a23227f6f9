/**
 * The home folder's credential stores: the table docs/sandbox.md prints is
 * the code's, row for row, and so is its protected-path table's build
 * column.
 */
import assert from "node:assert/strict";
import { PROTECTED_PATHS } from "../../lib/guard/protected_paths.ts";
import { HOME_SECRETS } from "../../lib/sandbox/home_secrets.ts";

const DOC = await Deno.readTextFile(new URL("../../docs/sandbox.md", import.meta.url));

/** The rows of the markdown table under `heading`, cells trimmed, header and rule left out. */
function tableRows(heading: string, firstHeader: string): string[][] {
  const section = DOC.slice(DOC.indexOf(`## ${heading}`));
  const lines = section.split("\n");
  const start = lines.findIndex((line) => line.startsWith(`| ${firstHeader}`));
  assert(start >= 0, `a table under "${heading}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split("|").slice(1, -1).map((cell) => cell.trim()));
  }
  return rows;
}

Deno.test("docs/sandbox.md prints the credential-store table, row for row", () => {
  assert.deepEqual(
    tableRows("The home folder", "path"),
    HOME_SECRETS.map((secret) => [`\`~/${secret.path}\``, secret.what]),
  );
});

Deno.test("docs/sandbox.md prints the protected-path table's build column, row for row", () => {
  assert.deepEqual(
    tableRows("The project", "path"),
    PROTECTED_PATHS.map((entry) => [
      `\`${entry.name}\``,
      entry.scope === "any-depth-name" ? "any" : "root",
      entry.build,
    ]),
  );
});

Deno.test("the credential stores: relative paths, each once, none inside another", () => {
  const paths = HOME_SECRETS.map((secret) => secret.path);
  assert.equal(new Set(paths).size, paths.length);
  for (const path of paths) {
    assert.match(path, /^[^/.][^/]*(\/[^/]+)*$|^\.[^/]+(\/[^/]+)*$/, path);
    assert(!path.split("/").includes(".."), path);
    assert(!paths.some((other) => path.startsWith(`${other}/`)), `${path} is inside another`);
  }
  for (const required of [".ssh", ".aws", ".netrc", ".docker/config.json", ".kube", ".gnupg"]) {
    assert(paths.includes(required), required);
  }
});
