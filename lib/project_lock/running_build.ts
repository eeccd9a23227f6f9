/**
 * The build a run has going, recorded beside the lock (a token in every
 * build process's environment, then its session), so that the next start
 * after a kill ends every process of it still there.
 *
 * @module
 */
import { z } from "zod";
import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { readSmallFileSync } from "../file_system/bounded_read.ts";
import { runSystemProgram } from "../permissions/system_programs.ts";
import { nameSome } from "../text/change_list.ts";
import { formatUtc } from "../text/numbers.ts";
import { plural } from "../text/plural.ts";
import { AGENT_CONFIG_DIR } from "../guard/protected_paths.ts";

/** The record of the running build, relative to the project root. */
export const BUILD_RECORD_FILE = `${AGENT_CONFIG_DIR}/code-commit.build`;

/** The environment variable that marks every process of a build with the build's token. */
export const BUILD_MARK = "CODE_COMMIT_BUILD";

/** A build's record: its token, its first PID once started, when (ms), and by which PID. */
const RecordSchema = z.object({
  token: z.string().regex(/^[0-9a-f]{32}$/),
  pid: z.number().int().positive().optional(),
  recordedAt: z.number().int().nonnegative(),
  runner: z.number().int().positive(),
});

type BuildRecord = z.infer<typeof RecordSchema>;

/** How far a process's start may lie from its record's time (ps gives whole seconds). */
const START_SLACK_MS = 3_000;

/**
 * The tracker that records each build of the project at `root` in
 * {@link BUILD_RECORD_FILE}, before it starts and once it has; `mark` holds the
 * environment variables that mark each of its processes. Never throws: a
 * record that cannot be written is no reason to stop this build.
 */
export function trackBuilds(root: string, now: () => number = Date.now): {
  readonly mark: Readonly<Record<string, string>>;
  starting(): void;
  started(pid: number): void;
  ended(): Promise<void>;
} {
  const path = `${root}/${BUILD_RECORD_FILE}`;
  const token = crypto.randomUUID().replaceAll("-", "");
  let record: BuildRecord = { token, recordedAt: now(), runner: Deno.pid };
  return {
    mark: { [BUILD_MARK]: token },
    starting() {
      record = { token, recordedAt: now(), runner: Deno.pid };
      writeRecord(path, record);
    },
    /** The build's first process `pid` started (in a session of its own). */
    started(pid: number) {
      record = { ...record, pid };
      writeRecord(path, record);
    },
    /**
     * Once the first process ended and its group was stopped: ends every
     * process still in the build's session, and every session holding a
     * process that carries the build's mark (a `setsid` daemon, which could
     * rewrite `build.sh` after the last check), then removes the record.
     */
    async ended() {
      try {
        await endProcesses(record, SYSTEM, now);
      } catch {
        // `ps` failed (or is missing): the next start could not look either.
      }
      removeQuietly(path);
    },
  };
}

/**
 * Writes `record` at `path` whole or not at all: into a new file beside it
 * (made exclusively, so never through a planted link), renamed over it.
 */
function writeRecord(path: string, record: BuildRecord): void {
  const temporary = `${path}.${Deno.pid}.tmp`;
  try {
    removeQuietly(temporary);
    Deno.writeTextFileSync(temporary, `${JSON.stringify(record)}\n`, {
      createNew: true,
      mode: 0o600,
    });
    Deno.renameSync(temporary, path);
  } catch {
    removeQuietly(temporary); // see trackBuilds
  }
}

/** One process as `ps` lists it: `elapsed` seconds since it started, `marked` with the token. */
export interface ProcessRow {
  readonly pid: number;
  readonly sid: number;
  readonly elapsed: number;
  readonly marked: boolean;
}

/** How processes are listed (every live one, marked when carrying `token`) and sent SIGKILL. */
export interface ProcessSystem {
  readonly list: (token: string) => Promise<ProcessRow[]>;
  readonly kill: (pids: readonly number[]) => Promise<void>;
}

/** The system's own `ps` and `kill`. */
const SYSTEM: ProcessSystem = { list: listProcesses, kill: killAll };

/**
 * Ends every process of the build `record` records ({@link buildProcesses};
 * without `byToken`, only its recorded session's), a few rounds while any is
 * left. Returns those it ended and those still there after the last round.
 *
 * @throws the error of listing the processes (`ps` failed).
 */
async function endProcesses(
  record: BuildRecord,
  system: ProcessSystem,
  now: () => number,
  byToken = true,
): Promise<{ ended: Set<number>; still: number[] }> {
  const list = async () =>
    (await system.list(record.token)).map((row) => byToken ? row : { ...row, marked: false });
  const ended = new Set<number>();
  for (let round = 0; round < 5; round++) {
    const left = buildProcesses(await list(), record, now());
    if (left.length === 0) break;
    await system.kill(left);
    for (const pid of left) ended.add(pid);
    await new Promise((resolve) => setTimeout(resolve, 100 * (round + 1)));
  }
  return { ended, still: buildProcesses(await list(), record, now()) };
}

