import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import {
  BUILD_PLACEHOLDER_LINE,
  checkAgentConfigIgnored,
  checkBuildScript,
  readCodeRollup,
  readQuery,
} from "../../lib/preconditions/preconditions.ts";
import { git, withProject } from "../support/project.ts";

async function rejectsWith(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert(error instanceof CodeCommitError, String(error));
    assert.equal(error.exitCode, 3);
    assert.match(error.message, pattern);
    return true;
  });
}

/** Files made in agent-config/ to ask git what it would commit: the tool's own, and others. */
const PROBES = [
  "gemini-key.txt",
  "openai-key.txt",
  "query.txt",
  "codeRollup.txt",
  "consistency-report.txt",
  "notes.md",
  "x",
  ".hidden",
  "sub/file.txt",
  "sub/x",
];

/** Whether git would commit nothing in agent-config/ of the project at `root` (made a repository). */
async function gitProtects(root: string): Promise<boolean> {
  await git(root, "init", "-q");
  for (const name of PROBES) {
    await Deno.mkdir(dirname(join(root, "agent-config", name)), { recursive: true });
    await Deno.writeTextFile(join(root, "agent-config", name), "k");
  }
  const status = await git(root, "status", "--porcelain", "--untracked-files=all");
  return !status.includes("agent-config/");
}

/** .gitignore texts that ignore everything in agent-config/ (git agrees: checked below). */
const PROTECTING = [
  "/agent-config\n",
  "agent-config\n",
  "/agent-config/\n",
  "agent-config/\n",
  "# keys\n/agent-config\n",
  "/agent-config/*\n",
  "/agent-config/**\n",
  "**/agent-config/*\n",
  "/agent-config/**/*\n",
  "*\n",
  "/agent-*\n",
  "node_modules/\r\n/agent-config\r\n",
  // Inside an ignored folder nothing can be re-included.
  "/agent-config/\n!/agent-config/gemini-key.txt\n!*.md\n",
  // A negation before the rule that ignores every entry, or one that cannot reach an entry.
  "!*.md\n/agent-config/*\n",
  "/agent-config/*\n!/agent-config/sub/x\n",
  "/agent-config/*\n!/src/keep.md\n",
  "/agent-config/*\n!/agent-config\n",
  "/agent-config/*\n!/agent-config/notes.md\n/agent-config/*\n",
];

/** .gitignore texts that do not (something in agent-config/ would be committed). */
const EXPOSING = [
  "",
  "# /agent-config\n",
  "/agent-config.txt\n",
  "/src/agent-config\n",
  "agent-config/gemini-key.txt\n",
  "/agent-config/*\n!/agent-config/openai-key.txt\n",
  "/Agent-Config\n",
  "\\/agent-config\n",
  "/agent-config\n!/agent-config\n",
  // The keys and the query, but not the rollup (the whole codebase) nor the report.
  "/agent-config/*-key.txt\n/agent-config/query.txt\n",
  "/agent-config/*.txt\n",
  "/agent-config/*/\n",
  "/agent-config/*\n!/agent-config/notes.md\n",
  "/agent-config/*\n!*.md\n",
  "/agent-config/*\n!/agent-config/sub/\n",
  "/agent-config/*\n!/agent-*/x\n",
];

Deno.test(".gitignore must ignore everything in agent-config/ by its meaning, as git reads it", async () => {
  for (
    const [rules, expected] of [
      ...PROTECTING.map((rules) => [rules, true] as const),
      ...EXPOSING.map((rules) => [rules, false] as const),
    ]
  ) {
    await withProject({}, async (root) => {
      await Deno.writeTextFile(join(root, ".gitignore"), rules);
      assert.equal(
        await gitProtects(root),
        expected,
        `git disagrees with the test table on ${JSON.stringify(rules)}`,
      );
      if (expected) {
        await checkAgentConfigIgnored(root);
      } else {
        await rejectsWith(
          checkAgentConfigIgnored(root),
          /^\.gitignore does not ignore everything in agent-config\/ \(.*\): add the line \/agent-config at the end of \.gitignore; /,
        );
      }
    });
  }
});

