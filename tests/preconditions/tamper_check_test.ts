/**
 * The tamper check: build.sh compared with the run's first look at it (kind,
 * link target, permissions, bytes), .gitignore still protecting the keys,
 * and the protected entries compared with the snapshot before the build:
 * what is in it, what counts as new, removed or changed, and what does not.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import {
  type BeforeBuild,
  type BuildScriptSnapshot,
  checkAfterBuild,
  checkBuildScriptUnchanged,
  snapshotBeforeBuild,
  snapshotBuildScript,
} from "../../lib/preconditions/tamper_check.ts";
import { scanProject } from "../../lib/sandbox/project_scan.ts";
import { withProject } from "../support/project.ts";

async function project(test: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "code-commit-tamper-" }));
  try {
    await Deno.writeTextFile(join(root, ".gitignore"), "/agent-config\n");
    await Deno.writeTextFile(join(root, "build.sh"), "#!/bin/sh\nexit 0\n");
    await Deno.chmod(join(root, "build.sh"), 0o755);
    await test(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** Snapshots build.sh, the protected entries and .gitignore, lets `change` run, then checks. */
async function afterChange(root: string, change: (root: string) => Promise<void>): Promise<void> {
  const buildScript = await snapshotBuildScript(root);
  const before = await snapshotBeforeBuild(root, await scanProject(root));
  await change(root);
  await checkAfterBuild(root, buildScript, before);
}

function refused(pattern: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert(error instanceof CodeCommitError);
    assert.equal(error.exitCode, 5);
    assert.match(error.message, pattern);
    assert.match(error.message, /before any further LLM call/);
    assert.match(error.message, /git status shows the files it made, git diff what it changed/);
    assert.match(error.message, /code-commit --undo takes back what the run's replies changed/);
    assert(!error.message.includes("\n"));
    return true;
  };
}

Deno.test("nothing changed: the check passes", async () => {
  await project(async (root) => {
    await afterChange(root, (root) => Deno.writeTextFile(join(root, "out.txt"), "built\n"));
  });
});

Deno.test("build.sh changed by one byte, replaced, removed or chmod-ed: stopped, naming build.sh", async () => {
  const changes: [string, (root: string) => Promise<void>, RegExp][] = [
    [
      "one byte",
      (root) => Deno.writeTextFile(join(root, "build.sh"), "#!/bin/sh\nexit 1\n"),
      /it is not what it was/,
    ],
    [
      "appended",
      (root) => Deno.writeTextFile(join(root, "build.sh"), "true\n", { append: true }),
      /it is not what it was/,
    ],
    ["removed", (root) => Deno.remove(join(root, "build.sh")), /it is gone/],
    [
      "not executable",
      (root) => Deno.chmod(join(root, "build.sh"), 0o644),
      /its permissions changed from 100755 to 100644/,
    ],
  ];
  for (const [name, change, what] of changes) {
    await project(async (root) => {
      await assert.rejects(
        afterChange(root, change),
        refused(new RegExp(`^build\\.sh changed while \\./build\\.sh ran: ${what.source}`)),
        name,
      );
    });
  }
});

Deno.test("build.sh swapped for a link to an identical copy: stopped, though the bytes match", async () => {
  await project(async (root) => {
    await assert.rejects(
      afterChange(root, async (root) => {
        await Deno.copyFile(join(root, "build.sh"), join(root, "tools-build.sh"));
        await Deno.symlink("tools-build.sh", join(root, "build.sh.new"));
        await Deno.rename(join(root, "build.sh.new"), join(root, "build.sh"));
      }),
      refused(/^build\.sh changed while \.\/build\.sh ran: it is now a link to tools-build\.sh/),
    );
  });
});

Deno.test("build.sh a link: what it leads to is compared too, and where it points", async () => {
  await project(async (root) => {
    await Deno.mkdir(join(root, "ci"));
    await Deno.rename(join(root, "build.sh"), join(root, "ci/build.sh"));
    await Deno.symlink("ci/build.sh", join(root, "build.sh"));
    const was = await snapshotBuildScript(root);
    await checkBuildScriptUnchanged(root, was, "after the reply was applied");
    // A reply that wrote ci/build.sh (the guard allows the path; it is not build.sh).
    await Deno.writeTextFile(join(root, "ci/build.sh"), "#!/bin/sh\necho always passes\n");
    await assert.rejects(
      checkBuildScriptUnchanged(root, was, "since the run started"),
      (error: unknown) => {
        refused(/^build\.sh changed since the run started: ci\/build\.sh, where it leads, is not/)(
          error,
        );
        assert.match((error as Error).message, /git checkout -- build\.sh ci\/build\.sh\)/);
        return true;
      },
    );
  });
});