/**
 * Ends the build a killed code-commit left running in the project at `root`,
 * if its record is there, and tells `warn` in one line; removes the record
 * once nothing of it is left. Call it holding the project's lock. What can
 * escape: an uncontained build's process that cleared its environment and
 * made a session of its own.
 *
 * @throws {CodeCommitError} (exit 3) when its processes cannot be looked for
 * or ended: they could still write the project. The record stays.
 */
export async function endLeftBuild(
  root: string,
  warn: (line: string) => void,
  system: ProcessSystem = SYSTEM,
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
  const { ended, still } = await endProcesses(record, system, now).catch((error) => {
    if (error instanceof CodeCommitError) throw error;
    throw new CodeCommitError(
      `could not look for the build a killed code-commit (PID ${record.runner}) left running ` +
        `(${(error as Error).message}); it could still change the project: make sure no ` +
        `build.sh of that run is still running, remove ${BUILD_RECORD_FILE}, then run ` +
        "code-commit again",
      EXIT.setup,
      { cause: error },
    );
  });
  if (still.length > 0) {
    throw new CodeCommitError(
      `could not end the build a killed code-commit (PID ${record.runner}) left running: ` +
        `processes ${nameSome(still.map(String))} are still there and could still change ` +
        "the project; end them (kill -9), then run code-commit again",
      EXIT.setup,
    );
  }
  if (ended.size > 0) {
    warn(
      `ended the build a killed code-commit (PID ${record.runner}) left running (${
        plural(ended.size, "process", "processes")
      }, started ${formatUtc(new Date(record.recordedAt))})`,
    );
  }
  removeQuietly(path);
}

/**
 * The PIDs of `rows` that belong to the recorded build: every process of a
 * session a marked process is in, and of the recorded PID's session unless
 * that PID was reused; never the caller's own session. Never throws.
 */
export function buildProcesses(
  rows: readonly ProcessRow[],
  record: BuildRecord,
  nowMs: number,
): number[] {
  const sessions = new Set(rows.filter((row) => row.marked).map((row) => row.sid));
  if (record.pid !== undefined) {
    const leader = rows.find((row) => row.pid === record.pid);
    const startedMs = leader === undefined ? undefined : nowMs - leader.elapsed * 1000;
    const reused = startedMs !== undefined && (leader!.sid !== record.pid ||
      startedMs < record.recordedAt - START_SLACK_MS - 1000 ||
      startedMs > record.recordedAt + START_SLACK_MS);
    if (!reused) sessions.add(record.pid);
  }
  const own = rows.find((row) => row.pid === Deno.pid)?.sid;
  if (own !== undefined) sessions.delete(own);
  return rows.filter((row) => sessions.has(row.sid) && row.pid !== Deno.pid).map((row) => row.pid);
}

/** The record at `path`: `none` when there is none, `unreadable` when it says nothing usable. */
function readRecord(path: string): BuildRecord | "none" | "unreadable" {
  try {
    Deno.lstatSync(path);
  } catch {
    return "none";
  }
  const bytes = readSmallFileSync(path, 4096);
  if (bytes === undefined) return "unreadable";
  try {
    const parsed = RecordSchema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
    return parsed.success ? parsed.data : "unreadable";
  } catch {
    return "unreadable";
  }
}

/** Every live process (no zombie), from the system's `ps`, its environment searched for `token`. */
async function listProcesses(token: string): Promise<ProcessRow[]> {
  const { output } = await runSystemProgram("ps", {
    args: ["-e", "ww", "e", "-o", "pid=,sid=,etimes=,stat=,args="],
    env: { LC_ALL: "C" },
  });
  if (!output.success) {
    throw new Error(`ps failed: ${new TextDecoder().decode(output.stderr).trim()}`);
  }
  const mark = `${BUILD_MARK}=${token}`;
  const rows: ProcessRow[] = [];
  for (const line of new TextDecoder().decode(output.stdout).split("\n")) {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)(.*)$/s.exec(line);
    // A zombie has ended already; it only waits for a parent to collect it.
    if (match === null || match[4].startsWith("Z")) continue;
    const [pid, sid, elapsed] = [1, 2, 3].map((i) => Number(match[i]));
    rows.push({ pid, sid, elapsed, marked: ` ${match[5]} `.includes(` ${mark} `) });
  }
  return rows;
}

/** SIGKILL to each of `pids` with the system's `kill`; one already gone is fine. */
async function killAll(pids: readonly number[]): Promise<void> {
  await runSystemProgram("kill", {
    args: ["-s", "KILL", "--", ...pids.map(String)],
    stdout: "null",
    stderr: "null",
  });
}

/** Removes `path`, if it is there. Never throws. */
function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // Not there.
  }
}