/** [root .gitignore, agent-config/.gitignore, git would commit nothing there]. */
const WITH_NESTED: readonly [string, string, boolean][] = [
  ["/agent-config/*\n", "!gemini-key.txt\n", false], // git reads it though it is ignored
  ["/agent-config/*\n", "!/x\n", false],
  ["/agent-config/*\n", "!*\n", false],
  ["/agent-config/*\n", "*.tmp\n", true],
  ["/agent-config/*\n", "!sub/x\n", true], // sub is ignored: nothing below it comes back
  ["/agent-config\n", "!gemini-key.txt\n", true], // never read: the folder is ignored
];

Deno.test("agent-config/.gitignore, which outranks the root one, can re-include unless the folder is ignored", async () => {
  for (const [rules, nested, expected] of WITH_NESTED) {
    await withProject({}, async (root) => {
      await Deno.writeTextFile(join(root, ".gitignore"), rules);
      await Deno.mkdir(join(root, "agent-config"));
      await Deno.writeTextFile(join(root, "agent-config/.gitignore"), nested);
      assert.equal(await gitProtects(root), expected, `git disagrees on ${rules} + ${nested}`);
      if (expected) {
        await checkAgentConfigIgnored(root);
      } else {
        await rejectsWith(
          checkAgentConfigIgnored(root),
          /^\.gitignore does not ignore everything in agent-config\/ \(.*the rule .* on line 1 of agent-config\/\.gitignore can re-include names in it\)/,
        );
      }
    });
  }
});

Deno.test("the error names the files the tool uses that are not ignored, and the rule to add", async () => {
  await withProject({}, async (root) => {
    await Deno.writeTextFile(
      join(root, ".gitignore"),
      "/agent-config/*-key.txt\n/agent-config/query.txt\n",
    );
    await rejectsWith(
      checkAgentConfigIgnored(root),
      new RegExp(
        "^\\.gitignore does not ignore everything in agent-config/ \\(agent-config/codeRollup\\.txt " +
          "and agent-config/consistency-report\\.txt are not ignored\\): add the line /agent-config " +
          "at the end of \\.gitignore; it ignores the folder itself, so no rule can re-include " +
          "anything in it, and your API keys and codebase are never committed$",
      ),
    );
    await Deno.writeTextFile(
      join(root, ".gitignore"),
      "/agent-config/*\n!/agent-config/notes.md\n",
    );
    await rejectsWith(
      checkAgentConfigIgnored(root),
      /^\.gitignore does not ignore everything in agent-config\/ \(the rule !\/agent-config\/notes\.md on line 2 of \.gitignore can re-include names in it\): /,
    );
    await Deno.writeTextFile(join(root, ".gitignore"), "/agent-config/*.txt\n");
    await rejectsWith(
      checkAgentConfigIgnored(root),
      /^\.gitignore does not ignore everything in agent-config\/ \(its rules ignore some names in it, but neither the folder itself nor every name\): /,
    );
  });
});

Deno.test("only .gitignore counts: agent-config/ ignored in .git/info/exclude alone is refused", async () => {
  // git would commit nothing here, but .git/info/exclude is this clone's alone: the committed
  // .gitignore must protect every clone.
  await withProject({}, async (root) => {
    await Deno.writeTextFile(join(root, ".gitignore"), "/logs\n");
    assert.equal(await gitProtects(root), false);
    await Deno.writeTextFile(join(root, ".git/info/exclude"), "/agent-config\n");
    assert.equal(await gitProtects(root), true);
    await rejectsWith(
      checkAgentConfigIgnored(root),
      /^\.gitignore does not ignore everything in agent-config\/ \(agent-config\/gemini-key\.txt, .*\): add the line/,
    );
  });
});

