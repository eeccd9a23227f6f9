/**
 * The build a run has going, recorded next to the project's lock, so that
 * no build outlives its run: when code-commit is killed (SIGKILL, a crash)
 * while `./build.sh` runs, the next start in the project, once it holds the
 * lock, finds the record and ends every process of that build that is
 * still there.
 *
 * A build is started in a session of its own, so its processes are found
 * by their session ID, which is the PID of the process code-commit started
 * (`bwrap`, or `build.sh` itself). The record holds that PID and when it
 * was made (just after the start): a process with that PID that started at
 * another time is someone else's, and is never touched. A session's ID
 * cannot be given to a new process while any process of the session lives,
 * so processes of that session whose leader is gone are still the build's.
 * A contained build's processes all die with the first process of its PID
 * namespace, which is in the session.
 *
 * What can escape: a process of an uncontained build (`--sandbox off`) that
 * made a session of its own; and a build started in the instant between
 * the start and the record (the record is written in the same step).
 *
 * @module
 */
import { z } from "zod";
import { runSystemProgram } from "../permissions/system_programs.ts";
import { LOCK_FOLDER } from "./project_lock.ts";

/** The record of the running build, relative to the project root. */
export const BUILD_RECORD_FILE = `${LOCK_FOLDER}/code-commit.build`;

const RecordSchema = z.object({
  /** The PID of the process code-commit started: its session's ID. */
  pid: z.number().int().positive(),
  /** When the record was written (milliseconds since the epoch), just after the start. */
  recordedAt: z.number().int().nonnegative(),
  /** The code-commit that started it. */
  runner: z.number().int().positive(),
});

/** What a build's start and end are told to. */
export interface BuildTracker {
  /** The build's first process `pid` started (in a session of its own). Never throws. */
  started(pid: number): void;
  /** The build and everything it started have ended. Never throws. */
  ended(): void;
}

/** How far a process's start may lie from its record's time (ps gives whole seconds). */
const START_SLACK_MS = 3_000;

/**
 * The tracker that records each build of the project at `root` in
 * {@link BUILD_RECORD_FILE} (synchronously, so the record is on disk right
 * after the build starts). Never throws: a record that cannot be written is
 * a build the next start cannot end, not a reason to stop this one.
 */
export function trackBuilds(root: string, now: () => number = Date.now): BuildTracker {
  const path = `${root}/${BUILD_RECORD_FILE}`;
  return {
    started(pid) {
      const record = { pid, recordedAt: now(), runner: Deno.pid };
      try {
        removeQuietly(path);
        // Made exclusively: never written through a link planted there.
        const file = Deno.openSync(path, { write: true, createNew: true, mode: 0o600 });
        try {
          file.writeSync(new TextEncoder().encode(`${JSON.stringify(record)}\n`));
        } finally {
          file.close();
        }
      } catch {
        // See above.
      }
    },
    ended() {
      removeQuietly(path);
    },
  };
}

/** One process as `ps` lists it. */
interface ProcessRow {
  readonly pid: number;
  readonly sid: number;
  /** Seconds since it started. */
  readonly elapsed: number;
}

/** Lists every process: PID, session and seconds since its start. */
export type ListProcesses = () => Promise<ProcessRow[]>;

/** Sends SIGKILL to `pids`. */
export type KillProcesses = (pids: readonly number[]) => Promise<void>;

/**
 * Ends the build a killed code-commit left running in the project at
 * `root`, if its record is there: every process of its session (see the
 * module's comment), and tells `warn` in one line. Call it holding the
 * project's lock. Removes the record. Never throws (a process that cannot
 * be ended is said so).
 */
