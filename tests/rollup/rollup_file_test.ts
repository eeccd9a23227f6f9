import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readRollupFiles } from "../../lib/rollup/rollup_file.ts";
import { mkfifo } from "../file_system/helpers.ts";
import { runDenoScript } from "../support/child.ts";
import { withProject } from "../support/project.ts";

const TOOL_ROOT = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("readRollupFiles gives every kind of outcome, each in the order of the paths", async () => {
  const files: Record<string, string | Uint8Array> = {};
  for (let i = 0; i < 40; i++) files[`src/f${i}.ts`] = `export const v${i} = ${i};\n`;
  files["odd/binary.bin"] = new Uint8Array([0x61, 0x00, 0x62]);
  files["odd/latin1.txt"] = new Uint8Array([0x63, 0x61, 0x66, 0xe9]);
  files["odd/big.txt"] = "x".repeat(1024 * 1024 + 1);
  files["odd/twin-a.txt"] = "twin\n";
  await withProject(files, async (root) => {
    await Deno.symlink("twin-a.txt", join(root, "odd/link.txt"));
    await Deno.link(join(root, "odd/twin-a.txt"), join(root, "odd/twin-b.txt"));
    await Deno.mkdir(join(root, "odd/folder"));
    await mkfifo(join(root, "odd/pipe"));
    const odd: [string, string][] = [
      ["odd/binary.bin", "binary"],
      ["odd/latin1.txt", "not-utf8"],
      ["odd/big.txt", "too-large"],
      ["odd/link.txt", "symbolic-link"],
      ["odd/twin-a.txt", "hard-link"],
      ["odd/folder", "missing"],
      ["odd/pipe", "special"],
      ["odd/gone.txt", "missing"],
    ];
    // The odd ones spread among the plain files, across several batches of reads at once.
    const paths = Object.keys(files).filter((path) => path.startsWith("src/"));
    odd.forEach(([path], index) => paths.splice(index * 6, 0, path));
    const outcomes = await readRollupFiles(root, paths);
    assert.equal(outcomes.length, paths.length);
    paths.forEach((path, index) => {
      const expected = path.startsWith("src/")
        ? files[path]
        : { kind: odd.find(([name]) => name === path)![1] };
      assert.deepEqual(outcomes[index], expected, path);
    });
  });
});

Deno.test("with the run's permissions (--allow-read=.), the rollup reads the project, and nothing outside", async () => {
  await withProject({ "in.txt": "inside\n" }, async (root) => {
    const outside = await Deno.makeTempDir({ prefix: "code-commit-outside-" });
    try {
      await Deno.writeTextFile(join(outside, "secret.txt"), "outside\n");
      const script = `
        import { readRollupFiles } from ${JSON.stringify(`${TOOL_ROOT}lib/rollup/rollup_file.ts`)};
        console.log(JSON.stringify([
          await readRollupFiles(Deno.cwd(), ["in.txt"]),
          await readRollupFiles(${JSON.stringify(outside)}, ["secret.txt"]),
        ]));
      `;
      const output = await runDenoScript(root, ["--no-prompt", "--allow-read=."], script);
      assert.equal(output.code, 0, output.stderr);
      assert.deepEqual(JSON.parse(output.stdout), [["inside\n"], [{ kind: "unreadable" }]]);
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  });
});