Deno.test("a build.sh that cannot be compared is refused when the run starts, not equal to itself", async () => {
  await project(async (root) => {
    await Deno.writeTextFile(join(root, "build.sh"), "#".repeat(2 * 2 ** 20));
    await assert.rejects(snapshotBuildScript(root), (error: unknown) => {
      assert(error instanceof CodeCommitError);
      assert.match(error.message, /^build\.sh is 2 MiB, more than the 1 MiB/);
      assert.match(error.message, /compares build\.sh after every build/);
      return true;
    });
  });
  await project(async (root) => {
    await Deno.remove(join(root, "build.sh"));
    const made = await new Deno.Command("mkfifo", { args: [join(root, "build.sh")] }).output();
    assert.ok(made.success);
    await assert.rejects(snapshotBuildScript(root), CodeCommitError);
  });
});

Deno.test(".gitignore no longer ignoring /agent-config: stopped, naming .gitignore", async () => {
  const changes: [string, string][] = [
    ["emptied", ""],
    ["re-included", "/agent-config\n!/agent-config/\n!/agent-config/*\n"],
  ];
  for (const [name, text] of changes) {
    await project(async (root) => {
      await assert.rejects(
        afterChange(root, (root) => Deno.writeTextFile(join(root, ".gitignore"), text)),
        refused(/^\.gitignore no longer protects the keys after \.\/build\.sh ran: \.gitignore/),
        name,
      );
    });
  }
});

Deno.test("a .gitignore rewritten with the same meaning: still a changed protected entry", async () => {
  await project(async (root) => {
    await assert.rejects(
      afterChange(
        root,
        (root) => Deno.writeTextFile(join(root, ".gitignore"), "# keys\n/agent-config/\n*.log\n"),
      ),
      refused(/^\.\/build\.sh changed protected entries of the project: \.gitignore \(changed\)/),
    );
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
      await assert.rejects(
        afterChange(root, change),
        refused(/^build\.sh changed while \.\/build\.sh ran: it cannot be read any more/),
        name,
      );
    });
  }
});

const PUT_BACK =
  /; code-commit put \.gitignore back as it was before the build \(what the build wrote there is gone\), so agent-config\/ stays ignored$/;

Deno.test("with no copy of .gitignore from before the build, a stop says to restore it only when it no longer protects the keys", async () => {
  for (const [text, advice] of [["", true], ["/agent-config\n", false]] as const) {
    await project(async (root) => {
      const buildScript = await snapshotBuildScript(root);
      const before = await snapshotBeforeBuild(root, await scanProject(root));
      await Deno.writeTextFile(join(root, ".gitignore"), text);
      await Deno.writeTextFile(join(root, "build.sh"), "#!/bin/sh\nexit 1\n");
      await assert.rejects(
        () => checkAfterBuild(root, buildScript, { ...before, gitignore: undefined }),
        (error) => {
          assert(error instanceof CodeCommitError);
          assert.equal(
            /no copy of \.gitignore from before the build to put back, and it does not protect the keys .*; restore \.gitignore before any git add/
              .test(error.message),
            advice,
            error.message,
          );
          return true;
        },
      );
      assert.equal(await Deno.readTextFile(join(root, ".gitignore")), text);
    });
  }
});

