/**
 * Tests of the specification cache on real folders: paths, round trips,
 * atomic replacement, and refusal of symbolic links and non-folders.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  cacheCollisions,
  readCache,
  writeCache,
} from "../../../lib/workflows/auto_workflow/cache.ts";
import { CodeCommitError } from "../../../lib/errors/errors.ts";
import { listFiles, withProject } from "../../support/project.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("writeCache: the root module directly under agent-state/specifications/, the others under their path", async () => {
  await withProject({}, async (root) => {
    const cases: [string, string, string][] = [
      ["", "self-consistent", "agent-state/specifications/self-consistent"],
      ["src/llm", "implemented", "agent-state/specifications/src/llm/implemented"],
      ["src/llm/gemini", "polished", "agent-state/specifications/src/llm/gemini/polished"],
    ];
    for (const [module, stage, file] of cases) {
      assert.equal(await writeCache(root, module, stage, bytes(file)), file);
      assert.equal(await Deno.readTextFile(join(root, file)), file);
    }
  });
});

Deno.test("cacheCollisions: a module in a folder named like a stage, directly in a module, at any depth", () => {
  assert.deepEqual(cacheCollisions(["", "src/a", "src/a/implemented"]), [{
    outer: "src/a",
    inner: "src/a/implemented",
    stage: "implemented",
    file: "agent-state/specifications/src/a/implemented",
    folder: "src/a/implemented",
  }]);
  // Deeper: the stage-named folder is no module itself, one below it is; phase 4's stages count.
  assert.deepEqual(cacheCollisions(["", "src/x/y", "src/x/y/polished/z/w"]), [{
    outer: "src/x/y",
    inner: "src/x/y/polished/z/w",
    stage: "polished",
    file: "agent-state/specifications/src/x/y/polished",
    folder: "src/x/y/polished",
  }]);
  // Case folded, as macOS and Windows compare names; one collision per file in the way.
  assert.deepEqual(
    cacheCollisions(["", "src/a", "src/a/Edge-Tested/p", "src/a/edge-tested/q", "src/a/secure"])
      .map(
        (c) => `${c.outer} ${c.stage} ${c.inner} ${c.folder}`,
      ),
    [
      "src/a secure src/a/secure src/a/secure", // in stage order: secure, then edge-tested
      "src/a edge-tested src/a/Edge-Tested/p src/a/Edge-Tested",
    ],
  );
});

Deno.test("cacheCollisions: none where the cache files and folders are apart", () => {
  assert.deepEqual(
    cacheCollisions([
      "",
      "src/implemented", // the root's file is agent-state/specifications/implemented, not under src
      "src/self-consistent/x",
      "src/a",
      "src/a/b/implemented", // two levels below src/a: src/a's files are one level below it
      "src/a/implementedx",
      "src/a/implemented.d",
      "src/b/implemented", // src/b is no module
    ]),
    [],
  );
});

Deno.test("writeCache/readCache: creates the folders, writes the exact bytes, reads them back", async () => {
  await withProject({}, async (root) => {
    assert.equal(await readCache(root, "src/llm", "implemented"), undefined);
    const spec = bytes("# LLM\r\nbytes as they are\u00e9\n");
    const file = await writeCache(root, "src/llm", "implemented", spec);
    assert.equal(file, "agent-state/specifications/src/llm/implemented");
    assert.deepEqual(await Deno.readFile(join(root, file)), spec);
    assert.deepEqual(await readCache(root, "src/llm", "implemented"), spec);
    await writeCache(root, "", "self-consistent", bytes("root"));
    assert.deepEqual(await listFiles(root), [
      "agent-state/specifications/self-consistent",
      "agent-state/specifications/src/llm/implemented",
    ]);
  });
});

Deno.test("writeCache: replaces an older copy and leaves no temporary file", async () => {
  const file = "agent-state/specifications/src/a/documented";
  await withProject({ [file]: "old spec" }, async (root) => {
    await writeCache(root, "src/a", "documented", bytes("new spec"));
    assert.equal(await Deno.readTextFile(join(root, file)), "new spec");
    assert.deepEqual(await listFiles(root), ["agent-state/specifications/src/a/documented"]);
  });
});

Deno.test("readCache: missing folders on the way mean never passed", async () => {
  await withProject({ "agent-state/other.txt": "" }, async (root) => {
    assert.equal(await readCache(root, "src/deep/module", "implemented"), undefined);
  });
});

/** Asserts that `run` rejects with a CodeCommitError matching `pattern`. */
async function assertRefused(run: () => Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(run, (error: unknown) => {
    assert.ok(error instanceof CodeCommitError, String(error));
    assert.match(error.message, pattern);
    return true;
  });
}

for (
  const [name, link] of [
    ["agent-state", "agent-state"],
    ["agent-state/specifications", "agent-state/specifications"],
    ["a module folder", "agent-state/specifications/src"],
  ] as const
) {
  Deno.test(`writeCache/readCache: refuse ${name} as a symbolic link, and write nothing through it`, async () => {
    await withProject({ "elsewhere/keep.txt": "x" }, async (root) => {
      const parent = link.split("/").slice(0, -1).join("/");
      if (parent !== "") await Deno.mkdir(join(root, parent), { recursive: true });
      await Deno.symlink(join(root, "elsewhere"), join(root, link));
      const message = new RegExp(`^${link.replaceAll("/", "\\/")} is a symbolic link: `);
      await assertRefused(() => writeCache(root, "src/a", "implemented", bytes("s")), message);
      await assertRefused(() => readCache(root, "src/a", "implemented"), message);
      assert.deepEqual(await listFiles(join(root, "elsewhere")), ["keep.txt"]);
    });
  });
}

Deno.test("writeCache/readCache: refuse the cache file itself as a symbolic link", async () => {
  await withProject({ "target.txt": "t", "agent-state/specifications/x": "" }, async (root) => {
    await Deno.symlink(
      join(root, "target.txt"),
      join(root, "agent-state/specifications/implemented"),
    );
    await assertRefused(
      () => readCache(root, "", "implemented"),
      /^agent-state\/specifications\/implemented is a symbolic link: /,
    );
    await assertRefused(
      () => writeCache(root, "", "implemented", bytes("s")),
      /^agent-state\/specifications\/implemented is a symbolic link: /,
    );
    assert.equal(await Deno.readTextFile(join(root, "target.txt")), "t");
  });
});

Deno.test("writeCache/readCache: refuse a file where a folder must be, and a folder where the file must be", async () => {
  await withProject({ "agent-state": "a file" }, async (root) => {
    await assertRefused(
      () => writeCache(root, "src/a", "implemented", bytes("s")),
      /^agent-state is not a folder: /,
    );
    await assertRefused(() => readCache(root, "", "implemented"), /^agent-state is not a folder/);
  });
  await withProject({ "agent-state/specifications/implemented/x": "" }, async (root) => {
    await assertRefused(
      () => writeCache(root, "", "implemented", bytes("s")),
      /^agent-state\/specifications\/implemented is not a file: /,
    );
  });
});

Deno.test("readCache: refuses a cache file with a second hard link (its text goes into prompts)", async () => {
  await withProject({}, async (root) => {
    const file = await writeCache(root, "src/a", "implemented", bytes("spec\n"));
    await Deno.link(join(root, file), join(root, "other-name"));
    await assert.rejects(
      readCache(root, "src/a", "implemented"),
      (error: Error) =>
        error instanceof CodeCommitError &&
        error.message.startsWith(`${file} has 2 hard links, so the same file has another name`),
    );
  });
});
