/**
 * The one JSON object `--json` prints on stdout when a run ends, whatever the outcome: its schema
 * (which docs/json.md shows, field by field), and the {@link RunRecord} a run fills as it goes.
 *
 * @module
 */
import { z } from "zod";
import { EXIT, EXIT_CLASS, type ExitStatus } from "../errors/errors.ts";
import { isLocalModel, type ModelId } from "../llm/models.ts";
import { TokenTally } from "../llm/ask.ts";
import type { ChangedFile } from "../text/change_list.ts";

const CLASS_NAMES = Object.keys(EXIT) as [keyof typeof EXIT, ...(keyof typeof EXIT)[]];
const count = z.number().int().nonnegative();

/** The facts of one run, filled in while it runs. */
export class RunRecord {
  /** The workflow run, `help`, `version`; undefined before the command line was read. */
  workflow: string | undefined;
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
  readonly tally: TokenTally = new TokenTally();

  /** Notes that the committing-code loop asked for attempt `attempt` (0 the first). Never throws. */
  noteAttempt(attempt: number): void {
    this.attempts++;
    if (attempt > 0) this.repairs++;
  }
}

/** The schema of the `--json` object. Every field is always there (`null` when unknown). */
export const JSON_RESULT = z.object({
  workflow: z.string().nullable(),
  exit: z.object({ status: z.number().int(), class: z.enum(CLASS_NAMES) }).strict(),
  model: z.string().nullable(),
  attempts: count,
  repairs: count,
  dryRun: z.boolean(),
  changes: z.array(
    z.object({
      path: z.string(),
      kind: z.enum(["created", "replaced", "deleted"]),
      added: count.nullable(),
      removed: count.nullable(),
    }).strict(),
  ),
  calls: count,
  tokens: z.object({ input: count, output: count, thinking: count, cached: count }).strict(),
  costUsd: z.number().nonnegative().nullable(),
  log: z.string().nullable(),
  prose: z.array(z.object({ log: z.string(), text: z.string() }).strict()),
  error: z.string().nullable(),
}).strict();

/** The `--json` object. */
export type JsonResult = z.infer<typeof JSON_RESULT>;

/**
 * The object for a run that ended with `status` (and `error`), checked against {@link JSON_RESULT}.
 * @throws {z.ZodError} only if code-commit itself filled the record wrong (a bug).
 */
export function jsonResult(record: RunRecord, status: ExitStatus, error?: string): JsonResult {
  const { calls, input, output, thinking, cached, cost } = record.tally;
  return JSON_RESULT.parse({
    workflow: record.workflow ?? null,
    exit: { status, class: EXIT_CLASS[status] as keyof typeof EXIT },
    model: record.model ?? null,
    attempts: record.attempts,
    repairs: record.repairs,
    dryRun: record.dryRun,
    changes: record.changes.map(({ path, kind, added, removed }) => ({
      path,
      kind,
      added: added ?? null,
      removed: removed ?? null,
    })),
    calls,
    tokens: { input, output, thinking, cached },
    // A local model has no price, whether or not a call was made: null, not 0.
    costUsd: cost.kind === "local" ||
        (record.model !== undefined && isLocalModel(record.model as ModelId))
      ? null
      : cost.nanoUsd / 1e9,
    log: record.logDir ?? null,
    prose: [...record.prose],
    error: error ?? null,
  });
}

/**
 * `result` as one line of JSON: characters a terminal or a line-based reader could take for control
 * (DEL, the C1 controls, the Unicode line and paragraph separators) escaped too, which
 * `JSON.stringify` leaves as they are. Never throws.
 */
export function formatJsonResult(result: JsonResult): string {
  return JSON.stringify(result).replace(
    /[\u007f-\u009f\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