export async function endLeftBuild(
  root: string,
  warn: (line: string) => void,
  system: { list: ListProcesses; kill: KillProcesses } = { list: listProcesses, kill: killAll },
  now: () => number = Date.now,
): Promise<void> {
  const path = `${root}/${BUILD_RECORD_FILE}`;
  const record = readRecord(path);
  if (record === "none") return;
  if (record === "unreadable") {
    warn(`ignored ${BUILD_RECORD_FILE}: it does not say which build it records`);
    removeQuietly(path);
    return;
  }
  try {
    let ended = 0;
    for (let round = 0; round < 5; round++) {
      const left = buildProcesses(await system.list(), record, now());
      if (left.length === 0) break;
      await system.kill(left);
      ended = Math.max(ended, left.length);
      await new Promise((resolve) => setTimeout(resolve, 100 * (round + 1)));
    }
    const still = buildProcesses(await system.list(), record, now());
    if (still.length > 0) {
      warn(
        `could not end the build a killed code-commit (PID ${record.runner}) left running: ` +
          `processes ${still.slice(0, 20).join(", ")} of session ${record.pid} are still there`,
      );
      return;
    }
    if (ended > 0) {
      warn(
        `ended the build a killed code-commit (PID ${record.runner}) left running ` +
          `(session ${record.pid}, ${ended} process${ended === 1 ? "" : "es"}, started ${
            new Date(record.recordedAt).toISOString().slice(0, 19).replace("T", " ")
          } UTC)`,
      );
    }
    removeQuietly(path);
  } catch (error) {
    warn(
      `could not look for the build a killed code-commit left running (session ${record.pid}): ` +
        (error as Error).message,
    );
  }
}

/**
 * The PIDs of `rows` that belong to the recorded build: its session's
 * processes, unless the process with the recorded PID is alive and started
 * at another time than the record says (then the PID was given to another
 * process, and the build's session is long gone). Never throws.
 */
export function buildProcesses(
  rows: readonly ProcessRow[],
  record: z.infer<typeof RecordSchema>,
  nowMs: number,
): number[] {
  const leader = rows.find((row) => row.pid === record.pid);
  if (leader !== undefined) {
    const startedMs = nowMs - leader.elapsed * 1000;
    const matches = leader.sid === record.pid &&
      startedMs >= record.recordedAt - START_SLACK_MS - 1000 &&
      startedMs <= record.recordedAt + START_SLACK_MS;
    if (!matches) return [];
  }
  return rows.filter((row) => row.sid === record.pid && row.pid !== Deno.pid).map((row) => row.pid);
}

/** The record at `path`: `none` when there is none, `unreadable` when it says nothing usable. */
function readRecord(path: string): z.infer<typeof RecordSchema> | "none" | "unreadable" {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch {
    return "none";
  }
  if (!info.isFile || info.size > 4096) return "unreadable";
  try {
    const parsed = RecordSchema.safeParse(JSON.parse(Deno.readTextFileSync(path)));
    return parsed.success ? parsed.data : "unreadable";
  } catch {
    return "unreadable";
  }
}

/** Every live process (not a zombie), from the system's `ps` (never one found on `PATH`). */
async function listProcesses(): Promise<ProcessRow[]> {
  const { output } = await runSystemProgram("ps", {
    args: ["-e", "-o", "pid=,sid=,etimes=,stat="],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { LC_ALL: "C" },
  });
  if (!output.success) {
    throw new Error(`ps failed: ${new TextDecoder().decode(output.stderr).trim()}`);
  }
  const rows: ProcessRow[] = [];
  for (const line of new TextDecoder().decode(output.stdout).split("\n")) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s*$/.exec(line);
    // A zombie has ended already; it only waits for a parent to collect it.
    if (match !== null && !match[4].startsWith("Z")) {
      rows.push({ pid: Number(match[1]), sid: Number(match[2]), elapsed: Number(match[3]) });
    }
  }
  return rows;
}

/** SIGKILL to each of `pids` with the system's `kill`; one already gone is fine. */
async function killAll(pids: readonly number[]): Promise<void> {
  await runSystemProgram("kill", {
    args: ["-s", "KILL", "--", ...pids.map(String)],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  });
}

function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // Not there.
  }
}
