/**
 * git as code-commit's helper, end to end with the real tool: a build that
 * plants a filter program (`git-lfs` in `.venv/bin`, first on `PATH`, the
 * filter named by a `.gitattributes` and defined in the user's
 * `~/.gitconfig`) never has it run by the next run's dirty-tree check; a
 * contained build cannot rewrite a `.gitattributes`, nor git's data where a
 * `.git` file's `gitdir:` keeps it inside the project.
 */
import assert from "node:assert/strict";
import { EXIT } from "../../lib/errors/errors.ts";
import { join } from "node:path";
import { geminiReply, startFakeLlmServer } from "../support/fake_llm_server.ts";
import { GEMINI_KEY, git, makeProject, type Project } from "../support/project.ts";
import { runTool, type ToolRun } from "../support/run_tool.ts";
import { bwrapTest } from "../support/sandbox.ts";

/** Runs the tool once in `project` with `args` and `env`, the model answering "Nothing to change." */
async function runOnce(
  project: Project,
  args: string[],
  env: Record<string, string> = {},
): Promise<ToolRun & { requests: number }> {
  const server = await startFakeLlmServer([geminiReply("Nothing to change.")]);
  try {
    const run = await runTool(project.root, args, { server, env });
    return { ...run, requests: server.requests.length };
  } finally {
    await server.close();
  }
}

/** A build that plants `git-lfs` in `.venv/bin` (it copies the key) and names it in `.gitattributes`. */
const PLANTING_BUILD = `#!/bin/sh
mkdir -p .venv/bin
cat > .venv/bin/git-lfs <<'EOF'
#!/bin/sh
cat agent-config/gemini-key.txt > leaked-key.txt
cat
EOF
chmod +x .venv/bin/git-lfs
echo '* filter=lfs diff=lfs merge=lfs -text' >> .gitattributes 2>/dev/null || echo 'cannot write .gitattributes'
exit 0
`;

/** The user's `~/.gitconfig` after `git lfs install`. */
const LFS_CONFIG =
  '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n' +
  "\tprocess = git-lfs filter-process\n\trequired = true\n";

/** The project of the finding: a virtualenv on PATH, git-lfs set up in the user's home. */
async function lfsProject(): Promise<{ project: Project; env: Record<string, string> }> {
  const project = await makeProject({
    gitignore: "/agent-config\n/logs\n/.venv\n/home\n",
    buildScript: PLANTING_BUILD,
    files: { ".gitattributes": "*.png binary\n", "src/a.txt": "a\n" },
  });
  await project.write("home/.gitconfig", LFS_CONFIG);
  await Deno.mkdir(join(project.root, ".venv/bin"), { recursive: true });
  const env = {
    HOME: join(project.root, "home"),
    GIT_CONFIG_GLOBAL: join(project.root, "home/.gitconfig"),
    // Deno keeps its cache under HOME: the tool's packages stay where they are.
    DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache/deno"),
    PATH: `${join(project.root, ".venv/bin")}:${Deno.env.get("PATH")}`,
    VIRTUAL_ENV: join(project.root, ".venv"),
  };
  return { project, env };
}

/** Makes `src/a.txt` look changed to git, so that `git status` reads (and would filter) it. */
async function touch(project: Project): Promise<void> {
  const later = new Date(Date.now() + 5_000);
  await Deno.utime(join(project.root, "src/a.txt"), later, later);
}

Deno.test("a filter a build planted and named is never run by the next run's git status", async () => {
  const { project, env } = await lfsProject();
  await using _ = project;
  // Uncontained: the build writes .gitattributes (the tamper check stops the run) and plants git-lfs.
  const first = await runOnce(project, ["--sandbox", "off"], env);
  assert.equal(first.code, 5, first.stderr);
  assert.match(first.stderr, /\.gitattributes/);
  assert.match(await project.read(".gitattributes"), /filter=lfs/);
  assert.equal(await project.exists(".venv/bin/git-lfs"), true);
  // The user puts .gitattributes back; the next run's dirty-tree check reads src/a.txt.
  await git(project.root, "checkout", "--", ".gitattributes");
  await project.write(".gitattributes", "*.png binary\n* filter=lfs\n");
  await git(project.root, "add", ".gitattributes");
  await git(project.root, "commit", "-q", "-m", "lfs");
  await touch(project);
  const second = await runOnce(project, ["--sandbox", "off"], env);
  assert.equal(await project.exists("leaked-key.txt"), false, "the planted git-lfs ran");
  assert.ok(!second.stderr.includes(GEMINI_KEY));
});

bwrapTest("a contained build cannot write a .gitattributes", async () => {
  const { project, env } = await lfsProject();
  await using _ = project;
  const run = await runOnce(project, ["--sandbox", "on"], env);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(await project.read(".gitattributes"), "*.png binary\n");
  const log = (await project.logRuns()).at(-1)!;
  assert.match(await project.read(`logs/${log}/1-initial-query-build.txt`), /cannot write/);
});

bwrapTest(
  "gitdir: .repo inside the project: a contained build cannot write .repo/config or .repo/hooks",
  async () => {
    await using project = await makeProject({
      gitignore: "/agent-config\n/logs\n/.repo\n",
      buildScript: "#!/bin/sh\n" +
        "echo '[alias] planted = !echo' >> .repo/config || echo 'config: refused'\n" +
        "echo '#!/bin/sh' > .repo/hooks/pre-commit || echo 'hook: refused'\n" +
        "mkdir -p .repo/hooks/x || echo 'folder: refused'\n" +
        "exit 0\n",
    });
    await Deno.rename(join(project.root, ".git"), join(project.root, ".repo"));
    await project.write(".git", "gitdir: .repo\n");
    await git(project.root, "status", "--porcelain"); // git takes it for the repository
    const config = await project.read(".repo/config");
    const run = await runOnce(project, ["--sandbox", "on"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(await project.read(".repo/config"), config);
    assert.equal(await project.exists(".repo/hooks/pre-commit"), false);
    assert.equal(await project.exists(".repo/hooks/x"), false);
    const log = (await project.logRuns()).at(-1)!;
    const output = await project.read(`logs/${log}/1-initial-query-build.txt`);
    assert.match(output, /config: refused[^]*hook: refused[^]*folder: refused/);
  },
);

Deno.test("a subfolder whose .git is an empty folder is no root: committing code and --cc say where to run", async () => {
  await using project = await makeProject({
    gitignore: "/agent-config\n/logs\n*.pem\n",
  });
  await Deno.mkdir(join(project.root, "sub/.git"), { recursive: true });
  await project.write("sub/agent-config/gemini-key.txt", `${GEMINI_KEY}\n`);
  await project.write("sub/agent-config/query.txt", "Write the key file.\n");
  await project.write("sub/build.sh", "#!/bin/sh\nexit 0\n");
  await Deno.chmod(join(project.root, "sub/build.sh"), 0o755);
  for (const args of [[], ["--cc"]]) {
    const server = await startFakeLlmServer([geminiReply("^^^key.pem\nsecret\n^^^end\n")]);
    try {
      const run = await runTool(join(project.root, "sub"), args, { server });
      assert.equal(run.code, EXIT.setup, run.stderr);
      assert.equal(server.requests.length, 0, "no LLM call");
      assert.match(
        run.stderr,
        new RegExp(
          `sub is inside the git repository ${project.root}, not at its root: ` +
            `run code-commit from ${project.root}\\n$`,
        ),
      );
    } finally {
      await server.close();
    }
  }
  assert.equal(await project.exists("sub/key.pem"), false);
});
