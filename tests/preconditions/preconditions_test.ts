import assert from "node:assert/strict";
import { join } from "node:path";
import { CodeCommitError } from "../../lib/errors/errors.ts";
import {
  checkAgentConfigIgnored,
  checkBuildScript,
  readCodeRollup,
  readQuery,
} from "../../lib/preconditions/preconditions.ts";
import { git } from "../support/project.ts";

async function inTemp(test: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "code-commit-pre-" });
  try {
    await test(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function rejectsWith(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert(error instanceof CodeCommitError, String(error));
    assert.equal(error.exitCode, 1);
    assert.match(error.message, pattern);
    return true;
  });
}

/** .gitignore texts that protect agent-config/ (git agrees: checked below). */
const PROTECTING = [
  "/agent-config\n",
  "agent-config\n",
  "/agent-config/\n",
  "agent-config/\n",
  "# keys\n/agent-config\n",
  "/agent-config/*\n",
  "/agent-config/**\n",
  "*\n",
  "/agent-*\n",
  "node_modules/\r\n/agent-config\r\n",
];

/** .gitignore texts that do not (a key file would be committed). */
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
];

Deno.test(".gitignore protects agent-config/ by its meaning, as git reads it", async () => {
  for (
    const [rules, expected] of [
      ...PROTECTING.map((rules) => [rules, true] as const),
      ...EXPOSING.map((rules) => [rules, false] as const),
    ]
  ) {
    await inTemp(async (root) => {
      await Deno.writeTextFile(join(root, ".gitignore"), rules);
      // What git itself says about the key files.
      await git(root, "init", "-q");
      await Deno.mkdir(join(root, "agent-config"));
      await Deno.writeTextFile(join(root, "agent-config/gemini-key.txt"), "k");
      await Deno.writeTextFile(join(root, "agent-config/openai-key.txt"), "k");
      const status = await git(root, "status", "--porcelain", "--untracked-files=all");
      const gitProtects = !status.includes("agent-config/");
      assert.equal(
        gitProtects,
        expected,
        `git disagrees with the test table on ${JSON.stringify(rules)}`,
      );
      if (expected) {
        await checkAgentConfigIgnored(root);
      } else {
        await rejectsWith(
          checkAgentConfigIgnored(root),
          /\.gitignore does not ignore .*add the line \/agent-config/,
        );
      }
    });
  }
});

Deno.test("a symbolic link as .gitignore does not count: git does not read it", async () => {
  await inTemp(async (root) => {
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
  await inTemp(async (root) => {
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
      /^\.gitignore does not ignore agent-config\/gemini-key\.txt: .*re-includes/,
    );
  });
});

Deno.test("a key git already tracks fails, whatever the ignore rules say", async () => {
  await inTemp(async (root) => {
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
  await inTemp((root) =>
    rejectsWith(
      checkAgentConfigIgnored(root),
      /^\.gitignore not found in the project root: create it with the line \/agent-config/,
    )
  );
});

Deno.test("the query and the rollup must exist, and the errors say how to make them", async () => {
  await inTemp(async (root) => {
    await rejectsWith(
      readQuery(root),
      /^agent-config\/query\.txt not found: write what you want done in it$/,
    );
    await rejectsWith(
      readCodeRollup(root),
      /^agent-config\/codeRollup\.txt not found: run \.\/codeRollup\.sh .*--build-context/,
    );
    await Deno.mkdir(join(root, "agent-config/query.txt"), { recursive: true });
    await rejectsWith(readQuery(root), /^agent-config\/query\.txt is not a file/);
    await Deno.remove(join(root, "agent-config/query.txt"));
    await Deno.writeTextFile(join(root, "agent-config/query.txt"), "do it\n");
    assert.equal(await readQuery(root), "do it\n");
  });
});

Deno.test("build.sh must exist, be a file and be executable", async () => {
  await inTemp(async (root) => {
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