/** Lines the random .gitignore texts below are made of. */
const RULE_POOL = [
  "/agent-config",
  "/agent-config/",
  "/agent-config/*",
  "/agent-config/**",
  "agent-config/*",
  "/agent-config/*.txt",
  "/agent-config/*-key.txt",
  "!/agent-config/notes.md",
  "!/agent-config/*.txt",
  "!*.md",
  "!x",
  "!/agent-config/sub/",
  "!/agent-config/sub/x",
  "!/agent-config",
  "*.md",
  "/logs",
  "agent-config/sub/",
];
const NESTED_POOL = [undefined, undefined, "!x\n", "*.tmp\n", "!sub/x\n", "!/notes.md\n"];

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("random .gitignore texts: whatever the check accepts, git commits nothing in agent-config/", async () => {
  const next = random(13);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  let accepted = 0;
  let refused = 0;
  for (let run = 0; run < 24; run++) {
    const lines = Array.from({ length: 1 + Math.floor(next() * 4) }, () => pick(RULE_POOL));
    const rules = lines.map((line) => `${line}\n`).join("");
    const nested = pick(NESTED_POOL);
    await withProject({}, async (root) => {
      await Deno.writeTextFile(join(root, ".gitignore"), rules);
      if (nested !== undefined) {
        await Deno.mkdir(join(root, "agent-config"));
        await Deno.writeTextFile(join(root, "agent-config/.gitignore"), nested);
      }
      const protects = await gitProtects(root);
      const verdict = await checkAgentConfigIgnored(root).then(() => true, () => false);
      if (verdict) accepted++;
      else refused++;
      assert.ok(
        !verdict || protects,
        `accepted, but git would commit a file in agent-config/: ${
          JSON.stringify(rules)
        } with agent-config/.gitignore ${JSON.stringify(nested)}`,
      );
    });
  }
  assert.ok(accepted >= 4 && refused >= 4, `accepted ${accepted}, refused ${refused}`);
});

Deno.test("a symbolic link as .gitignore does not count: git does not read it", async () => {
  await withProject({}, async (root) => {
    await Deno.mkdir(join(root, "docs"));
    await Deno.writeTextFile(join(root, "docs/rules.txt"), "/agent-config\n");
    await Deno.symlink("docs/rules.txt", join(root, ".gitignore"));
    await rejectsWith(
      checkAgentConfigIgnored(root),
      /^\.gitignore is a symbolic link, which git does not read: make it a regular file/,
    );
  });
});

Deno.test("a nested .gitignore that re-includes a key fails, as git would commit it", async () => {
  await withProject({}, async (root) => {
    await git(root, "init", "-q");
    await Deno.writeTextFile(
      join(root, ".gitignore"),
      "/agent-config/*\n!/agent-config/.gitignore\n",
    );
    await Deno.mkdir(join(root, "agent-config"));
    await Deno.writeTextFile(join(root, "agent-config/.gitignore"), "!gemini-key.txt\n");
    await Deno.writeTextFile(join(root, "agent-config/gemini-key.txt"), "k");
    const status = await git(root, "status", "--porcelain", "--untracked-files=all");
    assert.match(status, /agent-config\/gemini-key\.txt/, "git would commit the key");
    await rejectsWith(
      checkAgentConfigIgnored(root),
      /^\.gitignore does not ignore everything in agent-config\/ \(agent-config\/gemini-key\.txt is not ignored; the rule !\/agent-config\/\.gitignore on line 2 of \.gitignore can re-include names in it\): add the line \/agent-config/,
    );
  });
});

Deno.test("a key git already tracks fails, whatever the ignore rules say", async () => {
  await withProject({}, async (root) => {
    await git(root, "init", "-q");
    await Deno.writeTextFile(join(root, ".gitignore"), "/agent-config\n");
    await Deno.mkdir(join(root, "agent-config"));
    await Deno.writeTextFile(join(root, "agent-config/openai-key.txt"), "k");
    await checkAgentConfigIgnored(root);
    await git(root, "add", "-f", "agent-config/openai-key.txt");
    await rejectsWith(
      checkAgentConfigIgnored(root),
      /^git already tracks agent-config\/openai-key\.txt, so ignore rules do not protect it: run git rm --cached -r agent-config/,
    );
  });
});

