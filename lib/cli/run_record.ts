/**
 * What a run did, collected as it goes, for the one `--json` object that
 * ends it (see `json_result.ts`): the workflows note what they already know
 * (the log folder, each attempt, each reply's prose, the files changed),
 * the session's token tally is this record's. Nothing here prints.
 *
 * @module
 */
import { TokenTally } from "../llm/ask.ts";
import type { ChangedFile } from "../text/change_list.ts";

/** The words of one reply outside its file blocks, and the log file of that reply. */
export interface ReplyProse {
  /** The reply's log file, relative to the project root (`logs/…/initial-query-response.txt`). */
  readonly log: string;
  /** The prose, lines joined with `\n`; empty when the reply was nothing but file blocks. */
  readonly text: string;
}

/** The facts of one run, filled in while it runs. */
export class RunRecord {
  /** The workflow run (`commit`, `consistency`, ...), `help`, `version`; undefined before the command line was read. */
  workflow: string | undefined;
  /** The model of a workflow that talks to one; undefined for the others. */
  model: string | undefined;
  /** Replies the committing-code loop asked for (the first and each repair), over every task of the run. */
  attempts = 0;
  /** Of those, the repairs. */
  repairs = 0;
  /** The files the run changed (or, with `--dry-run`, would change), as the terminal lists them. */
  changes: readonly ChangedFile[] = [];
  /** Whether `changes` are what a dry run's reply would change (nothing was written). */
  dryRun = false;
  /** The run's log folder, relative to the project root (the last one, for the auto workflow). */
  logDir: string | undefined;
  /** Every reply's prose, in the order the replies came. */
  readonly prose: ReplyProse[] = [];
  /** The calls, tokens and estimated cost of the run: the session adds each call here. */
  readonly tally: TokenTally = new TokenTally();

  /** Notes that the committing-code loop asked for attempt `attempt` (0 the first). Never throws. */
  noteAttempt(attempt: number): void {
    this.attempts++;
    if (attempt > 0) this.repairs++;
  }
}
