/**
 * The hostile corpus: every fixture of tests/fixtures/hostile_paths/ is built
 * in a temporary project (with a sibling folder "outside" the project), and
 * the guard is run on a reply holding the fixture's path plus two harmless
 * writes. A hostile path must be refused, by name and for the expected
 * reason, and the harmless writes must not be reported; a benign path must
 * pass. The guard must not change anything on disk either way.
 *
 * Fixture format (JSON):
 *   { "name", "why", "op": "write" | "delete", "path",
 *     "expect": "refused" | "allowed", "reason"?: substring of the refusal,
 *     "setup": { "files"?: {path: content}, "folders"?: [path],
 *                "symlinks"?: {path: target}, "fifos"?: [path],
 *                "devices"?: [path] (character devices, made with mknod: root only),
 *                "outside"?: {path: content} } }
 * A symlink target "@outside" or "@outside/…" is made absolute into the
 * outside folder; any other target is used as written.
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { guardOperations } from "../../lib/guard/guard.ts";
import type { FileOperation } from "../../lib/reply/operations.ts";
import { gitCheckIgnore } from "./helpers.ts";
import { git, withProject, writeFiles } from "../support/project.ts";

interface Fixture {
  readonly name: string;
  readonly why: string;
  readonly op: "write" | "delete";
  readonly path: string;
  readonly expect: "refused" | "allowed";
  readonly reason?: string;
  readonly setup: {
    readonly files?: Record<string, string>;
    readonly folders?: string[];
    readonly symlinks?: Record<string, string>;
    readonly fifos?: string[];
    readonly devices?: string[];
    readonly outside?: Record<string, string>;
  };
}

const FIXTURES_DIR = new URL("../fixtures/hostile_paths/", import.meta.url);

function loadFixtures(): Fixture[] {
  const fixtures: Fixture[] = [];
  for (const entry of Deno.readDirSync(FIXTURES_DIR)) {
    if (!entry.isFile || !entry.name.endsWith(".json")) continue;
    const fixture = JSON.parse(
      Deno.readTextFileSync(new URL(entry.name, FIXTURES_DIR)),
    ) as Fixture;
    assert.equal(`${fixture.name}.json`, entry.name, "a fixture's name is its file name");
    assert.ok(fixture.why, `${entry.name} says why`);
    assert.ok(["write", "delete"].includes(fixture.op), `${entry.name}: op`);
    assert.ok(["refused", "allowed"].includes(fixture.expect), `${entry.name}: expect`);
    fixtures.push(fixture);
  }
  return fixtures.sort((a, b) => a.name.localeCompare(b.name));
}

const FIXTURES = loadFixtures();

/** Two writes that are fine in every fixture's project. */
const HARMLESS: FileOperation[] = [
  { kind: "write", path: "zz-harmless/one.ts", content: "export {};\n" },
  { kind: "write", path: "zz-harmless-two.md", content: "# two\n" },
];

async function run(command: string, args: string[]): Promise<void> {
  const output = await new Deno.Command(command, { args, stderr: "piped" }).output();
  if (!output.success) {
    throw new Error(`${command} ${args.join(" ")}: ${new TextDecoder().decode(output.stderr)}`);
  }
}

async function build(fixture: Fixture, root: string, outside: string): Promise<void> {
  const { setup } = fixture;
  await writeFiles(outside, setup.outside ?? {});
  await writeFiles(root, setup.files ?? {});
  for (const folder of setup.folders ?? []) {
    await Deno.mkdir(join(root, folder), { recursive: true });
  }
  for (const [link, target] of Object.entries(setup.symlinks ?? {})) {
    await Deno.mkdir(dirname(join(root, link)), { recursive: true });
    const resolved = target === "@outside"
      ? outside
      : target.startsWith("@outside/")
      ? join(outside, target.slice("@outside/".length))
      : target;
    await Deno.symlink(resolved, join(root, link));
  }
  for (const fifo of setup.fifos ?? []) await run("mkfifo", [join(root, fifo)]);
  for (const device of setup.devices ?? []) {
    await run("mknod", [join(root, device), "c", "1", "3"]);
  }
}