Deno.test("a tamper stop puts .gitignore back as it was before the build: emptied, rewritten, removed, or emptied along with build.sh", async () => {
  const changes: [string, (root: string) => Promise<void>, RegExp][] = [
    [
      "emptied",
      (root) => Deno.writeTextFile(join(root, ".gitignore"), ""),
      /^\.gitignore no longer protects the keys/,
    ],
    [
      "same meaning",
      (root) => Deno.writeTextFile(join(root, ".gitignore"), "/agent-config/\n"),
      /^\.\/build\.sh changed protected entries of the project: \.gitignore \(changed\)/,
    ],
    ["removed", (root) => Deno.remove(join(root, ".gitignore")), /^\.gitignore no longer/],
    [
      "with build.sh",
      async (root) => {
        await Deno.writeTextFile(join(root, "build.sh"), "#!/bin/sh\nexit 0 # always\n");
        await Deno.writeTextFile(join(root, ".gitignore"), "");
      },
      /^build\.sh changed while \.\/build\.sh ran: it is not what it was/,
    ],
  ];
  for (const [name, change, what] of changes) {
    await project(async (root) => {
      await Deno.chmod(join(root, ".gitignore"), 0o640);
      await assert.rejects(afterChange(root, change), (error: unknown) => {
        refused(what)(error);
        assert.match((error as Error).message, PUT_BACK, name);
        return true;
      }, name);
      assert.equal(await Deno.readTextFile(join(root, ".gitignore")), "/agent-config\n", name);
      const info = await Deno.lstat(join(root, ".gitignore"));
      assert.ok(info.isFile, name);
      assert.equal((info.mode ?? 0) & 0o777, 0o640, name);
    });
  }
});

Deno.test("a .gitignore the build made a link or a folder is not replaced: the stop says to restore it before any git add", async () => {
  const changes: [string, (root: string) => Promise<void>, RegExp][] = [
    ["a link", async (root) => {
      await Deno.writeTextFile(join(root, "elsewhere"), "");
      await Deno.remove(join(root, ".gitignore"));
      await Deno.symlink("elsewhere", join(root, ".gitignore"));
    }, /the build left \.gitignore a symbolic link/],
    ["a folder", async (root) => {
      await Deno.remove(join(root, ".gitignore"));
      await Deno.mkdir(join(root, ".gitignore"));
    }, /the build left \.gitignore a folder/],
  ];
  for (const [name, change, what] of changes) {
    await project(async (root) => {
      await assert.rejects(afterChange(root, change), (error: unknown) => {
        refused(/^\.gitignore no longer protects the keys/)(error);
        const message = (error as Error).message;
        assert.match(message, what, name);
        assert.match(
          message,
          /restore \.gitignore before any git add \(git add -A would commit agent-config\/, your API keys with it\)/,
          name,
        );
        return true;
      }, name);
      assert.equal((await Deno.lstat(join(root, ".gitignore"))).isFile, false, name);
    });
  }
});

Deno.test("a tamper stop that left .gitignore alone says nothing about it", async () => {
  await project(async (root) => {
    await assert.rejects(
      afterChange(root, (root) => Deno.writeTextFile(join(root, "build.sh"), "#!/bin/sh\n")),
      (error: unknown) => {
        refused(/^build\.sh changed/)(error);
        assert.doesNotMatch((error as Error).message, /\.gitignore/);
        return true;
      },
    );
  });
});

/** build.sh and the project just before a build, as the check after it compares with. */
async function snapshots(root: string): Promise<Snapshots> {
  return {
    buildScript: await snapshotBuildScript(root),
    before: await snapshotBeforeBuild(root, await scanProject(root)),
  };
}

type Snapshots = { buildScript: BuildScriptSnapshot; before: BeforeBuild };

/** What the check after a build names as changed since `taken` (`path (change)`), in order. */
async function changes(root: string, taken: Snapshots): Promise<string[]> {
  try {
    await checkAfterBuild(root, taken.buildScript, taken.before);
    return [];
  } catch (error) {
    assert(error instanceof CodeCommitError);
    const named = /^\.\/build\.sh changed protected entries of the project: (.*?);/.exec(
      error.message,
    );
    assert(named !== null, error.message);
    return named[1].split(", ");
  }
}

const PROTECTED_FILES = {
  ".gitignore": "/agent-config\n/logs\nnode_modules/\n",
  "build.sh": "#!/bin/sh\n",
  "LLMInstructions.md": "be kind\n",
  "src/.gitignore": "*.tmp\n",
  "src/mod/UserSpecification.md": "spec\n",
  "agent-state/cache/a.md": "spec copy\n",
  "agent-config/gemini-key.txt": "AIza-key\n",
  "logs/run/x.txt": "",
  "node_modules/pkg/.gitignore": "",
};

