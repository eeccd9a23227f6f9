import assert from "node:assert/strict";
import { join } from "node:path";
import { readProjectFile } from "../../lib/project_files/read_file.ts";
import { IgnoreRules } from "../../lib/guard/ignore_rules.ts";
import { withProject, writeFiles } from "../support/project.ts";

/** The largest file a prompt shows: 1 MiB. */
const MAX_FILE_BYTES = 1024 * 1024;

const PROJECT = {
  ".gitignore": "/agent-config\n*.secret\n",
  "src/a.ts": "export const a = 1;\n",
  "src/empty.ts": "",
  "src/x.secret": "hidden\n",
  "agent-config/gemini-key.txt": "AIza-not-a-real-key\n",
  "build.sh": "#!/bin/sh\n",
};

Deno.test("readProjectFile reads a file the guard allows, as UTF-8, without a leading ./", async () => {
  await withProject({}, async (root) => {
    await writeFiles(root, PROJECT);
    const rules = await IgnoreRules.load(root);
    assert.deepEqual(await readProjectFile(root, "src/a.ts", rules), {
      ok: true,
      path: "src/a.ts",
      text: "export const a = 1;\n",
    });
    assert.deepEqual(await readProjectFile(root, "./src/empty.ts", rules), {
      ok: true,
      path: "src/empty.ts",
      text: "",
    });
    assert.deepEqual(await readProjectFile(root, "build.sh", rules), {
      ok: true,
      path: "build.sh",
      text: "#!/bin/sh\n",
    });
  });
});

Deno.test("readProjectFile decodes invalid UTF-8 with replacement characters", async () => {
  await withProject({}, async (root) => {
    await Deno.writeFile(join(root, "latin1.txt"), new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const outcome = await readProjectFile(root, "latin1.txt", await IgnoreRules.load(root));
    assert.deepEqual(outcome, { ok: true, path: "latin1.txt", text: "caf\ufffd\n" });
  });
});

const REFUSED: {
  name: string;
  path: string;
  reason: RegExp;
  setup?: (root: string, outside: string) => Promise<void>;
}[] = [
  { name: "an ignored file", path: "src/x.secret", reason: /is ignored by \.gitignore/ },
  {
    name: "a key file",
    path: "agent-config/gemini-key.txt",
    reason: /may not be read: `agent-config\/`/,
  },
  { name: "a traversal", path: "src/../build.sh", reason: /`\.\.` segment/ },
  { name: "an absolute path", path: "/etc/hostname", reason: /is absolute/ },
  { name: "a missing file", path: "src/nope.ts", reason: /does not exist/ },
  { name: "a folder", path: "src", reason: /names an existing folder/ },
  {
    name: "a link to a file outside",
    path: "src/out.txt",
    reason: /is a symbolic link/,
    setup: (root, outside) => Deno.symlink(join(outside, "secret.txt"), join(root, "src/out.txt")),
  },
  {
    name: "a link to a file inside",
    path: "src/b.ts",
    reason: /is a symbolic link/,
    setup: (root) => Deno.symlink("a.ts", join(root, "src/b.ts")),
  },
  {
    name: "a path through a linked folder",
    path: "src/dir/secret.txt",
    reason: /passes through `src\/dir`, a symbolic link/,
    setup: (root, outside) => Deno.symlink(outside, join(root, "src/dir")),
  },
  {
    name: "a binary file",
    path: "src/image.png",
    reason: /is a binary file \(it holds NUL bytes\)/,
    setup: (root) =>
      Deno.writeFile(join(root, "src/image.png"), new Uint8Array([0x89, 0x50, 0, 1])),
  },
  {
    name: "a file larger than the limit",
    path: "src/big.txt",
    reason: /is 1\.0 MiB, more than the 1 MiB a file may have in a prompt/,
    setup: (root) => Deno.writeTextFile(join(root, "src/big.txt"), "x".repeat(MAX_FILE_BYTES + 1)),
  },
];

/** The paths of {@link REFUSED} that the guard allows, whose content alone is withheld. */
const WITHHELD = new Set(["src/image.png", "src/big.txt"]);

for (const { name, path, reason, setup } of REFUSED) {
  Deno.test(`readProjectFile refuses ${name}`, async () => {
    await withProject({}, async (root) => {
      await writeFiles(root, PROJECT);
      const outside = await Deno.makeTempDir({ prefix: "code-commit-outside-" });
      try {
        await Deno.writeTextFile(join(outside, "secret.txt"), "outside secret\n");
        await setup?.(root, outside);
        const outcome = await readProjectFile(root, path, await IgnoreRules.load(root));
        assert.equal(outcome.ok, false);
        if (!outcome.ok) {
          assert.match(outcome.reason, reason);
          // Only a file the guard allows may be named in a prompt with a note.
          assert.equal(outcome.withheld, WITHHELD.has(path), "withheld");
        }
        assert.ok(!JSON.stringify(outcome).includes("secret\\n"));
      } finally {
        await Deno.remove(outside, { recursive: true });
      }
    });
  });
}

Deno.test("readProjectFile accepts a file of exactly the limit", async () => {
  await withProject({}, async (root) => {
    await Deno.writeTextFile(join(root, "max.txt"), "y".repeat(MAX_FILE_BYTES));
    const outcome = await readProjectFile(root, "max.txt", await IgnoreRules.load(root));
    assert.equal(outcome.ok && outcome.text.length, MAX_FILE_BYTES);
  });
});

Deno.test("readProjectFile refuses a file with a second name (a hard link), which may be outside the project", async () => {
  await withProject({}, async (root) => {
    const outside = await Deno.makeTempDir({ prefix: "code-commit-outside-" });
    try {
      await Deno.writeTextFile(join(outside, "secret.txt"), "outside secret\n");
      await Deno.mkdir(join(root, "src"));
      await Deno.link(join(outside, "secret.txt"), join(root, "src/linked.txt"));
      const outcome = await readProjectFile(root, "src/linked.txt", await IgnoreRules.load(root));
      assert.deepEqual(outcome, {
        ok: false,
        path: "src/linked.txt",
        reason: "has more than one hard link (another name of the same file may be outside the " +
          "project), so it is not sent to the model",
        withheld: false,
      });
      await Deno.remove(join(outside, "secret.txt"));
      const alone = await readProjectFile(root, "src/linked.txt", await IgnoreRules.load(root));
      assert.deepEqual(alone, { ok: true, path: "src/linked.txt", text: "outside secret\n" });
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  });
});
