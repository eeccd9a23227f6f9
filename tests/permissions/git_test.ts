/**
 * git runs as code-commit's helper: against real repositories, each route a
 * build could use to have git run its program (a filter a `.gitattributes`
 * names and the user's global configuration defines, a program planted
 * first on `PATH`, a `core.fsmonitor`, a hook, `core.hooksPath`) plants a
 * program that would write a marker file, and the marker never appears.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runGit } from "../../lib/permissions/git.ts";
import { withEnv } from "../support/env.ts";
import { git, type TempProject, tempProject } from "../support/project.ts";

/** A repository with one committed file, `a.txt`, and a planted program that writes `marker` when run. */
async function plantedRepository(): Promise<
  { project: TempProject; program: string; marker: string }
> {
  const project = await tempProject({ "a.txt": "a\n" }, { git: true });
  await git(project.root, "add", "-A");
  await git(project.root, "commit", "-q", "-m", "start");
  const marker = join(project.root, "MARKER");
  const program = join(project.root, "tools/planted");
  await project.write("tools/planted", `#!/bin/sh\necho "$0 $*" >> '${marker}'\ncat\n`);
  await Deno.chmod(program, 0o755);
  return { project, program, marker };
}

/** Makes `a.txt` look changed to git (a later modification time), so `status` reads its content. */
async function touch(root: string): Promise<void> {
  const later = new Date(Date.now() + 5_000);
  await Deno.utime(join(root, "a.txt"), later, later);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** `git status` as the dirty-tree check runs it. */
/** What `git status --porcelain=v1` did. */
type Status = { code: number; stdout: string; stderr: string };

/** The body, for {@link withEnv}, that runs {@link status} in `root`. */
function statusIn(root: string): string {
  return `const { runGit } = await import(lib("lib/permissions/git.ts"));
  const { output } = await runGit(["status", "--porcelain=v1"], { cwd: ${JSON.stringify(root)} });
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };`;
}

async function status(root: string): Promise<Status> {
  const { output } = await runGit(["status", "--porcelain=v1"], { cwd: root });
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

Deno.test("runGit: what git sees: system PATH, fixed switches, each configured driver blanked", async () => {
  const { project } = await plantedRepository();
  await using _ = project;
  await project.write(
    ".git/config",
    (await project.read(".git/config")) +
      '[filter "lfs"]\n\tprocess = git-lfs filter-process\n\trequired = true\n' +
      '[filter "a=b.c"]\n\tclean = x\n[diff "ev"]\n\ttextconv = x\n\tcommand = x\n' +
      '[merge "ours"]\n\tdriver = x\n[core]\n\tfsmonitor = x\n\thooksPath = hooks\n' +
      '[alias]\n\tshowpath = !echo "$PATH"\n',
  );
  const get = async (key: string) => {
    const { output } = await runGit(["config", "--get", key], { cwd: project.root });
    return new TextDecoder().decode(output.stdout).replace(/\n$/, "");
  };
  assert.equal(await get("filter.lfs.process"), "");
  assert.equal(await get("filter.lfs.required"), "false");
  assert.equal(await get("filter.a=b.c.clean"), "", "a driver name with = travels unquoted");
  assert.equal(await get("diff.ev.textconv"), "");
  assert.equal(await get("diff.ev.command"), "");
  assert.equal(await get("merge.ours.driver"), "");
  assert.equal(await get("core.fsmonitor"), "false");
  assert.equal(await get("core.hooksPath"), "/dev/null");
  assert.equal(await get("protocol.allow"), "never");
  const stdout = await withEnv<string>(
    { PATH: `${join(project.root, ".venv/bin")}:${Deno.env.get("PATH")}` },
    `const { runGit } = await import(lib("lib/permissions/git.ts"));
    const { output } = await runGit(["showpath"], { cwd: ${JSON.stringify(project.root)} });
    return new TextDecoder().decode(output.stdout);`,
  );
  // git puts its own exec folder first; then the system's, nothing else.
  assert.match(
    stdout,
    /^(?:[^:\n]*git-core:)?\/usr\/bin:\/bin\n$/,
  );
});

Deno.test("a filter a .gitattributes names and the user's global config defines never runs", async () => {
  const { project, program, marker } = await plantedRepository();
  await using _ = project;
  const global = join(project.root, "fake-home/.gitconfig");
  await project.write(
    "fake-home/.gitconfig",
    `[filter "ev.il"]\n\tclean = ${program} clean\n\tsmudge = ${program} smudge\n` +
      `\tprocess = ${program} process\n\trequired = true\n`,
  );
  await project.write(".gitattributes", "*.txt filter=ev.il\n");
  await touch(project.root);
  const result = await withEnv<Status>({ GIT_CONFIG_GLOBAL: global }, statusIn(project.root));
  assert.equal(await exists(marker), false, "the planted filter ran");
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /\?\? \.gitattributes/);
});

Deno.test("a filter found by name on PATH (git-lfs in .venv/bin, HOME's .gitconfig) never runs", async () => {
  const { project, program, marker } = await plantedRepository();
  await using _ = project;
  await project.write(
    "home/.gitconfig",
    '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n' +
      "\tprocess = git-lfs filter-process\n\trequired = true\n",
  );
  await Deno.mkdir(join(project.root, ".venv/bin"), { recursive: true });
  await Deno.copyFile(program, join(project.root, ".venv/bin/git-lfs"));
  await Deno.chmod(join(project.root, ".venv/bin/git-lfs"), 0o755);
  await project.write(".gitattributes", "*.txt filter=lfs diff=lfs merge=lfs -text\n");
  await touch(project.root);
  const result = await withEnv<Status>({
    HOME: join(project.root, "home"),
    XDG_CONFIG_HOME: undefined,
    GIT_CONFIG_GLOBAL: undefined,
    PATH: `${join(project.root, ".venv/bin")}:${Deno.env.get("PATH")}`,
  }, statusIn(project.root));
  assert.equal(await exists(marker), false, "the planted git-lfs ran");
  assert.equal(result.code, 0, result.stderr);
});

Deno.test("a program planted first on PATH is never what git starts by name", async () => {
  const { project, program, marker } = await plantedRepository();
  await using _ = project;
  await Deno.mkdir(join(project.root, ".venv/bin"), { recursive: true });
  await Deno.copyFile(program, join(project.root, ".venv/bin/planted-tool"));
  await Deno.chmod(join(project.root, ".venv/bin/planted-tool"), 0o755);
  // A shell alias: git runs it through the shell, which looks the name up on PATH.
  await git(project.root, "config", "alias.planted", "!planted-tool");
  await withEnv(
    { PATH: `${join(project.root, ".venv/bin")}:${Deno.env.get("PATH")}` },
    `const { runGit } = await import(lib("lib/permissions/git.ts"));
    await runGit(["planted"], { cwd: ${JSON.stringify(project.root)} });`,
  );
  assert.equal(await exists(marker), false, "the program first on PATH ran");
});

Deno.test("a core.fsmonitor in the repository's config never runs", async () => {
  const { project, program, marker } = await plantedRepository();
  await using _ = project;
  await git(project.root, "config", "core.fsmonitor", program);
  await touch(project.root);
  const result = await status(project.root);
  assert.equal(await exists(marker), false, "the fsmonitor hook ran");
  assert.equal(result.code, 0, result.stderr);
});

Deno.test("no hook runs, in .git/hooks or where core.hooksPath points", async () => {
  const { project, program, marker } = await plantedRepository();
  await using _ = project;
  const hook = `#!/bin/sh\n'${program}' "$0"\n`;
  for (const name of ["pre-commit", "commit-msg", "post-commit", "post-index-change"]) {
    await project.write(`.git/hooks/${name}`, hook);
    await Deno.chmod(join(project.root, ".git/hooks", name), 0o755);
    await project.write(`hooks/${name}`, hook);
    await Deno.chmod(join(project.root, "hooks", name), 0o755);
  }
  // A command that runs hooks (code-commit runs none such): still none runs.
  const plain = await runGit(
    ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "x"],
    { cwd: project.root },
  );
  assert.equal(plain.output.code, 0, new TextDecoder().decode(plain.output.stderr));
  await git(project.root, "config", "core.hooksPath", join(project.root, "hooks"));
  const pointed = await runGit(
    ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "y"],
    { cwd: project.root },
  );
  assert.equal(pointed.output.code, 0, new TextDecoder().decode(pointed.output.stderr));
  assert.equal(await exists(marker), false, "a hook ran");
});

Deno.test("runGit: a listing git cannot make (a broken .git file) is returned, the command not run", async () => {
  await using project = await tempProject({ ".git": "not a pointer\n" });
  const { output } = await runGit(["rev-parse", "--show-toplevel"], { cwd: project.root });
  assert.notEqual(output.code, 0);
  assert.match(new TextDecoder().decode(output.stderr), /gitfile|not a git repository/);
});
