/**
 * The record of the running build, and the next start ending a build a
 * killed run left: with a real detached process tree, and with a recorded
 * PID that now belongs to another process (never killed).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
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
  const child = new Deno.Command("/bin/sh", {
    args: ["-c", "sleep 120 & echo $!; sleep 121"],
    stdout: "piped",
    detached: true,
  }).spawn();
  trackBuilds(root).started(child.pid);
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
  assert.match(lines[0], new RegExp(`session ${child.pid}, 3 processes`));
  assert.equal(await Deno.lstat(join(root, BUILD_RECORD_FILE)).catch(() => undefined), undefined);
  await Deno.remove(root, { recursive: true });
});

Deno.test("a recorded PID that now belongs to a process started at another time is never killed", async () => {
  const root = await Deno.makeTempDir();
  await Deno.mkdir(join(root, "agent-config"));
  const now = Date.now();
  trackBuilds(root, () => now).started(4242);
  const killed: number[] = [];
  const lines: string[] = [];
  await endLeftBuild(root, (line) => lines.push(line), {
    // PID 4242 leads its session, but started an hour before the record.
    list: () => Promise.resolve([{ pid: 4242, sid: 4242, elapsed: 3600 }]),
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

Deno.test("the build's processes: its session, even once its first process is gone", () => {
  const record = { pid: 100, recordedAt: 1_000_000, runner: 7 };
  const rows = [
    { pid: 100, sid: 100, elapsed: 10 },
    { pid: 101, sid: 100, elapsed: 9 },
    { pid: 102, sid: 55, elapsed: 9 },
  ];
  assert.deepEqual(buildProcesses(rows, record, 1_010_000), [100, 101]);
  assert.deepEqual(buildProcesses(rows.slice(1), record, 1_010_000), [101]);
  // Its first process is a session leader that started long before the record: not the build.
  assert.deepEqual(buildProcesses(rows, record, 1_100_000), []);
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
