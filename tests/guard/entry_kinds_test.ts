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
    assert.equal(entries.kind("src"), "folder");
    assert.equal(entries.kind("src/a.ts"), "file");
    assert.equal(entries.kind("link"), "symlink");
    assert.equal(entries.kind("dangling"), "symlink");
    assert.equal(entries.kind("pipe"), "special");
    assert.equal(entries.kind("missing"), "missing");
    assert.equal(entries.kind("src/a.ts/x"), "missing"); // NotADirectory
    assert.equal(describeSpecial(entries.info("pipe")!), "a fifo (named pipe)");
  });
});

Deno.test("EntryKinds.isRealFolder refuses folders reached through a link", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, { "real/deep/x": "" });
    await Deno.symlink("real", join(root, "link"));
    const entries = new EntryKinds(root);
    assert.equal(entries.isRealFolder(""), true);
    assert.equal(entries.isRealFolder("real/deep"), true);
    assert.equal(entries.isRealFolder("link"), false);
    assert.equal(entries.isRealFolder("link/deep"), false);
    assert.equal(entries.isRealFolder("real/deep/x"), false);
    assert.equal(entries.isRealFolder("nowhere"), false);
  });
});

Deno.test("EntryKinds caches: one lstat per path per instance", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, { "a": "" });
    const entries = new EntryKinds(root);
    assert.equal(entries.kind("a"), "file");
    await Deno.remove(join(root, "a"));
    assert.equal(entries.kind("a"), "file");
    assert.equal(new EntryKinds(root).kind("a"), "missing");
  });
});

Deno.test("EntryKinds throws the same error at each ask for a path it cannot inspect", async () => {
  await withProject({}, async (root) => {
    await Deno.symlink("loop", join(root, "loop"));
    const entries = new EntryKinds(root);
    assert.equal(entries.kind("loop"), "symlink");
    // `lstat` of `loop/x` resolves the link `loop`, which leads to itself: an error, not a missing entry.
    let first: unknown;
    assert.throws(() => entries.info("loop/x"), (error) => (first = error) instanceof Error);
    assert.throws(() => entries.kind("loop/x"), (error) => error === first);
    // Not looked at for this question: the folder above is a link.
    assert.equal(entries.isRealFolder("loop/x"), false);
    assert.match(String(first), /cannot inspect/);
  });
});
