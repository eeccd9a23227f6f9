/**
 * What a run did, collected as it goes, for the `--json` object that ends it.
 *
 * @module
 */
import { TokenTally } from "../llm/ask.ts";
import type { ChangedFile } from "../text/change_list.ts";

/** The facts of one run, filled in while it runs. */
export class RunRecord {
  /** The workflow run, `help`, `version`; undefined before the command line was read. */
  workflow: string | undefined;
  /** The model of a workflow that talks to one. */
  model: string | undefined;
  /** Replies the committing-code loop asked for, over every task of the run; of those, repairs. */
  attempts = 0;
  repairs = 0;
  /** The files the run changed (or, with `--dry-run`, would change). */
  changes: readonly ChangedFile[] = [];
  dryRun = false;
  /** The run's log folder, relative to the project root (the last one, for the auto workflow). */
  logDir: string | undefined;
  /** Every reply's words outside its file blocks, and its log file relative to the root, in order. */
  readonly prose: { readonly log: string; readonly text: string }[] = [];
  /** The calls, tokens and estimated cost of the run. */
  readonly tally: TokenTally = new TokenTally();

  /** Notes that the committing-code loop asked for attempt `attempt` (0 the first). Never throws. */
  noteAttempt(attempt: number): void {
    this.attempts++;
    if (attempt > 0) this.repairs++;
  }
}
