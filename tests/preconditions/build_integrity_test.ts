/** The tamper check after every build: build.sh byte for byte, .gitignore still protecting the keys. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import { checkAfterBuild, snapshotBuildScript } from "../../lib/preconditions/build_integrity.ts";

async function project(test: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "code-commit-integrity-" });
  try {
    await Deno.writeTextFile(join(root, ".gitignore"), "/agent-config\n");
    await Deno.writeTextFile(join(root, "build.sh"), "#!/bin/sh\nexit 0\n");
    await test(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

function refused(pattern: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert(error instanceof CodeCommitError);
    assert.equal(error.exitCode, 1);
    assert.match(error.message, pattern);
    assert.match(error.message, /before any further LLM call/);
    assert(!error.message.includes("\n"));
    return true;
  };
}

Deno.test("nothing changed: the check passes", async () => {
  await project(async (root) => {
    const before = await snapshotBuildScript(root);
    await Deno.writeTextFile(join(root, "out.txt"), "built\n");
    await checkAfterBuild(root, before);
  });
});

Deno.test("build.sh changed by one byte, replaced, or removed: stopped, naming build.sh", async () => {
  const changes: [string, (root: string) => Promise<void>][] = [
    ["one byte", (root) => Deno.writeTextFile(join(root, "build.sh"), "#!/bin/sh\nexit 1\n")],
    ["appended", (root) => Deno.writeTextFile(join(root, "build.sh"), "true\n", { append: true })],
    ["removed", (root) => Deno.remove(join(root, "build.sh"))],
  ];
  for (const [name, change] of changes) {
    await project(async (root) => {
      const before = await snapshotBuildScript(root);
      await change(root);
      await assert.rejects(
        checkAfterBuild(root, before),
        refused(/^build\.sh changed while/),
        name,
      );
    });
  }
});

Deno.test(".gitignore no longer ignoring /agent-config: stopped, naming .gitignore", async () => {
  const changes: [string, string][] = [
    ["emptied", ""],
    ["re-included", "/agent-config\n!/agent-config/\n!/agent-config/*\n"],
  ];
  for (const [name, text] of changes) {
    await project(async (root) => {
      const before = await snapshotBuildScript(root);
      await Deno.writeTextFile(join(root, ".gitignore"), text);
      await assert.rejects(
        checkAfterBuild(root, before),
        refused(/^\.gitignore no longer protects the keys after \.\/build\.sh ran: \.gitignore/),
        name,
      );
    });
  }
});

Deno.test("a .gitignore rewritten with the same meaning is fine", async () => {
  await project(async (root) => {
    const before = await snapshotBuildScript(root);
    await Deno.writeTextFile(join(root, ".gitignore"), "# keys\n/agent-config/\n*.log\n");
    await checkAfterBuild(root, before);
  });
});

Deno.test("build.sh replaced by a fifo or a link to /dev/zero: stopped at once, nothing read", async () => {
  const changes: [string, (root: string) => Promise<void>][] = [
    ["a fifo", async (root) => {
      await Deno.remove(join(root, "build.sh"));
      const made = await new Deno.Command("mkfifo", { args: [join(root, "build.sh")] }).output();
      assert.ok(made.success);
    }],
    ["a link to /dev/zero", async (root) => {
      await Deno.remove(join(root, "build.sh"));
      await Deno.symlink("/dev/zero", join(root, "build.sh"));
    }],
  ];
  for (const [name, change] of changes) {
    await project(async (root) => {
      const before = await snapshotBuildScript(root);
      await change(root);
      await assert.rejects(
        checkAfterBuild(root, before),
        refused(/^build\.sh changed while \.\/build\.sh ran: it is gone or unreadable/),
        name,
      );
    });
  }
});
