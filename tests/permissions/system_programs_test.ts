/**
 * Helper programs come from their system paths only: the permission list
 * names them so, and nothing on PATH is ever started in their place.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runChild } from "../support/child.ts";
import { PERMISSION_FLAGS, systemProgramPaths } from "../../lib/permissions/permissions.ts";
import {
  runSystemProgram,
  systemProgramCandidates,
} from "../../lib/permissions/system_programs.ts";

Deno.test("the permission list runs kill, bwrap, git and ps by absolute system paths only", () => {
  const run = PERMISSION_FLAGS.find((flag) => flag.startsWith("--allow-run="))!;
  const programs = run.slice("--allow-run=".length).split(",");
  assert.deepEqual(programs, [
    "./build.sh",
    "/usr/bin/kill",
    "/bin/kill",
    "/usr/bin/bwrap",
    "/bin/bwrap",
    "/usr/bin/git",
    "/bin/git",
    "/usr/bin/ps",
    "/bin/ps",
    "/usr/bin/sandbox-exec",
  ]);
  for (const program of ["kill", "bwrap", "git", "ps"]) {
    assert(!programs.includes(program), `${program} would be looked up on PATH`);
  }
  assert.deepEqual(systemProgramPaths("bwrap"), ["/usr/bin/bwrap", "/bin/bwrap"]);
});

Deno.test("systemProgramCandidates: none inside the project", () => {
  assert.deepEqual(systemProgramCandidates("git"), ["/usr/bin/git", "/bin/git"]);
  assert.deepEqual(systemProgramCandidates("git", "/home/u/project"), ["/usr/bin/git", "/bin/git"]);
  assert.deepEqual(systemProgramCandidates("git", "/usr"), ["/bin/git"]);
  assert.deepEqual(systemProgramCandidates("git", "/"), []);
  assert.deepEqual(systemProgramCandidates("git", "/usr/bin2"), ["/usr/bin/git", "/bin/git"]);
});

Deno.test("runSystemProgram starts the system's program, whatever PATH holds", async () => {
  const fake = await Deno.makeTempDir({ prefix: "code-commit-fake-path-" });
  try {
    await Deno.writeTextFile(join(fake, "git"), "#!/bin/sh\necho fake git\n");
    await Deno.chmod(join(fake, "git"), 0o755);
    // In a child of its own: tests run side by side in one process, and a PATH changed here
    // would reach their children too.
    const module = new URL("../../lib/permissions/system_programs.ts", import.meta.url).href;
    const run = await runChild(Deno.execPath(), ["run", "-A", "-"], {
      cwd: fake,
      env: { PATH: `${fake}:/usr/bin:/bin`, HOME: fake },
      stdin: `import { runSystemProgram } from ${JSON.stringify(module)};
const { path, output } = await runSystemProgram("git", { args: ["--version"], stdout: "piped" });
console.log(path);
console.log(new TextDecoder().decode(output.stdout).trim());
`,
    });
    assert.equal(run.code, 0, run.stderr);
    const [path, version] = run.stdout.trim().split("\n");
    assert(path === "/usr/bin/git" || path === "/bin/git", path);
    assert.match(version, /^git version /);
  } finally {
    await Deno.remove(fake, { recursive: true });
  }
});

Deno.test("runSystemProgram: none of the paths outside the project holds it: NotFound", async () => {
  await assert.rejects(
    runSystemProgram("git", { args: ["--version"] }, "/"),
    (error: unknown) => {
      assert(error instanceof Deno.errors.NotFound);
      assert.match(
        (error as Error).message,
        /git is not installed: none of its system paths exists outside the project/,
      );
      return true;
    },
  );
});
