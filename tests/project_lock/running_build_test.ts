/**
 * The record of the running build, and the next start ending a build a
 * killed run left: with a real detached process tree, and with a recorded
 * PID that now belongs to another process (never killed).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CodeCommitError, EXIT } from "../../lib/errors/errors.ts";
import {
  BUILD_RECORD_FILE,
  buildProcesses,
  endLeftBuild,
  trackBuilds,
} from "../../lib/project_lock/running_build.ts";

async function alive(pid: number): Promise<boolean> {
  const output = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] })
    .output();
  const stat = new TextDecoder().decode(output.stdout).trim();
  return output.success && stat !== "" && !stat.startsWith("Z");
}

Deno.test("the next start ends every process of a recorded build, and says so in one line", async () => {
  const root = await Deno.makeTempDir();
  await Deno.mkdir(join(root, "agent-config"));
  // A build in a session of its own, as runBuild starts it: sh, a background sleep and a sleep.
  const tracker = trackBuilds(root);
  tracker.starting();
  const child = new Deno.Command("/bin/sh", {
    args: ["-c", "sleep 120 & echo $!; sleep 121"],
    stdout: "piped",
    detached: true,
    env: { ...tracker.mark },
  }).spawn();
  tracker.started(child.pid);
  const reader = child.stdout.getReader();
  const background = Number(new TextDecoder().decode((await reader.read()).value).trim());
  reader.releaseLock();
  await child.stdout.cancel();
  assert.ok(await alive(background));
  const lines: string[] = [];
  await endLeftBuild(root, (line) => lines.push(line));
  await child.status;
  assert.equal(await alive(child.pid), false);
  assert.equal(await alive(background), false);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^ended the build a killed code-commit \(PID \d+\) left running/);
  assert.match(lines[0], /\(3 processes, started /);
  assert.equal(await Deno.lstat(join(root, BUILD_RECORD_FILE)).catch(() => undefined), undefined);
  await Deno.remove(root, { recursive: true });
});

Deno.test("a recorded PID that now belongs to a process started at another time is never killed", async () => {
  const root = await Deno.makeTempDir();
  await Deno.mkdir(join(root, "agent-config"));
  const now = Date.now();
  const tracker = trackBuilds(root, () => now);
  tracker.starting();
  tracker.started(4242);
  const killed: number[] = [];
  const lines: string[] = [];
  await endLeftBuild(root, (line) => lines.push(line), {
    // PID 4242 leads its session, but started an hour before the record.
    list: () => Promise.resolve([{ pid: 4242, sid: 4242, elapsed: 3600, marked: false }]),
    kill: (pids) => {
      killed.push(...pids);
      return Promise.resolve();
    },
  }, () => now + 5_000);
  assert.deepEqual(killed, []);
  assert.deepEqual(lines, []);
  assert.equal(await Deno.lstat(join(root, BUILD_RECORD_FILE)).catch(() => undefined), undefined);
  await Deno.remove(root, { recursive: true });
});

Deno.test("the build's processes: its session, sessions with its token, never a reused PID's", () => {
  const token = "0".repeat(32);
  const record = { token, pid: 100, recordedAt: 1_000_000, runner: 7 };
  const rows = [
    { pid: 100, sid: 100, elapsed: 10, marked: true },
    { pid: 101, sid: 100, elapsed: 9, marked: false },
    { pid: 102, sid: 55, elapsed: 9, marked: false },
    { pid: 103, sid: 60, elapsed: 9, marked: true }, // made a session of its own
    { pid: 104, sid: 60, elapsed: 8, marked: false },
  ];
  assert.deepEqual(buildProcesses(rows, record, 1_010_000), [100, 101, 103, 104]);
  // Its first process gone: the rest of its session is still the build.
  const unmarked = rows.map((row) => ({ ...row, marked: false }));
  assert.deepEqual(buildProcesses(unmarked.slice(1), record, 1_010_000), [101]);
  // Killed before its PID was recorded: found by the token alone.
  const { pid: _, ...noPid } = record;
  assert.deepEqual(buildProcesses(rows, noPid, 1_010_000), [100, 101, 103, 104]);
  // The recorded PID leads a session that started long before the record: not the build.
  assert.deepEqual(buildProcesses(unmarked, record, 1_100_000), []);
});

Deno.test("a record that says nothing usable is removed with one line, and nothing is killed", async () => {
  const root = await Deno.makeTempDir();
  await Deno.mkdir(join(root, "agent-config"));
  await Deno.writeTextFile(join(root, BUILD_RECORD_FILE), "{garbage");
  const lines: string[] = [];
  await endLeftBuild(root, (line) => lines.push(line), {
    list: () => assert.fail("listed processes"),
    kill: () => assert.fail("killed"),
  });
  assert.equal(lines.length, 1);
  assert.match(lines[0], /does not say which build/);
  await Deno.remove(root, { recursive: true });
});

Deno.test("a left build that cannot be ended, or looked for, stops the start (exit 3), record kept", async () => {
  const root = await Deno.makeTempDir();
  await Deno.mkdir(join(root, "agent-config"));
  const now = Date.now();
  const tracker = trackBuilds(root, () => now);
  tracker.starting();
  tracker.started(4242);
  const stubborn = [{ pid: 4243, sid: 4242, elapsed: 1, marked: true }];
  const cases = [
    // kill does nothing: the build's processes are still there after every round.
    { list: () => Promise.resolve(stubborn), kill: () => Promise.resolve() },
    // ps cannot be run: nobody can tell whether the build still runs.
    { list: () => Promise.reject(new Error("ps failed")), kill: () => Promise.resolve() },
  ];
  for (const system of cases) {
    const error = await endLeftBuild(root, () => {}, system, () => now + 1_000).then(
      () => assert.fail("went on"),
      (error) => error,
    );
    assert.ok(error instanceof CodeCommitError, String(error));
    assert.equal(error.exitCode, EXIT.setup);
    assert.match(error.message, /could (not end|not look for) the build .* run code-commit again/);
    assert.ok(await Deno.lstat(join(root, BUILD_RECORD_FILE)), "the record stays");
  }
  await Deno.remove(root, { recursive: true });
});
