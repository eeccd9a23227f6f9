import assert from "node:assert/strict";
import { join } from "node:path";
import { describeSpecial } from "../../lib/file_system/lstat.ts";
import { EntryKinds } from "../../lib/guard/entry_kinds.ts";
import { withProject, writeFiles } from "../support/project.ts";

Deno.test("EntryKinds tells files, folders, links, special files and missing paths apart", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, { "src/a.ts": "x" });
    await Deno.symlink("src", join(root, "link"));
    await Deno.symlink("nowhere", join(root, "dangling"));
    const mkfifo = await new Deno.Command("mkfifo", { args: [join(root, "pipe")] }).output();
    assert.ok(mkfifo.success);
    const entries = new EntryKinds(root);
    assert.equal(await entries.kind("src"), "folder");
    assert.equal(await entries.kind("src/a.ts"), "file");
    assert.equal(await entries.kind("link"), "symlink");
    assert.equal(await entries.kind("dangling"), "symlink");
    assert.equal(await entries.kind("pipe"), "special");
    assert.equal(await entries.kind("missing"), "missing");
    assert.equal(await entries.kind("src/a.ts/x"), "missing"); // NotADirectory
    assert.equal(describeSpecial((await entries.info("pipe"))!), "a fifo (named pipe)");
  });
});

Deno.test("EntryKinds.isRealFolder refuses folders reached through a link", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, { "real/deep/x": "" });
    await Deno.symlink("real", join(root, "link"));
    const entries = new EntryKinds(root);
    assert.equal(await entries.isRealFolder(""), true);
    assert.equal(await entries.isRealFolder("real/deep"), true);
    assert.equal(await entries.isRealFolder("link"), false);
    assert.equal(await entries.isRealFolder("link/deep"), false);
    assert.equal(await entries.isRealFolder("real/deep/x"), false);
    assert.equal(await entries.isRealFolder("nowhere"), false);
  });
});

Deno.test("EntryKinds caches: one lstat per path per instance", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, { "a": "" });
    const entries = new EntryKinds(root);
    assert.equal(await entries.kind("a"), "file");
    await Deno.remove(join(root, "a"));
    assert.equal(await entries.kind("a"), "file");
    assert.equal(await new EntryKinds(root).kind("a"), "missing");
  });
});