/** Every entry under `dir` (not following links) with what would show a change. */
async function snapshot(dir: string): Promise<string[]> {
  const entries: string[] = [];
  const walk = async (folder: string) => {
    for await (const entry of Deno.readDir(folder)) {
      const path = join(folder, entry.name);
      const info = await Deno.lstat(path);
      const link = info.isSymlink ? ` -> ${await Deno.readLink(path)}` : "";
      entries.push(
        `${path} ${info.isFile} ${info.isDirectory} ${info.size} ${info.mtime?.getTime()}${link}`,
      );
      if (info.isDirectory) await walk(path);
    }
  };
  await walk(dir);
  return entries.sort();
}

Deno.test("the hostile corpus is large enough and has benign controls", () => {
  const refused = FIXTURES.filter((f) => f.expect === "refused").length;
  const allowed = FIXTURES.filter((f) => f.expect === "allowed").length;
  assert.ok(refused >= 60, `only ${refused} hostile fixtures`);
  assert.ok(allowed >= 3, `only ${allowed} benign fixtures`);
});

for (const fixture of FIXTURES) {
  Deno.test(`hostile path ${fixture.name}: ${fixture.why}`, async () => {
    await withProject({}, async (dir) => {
      const root = join(dir, "project");
      const outside = join(dir, "outside");
      await Deno.mkdir(root);
      await Deno.mkdir(outside);
      await build(fixture, root, outside);
      const before = [await snapshot(root), await snapshot(outside)];

      const hostile: FileOperation = fixture.op === "write"
        ? { kind: "write", path: fixture.path, content: "pwned\n" }
        : { kind: "delete", path: fixture.path };
      const result = await guardOperations(root, [HARMLESS[0], hostile, HARMLESS[1]]);

      if (fixture.expect === "refused") {
        assert.equal(result.ok, false, `${JSON.stringify(fixture.path)} was not refused`);
        if (result.ok) return;
        assert.equal(result.refusals.length, 1, JSON.stringify(result.refusals));
        assert.equal(result.refusals[0].path, fixture.path);
        if (fixture.reason !== undefined) {
          assert.ok(
            result.refusals[0].reason.includes(fixture.reason),
            `reason ${JSON.stringify(result.refusals[0].reason)} lacks ${
              JSON.stringify(fixture.reason)
            }`,
          );
        }
      } else {
        assert.equal(result.ok, true, JSON.stringify(result));
        if (!result.ok) return;
        assert.deepEqual(
          result.operations.map((op) => [op.kind, op.path]),
          [HARMLESS[0], hostile, HARMLESS[1]].map((op) => [
            op.kind,
            op.path.replace(/^\.\//, ""),
          ]),
        );
      }
      assert.deepEqual([await snapshot(root), await snapshot(outside)], before, "the guard wrote");
    });
  });
}

Deno.test("the corpus's ignore fixtures agree with real git", async () => {
  // Fixtures refused as ignored with exact case, and benign ones that have ignore
  // rules: real git must say the same (case variants are ours alone).
  const fixtures = FIXTURES.filter((f) =>
    (f.reason === "ignored by .gitignore" && !f.name.includes("case")) ||
    (f.expect === "allowed" &&
      Object.keys(f.setup.files ?? {}).some((p) => p.endsWith(".gitignore")))
  );
  assert.ok(fixtures.length >= 15, `only ${fixtures.length}`);
  for (const fixture of fixtures) {
    await withProject({}, async (dir) => {
      const root = join(dir, "project");
      await Deno.mkdir(root);
      await Deno.mkdir(join(dir, "outside"));
      await build(fixture, root, join(dir, "outside"));
      await git(root, "init", "-q");
      const answers = await gitCheckIgnore(root, [fixture.path.replace(/^\.\//, "")]);
      assert.equal([...answers.values()][0], fixture.expect === "refused", fixture.name);
    });
  }
});
