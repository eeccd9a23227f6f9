/**
 * The project's lock, between real processes: a second process is refused
 * at once and told who holds the lock; a SIGKILLed holder blocks nobody; a
 * lock file whose content is garbage blocks while it is locked and is taken
 * over when free; the lock never writes through a link.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { EXIT } from "../../lib/errors/errors.ts";
import { LOCK_FILE, lockProject, ProjectLockedError } from "../../lib/project_lock/project_lock.ts";

const MODULE = new URL("../../lib/project_lock/project_lock.ts", import.meta.url).href;

/** A real process holding the lock of `root` (as `workflow`) until it is killed. */
async function holder(root: string, workflow = "--undo"): Promise<Deno.ChildProcess> {
  const script = `
    import { lockProject } from ${JSON.stringify(MODULE)};
    await lockProject(${JSON.stringify(root)}, ${JSON.stringify(workflow)});
    console.log("held");
    setInterval(() => {}, 1000);
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "--allow-read", "--allow-write", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(script));
  await writer.close();
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  assert.equal(new TextDecoder().decode(value).trim(), "held");
  reader.releaseLock();
  void child.stdout.cancel();
  return child;
}

async function kill(child: Deno.ChildProcess): Promise<void> {
  child.kill("SIGKILL");
  await child.status;
}

Deno.test("a second process is refused at once, naming the holder's PID, workflow and start", async () => {
  const root = await Deno.makeTempDir();
  const first = await holder(root, "--rollup");
  try {
    const error = await lockProject(root, "a run").then(
      () => assert.fail("took a lock another process holds"),
      (error) => error,
    );
    assert.ok(error instanceof ProjectLockedError);
    assert.equal(error.exitCode, EXIT.locked);
    assert.equal(error.message.includes("\n"), false);
    assert.match(error.message, new RegExp(`PID ${first.pid}, --rollup, started \\d{4}-`));
  } finally {
    await kill(first);
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a SIGKILLed holder blocks nobody: the kernel released its lock", async () => {
  const root = await Deno.makeTempDir();
  const first = await holder(root);
  await kill(first);
  // The killed holder's file is still there, with its content.
  assert.match(await Deno.readTextFile(join(root, LOCK_FILE)), /"pid":/);
  const lock = await lockProject(root, "a run");
  const held = JSON.parse(await Deno.readTextFile(join(root, LOCK_FILE)));
  assert.equal(held.pid, Deno.pid);
  assert.equal(held.workflow, "a run");
  lock.release();
  await Deno.remove(root, { recursive: true });
});

Deno.test("garbage in a locked lock file still blocks; in a free one it is taken over", async () => {
  const root = await Deno.makeTempDir();
  const first = await holder(root);
  try {
    await Deno.writeTextFile(join(root, LOCK_FILE), "\u0000not json{{");
    const error = await lockProject(root, "a run").then(() => undefined, (error) => error);
    assert.ok(error instanceof ProjectLockedError);
    assert.equal(error.holder, undefined);
    assert.match(error.message, /does not say which process/);
  } finally {
    await kill(first);
  }
  const lock = await lockProject(root, "--cc");
  assert.equal(JSON.parse(await Deno.readTextFile(join(root, LOCK_FILE))).workflow, "--cc");
  lock.release();
  await Deno.remove(root, { recursive: true });
});

Deno.test("releasing removes the lock file, and agent-config/ when the lock made it", async () => {
  const root = await Deno.makeTempDir();
  const lock = await lockProject(root, "--init");
  assert.equal(lock.madeFolder, true);
  lock.release();
  assert.deepEqual([...Deno.readDirSync(root)], []);
  await Deno.mkdir(join(root, "agent-config"));
  await Deno.writeTextFile(join(root, "agent-config/query.txt"), "q\n");
  const again = await lockProject(root, "a run");
  assert.equal(again.madeFolder, false);
  again.release();
  assert.deepEqual([...Deno.readDirSync(join(root, "agent-config"))].map((e) => e.name), [
    "query.txt",
  ]);
  await Deno.remove(root, { recursive: true });
});

Deno.test("the lock never writes through a link: agent-config a link, or the lock file", async () => {
  const root = await Deno.makeTempDir();
  const outside = await Deno.makeTempDir();
  try {
    // agent-config/ a link to the user's folder elsewhere: that folder is locked, nothing written.
    await Deno.symlink(outside, join(root, "agent-config"));
    const held = await lockProject(root, "a run");
    const other = await new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        "-q",
        `
        import { lockProject } from ${JSON.stringify(MODULE)};
        await lockProject(${JSON.stringify(root)}, "a run").then(
          () => Deno.exit(0),
          (error) => { console.error(error.message); Deno.exit(error.exitCode); },
        );
      `,
      ],
      stdout: "null",
    }).output().then((output) => ({
      code: output.code,
      stderr: new TextDecoder().decode(output.stderr),
    }));
    assert.equal(other.code, EXIT.locked, other.stderr);
    assert.match(other.stderr, /another code-commit is working on this project/);
    // It names no lock file that is not there: the lock is on the folder the link leads to.
    assert.match(other.stderr, /\(the lock is on the folder agent-config links to, released/);
    assert.deepEqual([...Deno.readDirSync(outside)], []);
    held.release();
    await Deno.remove(join(root, "agent-config"));
    await Deno.mkdir(join(root, "agent-config"));
    await Deno.writeTextFile(join(outside, "target"), "untouched\n");
    await Deno.symlink(join(outside, "target"), join(root, LOCK_FILE));
    const linked = await lockProject(root, "a run").then(() => undefined, (error) => error);
    assert.equal(linked?.exitCode, EXIT.setup);
    assert.match(linked.message, /code-commit\.lock is a symbolic link/);
    assert.equal(await Deno.readTextFile(join(outside, "target")), "untouched\n");
    assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["target"]);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("a holder whose lock file was removed under it never removes the next holder's lock file", async () => {
  const root = await Deno.makeTempDir({ prefix: "code-commit-lock-" });
  try {
    const first = await lockProject(root, "committing code");
    // Removed by hand (a `git clean -fdX`) while held: a second process takes a new lock file.
    Deno.removeSync(join(root, LOCK_FILE));
    const second = await lockProject(root, "--undo");
    first.release();
    try {
      await assert.rejects(lockProject(root, "--cc"), ProjectLockedError);
    } finally {
      second.release();
    }
    assert.throws(() => Deno.lstatSync(join(root, LOCK_FILE)), Deno.errors.NotFound);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