Deno.test("a missing .gitignore is an error that says what to write", async () => {
  await withProject({}, (root) =>
    rejectsWith(
      checkAgentConfigIgnored(root),
      /^\.gitignore not found in the project root: create it with the line \/agent-config/,
    ));
});

Deno.test("the query and the rollup must exist, and the errors say how to make them", async () => {
  await withProject({}, async (root) => {
    await rejectsWith(
      readQuery(root),
      /^agent-config\/query\.txt not found: write what you want done in it$/,
    );
    await rejectsWith(
      readCodeRollup(root),
      /^agent-config\/codeRollup\.txt not found: run code-commit --rollup to make it, or use --build-context/,
    );
    await Deno.mkdir(join(root, "agent-config/query.txt"), { recursive: true });
    await rejectsWith(readQuery(root), /^agent-config\/query\.txt is not a file/);
    await Deno.remove(join(root, "agent-config/query.txt"));
    await Deno.writeTextFile(join(root, "agent-config/query.txt"), "do it\n");
    assert.equal(await readQuery(root), "do it\n");
  });
});

Deno.test("build.sh must exist, be a file and be executable", async () => {
  await withProject({}, async (root) => {
    await rejectsWith(checkBuildScript(root), /^build\.sh not found in the project root/);
    await Deno.mkdir(join(root, "build.sh"));
    await rejectsWith(checkBuildScript(root), /^build\.sh is not a file/);
    await Deno.remove(join(root, "build.sh"));
    await Deno.writeTextFile(join(root, "build.sh"), "#!/bin/sh\n");
    await Deno.chmod(join(root, "build.sh"), 0o644);
    await rejectsWith(
      checkBuildScript(root),
      /^build\.sh is not executable: run chmod \+x build\.sh$/,
    );
    await Deno.chmod(join(root, "build.sh"), 0o755);
    await checkBuildScript(root);
  });
});

Deno.test("the query and the rollup are read only as regular files: a fifo or a device is refused at once", async () => {
  await withProject({}, async (root) => {
    await Deno.mkdir(join(root, "agent-config"));
    const made = await new Deno.Command("mkfifo", { args: [join(root, "agent-config/query.txt")] })
      .output();
    assert.ok(made.success);
    await rejectsWith(
      readQuery(root),
      /^agent-config\/query\.txt is a fifo \(named pipe\); code-commit reads the query only from a regular file/,
    );
    await Deno.symlink("/dev/zero", join(root, "agent-config/codeRollup.txt"));
    await rejectsWith(
      readCodeRollup(root),
      /^agent-config\/codeRollup\.txt leads to a character device \(through a symbolic link\); code-commit reads the code rollup only from a regular file/,
    );
  });
});

Deno.test("the query is read through a link, as before", async () => {
  await withProject({}, async (root) => {
    await Deno.mkdir(join(root, "agent-config"));
    await Deno.writeTextFile(join(root, "request.md"), "do it\n");
    await Deno.symlink("../request.md", join(root, "agent-config/query.txt"));
    assert.equal(await readQuery(root), "do it\n");
  });
});

Deno.test("an empty query, and --init's placeholder build.sh, are set-up problems", async () => {
  await withProject({}, async (root) => {
    await Deno.mkdir(join(root, "agent-config"));
    await Deno.writeTextFile(join(root, "agent-config/query.txt"), " \n\t\n");
    await rejectsWith(
      readQuery(root),
      /^agent-config\/query\.txt is empty: write what you want done in it$/,
    );
    await Deno.writeTextFile(
      join(root, "build.sh"),
      `#!/bin/sh\n${BUILD_PLACEHOLDER_LINE}\nexit 1\n`,
      { mode: 0o755 },
    );
    await rejectsWith(
      checkBuildScript(root),
      /^build\.sh is still the placeholder code-commit --init wrote/,
    );
  });
});