Deno.test("the snapshot holds the protected entries git reads, agent-state/ whole, not logs/ nor build.sh", async () => {
  await withProject(PROTECTED_FILES, async (root) => {
    const real = await Deno.realPath(root);
    const snapshot = (await snapshotBeforeBuild(real, await scanProject(real))).protected;
    assert.deepEqual([...snapshot.keys()].sort(), [
      ".git",
      ".gitignore",
      "LLMInstructions.md",
      "agent-state",
      "agent-state/cache",
      "agent-state/cache/a.md",
      "src/.gitignore",
      "src/mod/UserSpecification.md",
    ]);
    assert.match(
      snapshot.get(".gitignore")!,
      /^file \d+:\d+ mode 100644 sha256 [0-9a-f]{64}$/,
    );
    assert.match(snapshot.get(".git")!, /^folder /);
  }, { folders: [".git/hooks"] });
});

Deno.test("new, removed and changed entries are named; other files are not", async () => {
  await withProject(PROTECTED_FILES, async (root) => {
    const real = await Deno.realPath(root);
    const taken = await snapshots(real);
    await Deno.writeTextFile(join(real, "src/main.rs"), "fn main() {}\n");
    await Deno.writeTextFile(join(real, "node_modules/pkg/.gitignore"), "*\n"); // git does not read it
    assert.deepEqual(await changes(real, taken), []);
    await Deno.mkdir(join(real, "tests"));
    await Deno.writeTextFile(join(real, "tests/.gitignore"), "conftest.py\n");
    await Deno.remove(join(real, "src/mod/UserSpecification.md"));
    await Deno.writeTextFile(join(real, "agent-state/cache/b.md"), "another\n");
    await Deno.chmod(join(real, "LLMInstructions.md"), 0o600);
    assert.deepEqual(await changes(real, taken), [
      "LLMInstructions.md (changed)",
      "agent-state/cache/b.md (new)",
      "src/mod/UserSpecification.md (removed)",
      "tests/.gitignore (new)",
    ]);
  });
});

Deno.test("the same bytes in a new file (a rename over it) is a change; a link's target counts", async () => {
  await withProject(PROTECTED_FILES, async (root) => {
    const real = await Deno.realPath(root);
    await Deno.symlink("src/.gitignore", join(real, "x.gitignore"));
    await Deno.symlink("a", join(real, "src/mod/.gitignore"));
    const taken = await snapshots(real);
    await Deno.writeTextFile(join(real, "copy"), "*.tmp\n");
    await Deno.rename(join(real, "copy"), join(real, "src/.gitignore"));
    await Deno.remove(join(real, "src/mod/.gitignore"));
    await Deno.symlink("b", join(real, "src/mod/.gitignore"));
    assert.deepEqual(await changes(real, taken), [
      "src/.gitignore (changed)",
      "src/mod/.gitignore (changed)",
    ]);
  });
});

Deno.test("a changed protected entry: one line, exit 5, a new .git told to be removed first", async () => {
  await withProject(PROTECTED_FILES, async (root) => {
    const real = await Deno.realPath(root);
    const { buildScript, before } = await snapshots(real);
    await checkAfterBuild(real, buildScript, before);
    await Deno.mkdir(join(real, "src/.git"));
    await Deno.writeTextFile(join(real, "src/.git/config"), "[core]\n\tfsmonitor = evil\n");
    await assert.rejects(
      checkAfterBuild(real, buildScript, before),
      refused(
        /^\.\/build\.sh changed protected entries of the project: src\/\.git \(new\); remove src\/\.git before you run any git command in its folder/,
      ),
    );
  });
});

Deno.test("a protected file that cannot be read is a state too: equal only to itself", async () => {
  await withProject(PROTECTED_FILES, async (root) => {
    const real = await Deno.realPath(root);
    await Deno.writeTextFile(join(real, "src/mod/UserSpecification.md"), "x".repeat(5 * 2 ** 20));
    const taken = await snapshots(real);
    assert.match(
      taken.before.protected.get("src/mod/UserSpecification.md")!,
      /^large file .* size 5242880/,
    );
    assert.deepEqual(await changes(real, taken), []);
    await Deno.writeTextFile(join(real, "src/mod/UserSpecification.md"), "y", { append: true });
    assert.deepEqual(await changes(real, taken), ["src/mod/UserSpecification.md (changed)"]);
  });
});
