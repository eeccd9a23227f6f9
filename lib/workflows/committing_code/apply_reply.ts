/**
 * One reply, applied all or nothing: refused when it was cut off, parsed,
 * every path checked by the guard, then written transactionally. Any
 * failure writes nothing and gives the reason, which the next repair query
 * receives in place of the build output (it counts as a failed attempt).
 *
 * @module
 */
import { type AppliedChange, ApplyError, applyOperations } from "../../apply/apply.ts";
import type { ApplyJournal } from "../../apply/journal_recorder.ts";
import { formatRefusals, guardOperations, type Refusal } from "../../guard/guard.ts";
import type { LlmReply } from "../../llm/types.ts";
import type { FileOperation } from "../../reply/operations.ts";
import { withLineFeeds } from "../../reply/blocks.ts";
import { parseReply } from "../../reply/parse.ts";
import { readProjectBytes } from "../../project_files/project_bytes.ts";
import { under } from "../../file_system/file_system.ts";
import { lstatOrUndefined } from "../../file_system/lstat.ts";
import type { Redactor } from "../../secrets/redact.ts";
import { countKinds, NAMED_AT_MOST, nameSome } from "../../text/change_list.ts";
import { plural } from "../../text/plural.ts";

/** What applying a reply did. */
export type ReplyOutcome =
  | {
    readonly ok: true;
    /** The operations carried out (normalized paths), in reply order. */
    readonly operations: readonly FileOperation[];
    /** What changed on disk. */
    readonly changes: readonly AppliedChange[];
    /** Paths whose file already held exactly the reply's content: not written, not changed. */
    readonly unchanged: readonly string[];
    /** Things worth telling the user (a path given twice, a delete of a missing file). */
    readonly warnings: readonly string[];
  }
  | {
    readonly ok: false;
    /** Why nothing was written, for the user and for the next repair query. */
    readonly reason: string;
    /**
     * True when the reply was usable but writing it failed (and was rolled
     * back): the project's files refused, not the reply.
     */
    readonly writeFailed?: boolean;
    /** True when a file or path of the reply holds an API key (a stop for safety). */
    readonly heldKey?: boolean;
  };

/** Why a file holding a key is refused, for the user and the repair prompt. */
export const KEY_IN_CONTENT_REASON =
  "its content holds an API key (whole, in part, or encoded), and a key is never written to a file";

/** Why a path holding a key is refused (shown masked), for the user and the repair prompt. */
export const KEY_IN_PATH_REASON =
  "its path holds an API key (whole, in part, or encoded), and a key is never written to a file " +
  "name (git would commit it with the file)";

/**
 * The operations of `operations` that would write a key in any form
 * `redactor` knows (see `Redactor.containsKey`), as refusals: a write or a
 * delete whose path holds one (the path is what `git add` records), a write
 * whose content holds one. Refusal paths are as the reply wrote them: mask
 * them before showing them.
 *
 * `replyText`, the text the operations were parsed from, is looked at first,
 * in one pass (with its line ends as the parser reads them,
 * `withLineFeeds`): every path and content is a part of it, so when it holds no
 * key, none of them does, and they are not looked at one by one (one scan
 * for the reply, not one per file). Never throws.
 */
export function keyRefusals(
  operations: readonly FileOperation[],
  redactor: Redactor,
  replyText?: string,
): Refusal[] {
  if (replyText !== undefined && !redactor.containsKey(withLineFeeds(replyText))) return [];
  const refusals: Refusal[] = [];
  for (const operation of operations) {
    if (redactor.containsKey(operation.path)) {
      refusals.push({ path: operation.path, reason: KEY_IN_PATH_REASON });
    } else if (operation.kind === "write" && redactor.containsKey(operation.content)) {
      refusals.push({ path: operation.path, reason: KEY_IN_CONTENT_REASON });
    }
  }
  return refusals;
}

/** A reply parsed, its paths guarded and its contents checked for keys: what it would do. */
export type CheckedReply =
  | {
    readonly ok: true;
    /** The operations (normalized paths), in reply order. */
    readonly operations: readonly FileOperation[];
    /** The parser's warnings (a path given twice). */
    readonly warnings: readonly string[];
  }
  | {
    readonly ok: false;
    /** Why it cannot be applied, naming every refused path, every key masked. */
    readonly reason: string;
    /** True when a file or path of the reply holds an API key. */
    readonly heldKey?: boolean;
  };

/**
 * Checks `reply` against the project at `root` without writing anything:
 * refused when it was cut off, parsed, every path guarded, every path and
 * content checked for a key. Never throws for a bad reply; a reason holds
 * no key (every one is masked).
 */
export async function checkReply(
  root: string,
  reply: LlmReply,
  redactor: Redactor,
): Promise<CheckedReply> {
  if (reply.truncated) {
    return {
      ok: false,
      reason:
        `the reply was cut off at the model's output limit (finish reason ${reply.finishReason}), ` +
        `so none of it was applied; reply with fewer or smaller files`,
    };
  }
  const parsed = parseReply(reply.text);
  if (!parsed.ok) return { ok: false, reason: redactor.redact(parsed.reason) };

  const guarded = await guardOperations(root, parsed.operations);
  const keys = keyRefusals(parsed.operations, redactor, reply.text);
  if (!guarded.ok || keys.length > 0) {
    const refused = guarded.ok ? [] : guarded.refusals;
    const paths = new Set(refused.map((refusal) => refusal.path));
    // One line per refused path, in reply order (a path refused by the guard is not repeated).
    const order = new Map<string, number>();
    parsed.operations.forEach((operation, index) => order.set(operation.path, index));
    const all = [...refused, ...keys.filter((refusal) => !paths.has(refusal.path))]
      .sort((a, b) => (order.get(a.path) ?? 0) - (order.get(b.path) ?? 0))
      .map((refusal) => ({ ...refusal, path: redactor.redact(refusal.path) }));
    return {
      ok: false,
      reason: redactor.redact(formatRefusals(all)),
      ...(keys.length > 0 && { heldKey: true }),
    };
  }
  return { ok: true, operations: guarded.operations, warnings: parsed.warnings };
}

/**
 * Applies `reply` to the project at `root`, all or nothing, recording the
 * apply in `journal` before anything is written.
 *
 * Never throws for a bad reply: a truncated reply, a parse error, a refused
 * path, a path or a file content that holds a key (any form `redactor`
 * knows) or a failed (and rolled back) write come back as `ok: false`, with
 * a reason in which every key is masked (it goes into the next repair
 * prompt, and a prompt holding a key is never sent).
 *
 * @throws {ApplyError} only when a failed write could not be rolled back
 * completely: the run must stop, and the message lists the paths to restore.
 */
export async function applyReply(
  root: string,
  reply: LlmReply,
  redactor: Redactor,
  journal: ApplyJournal,
): Promise<ReplyOutcome> {
  const checked = await checkReply(root, reply, redactor);
  if (!checked.ok) return checked;
  // A file that already holds the reply's content is left alone: writing it would change
  // nothing, and the user is told it was unchanged rather than replaced.
  const unchanged: string[] = [];
  const writes: FileOperation[] = [];
  for (const operation of checked.operations) {
    if (await holdsAlready(root, operation)) unchanged.push(operation.path);
    else writes.push(operation);
  }
  try {
    const applied = await applyOperations(root, writes, { journal });
    return {
      ok: true,
      operations: checked.operations,
      changes: applied.changes,
      unchanged,
      warnings: [...checked.warnings, ...applied.warnings],
    };
  } catch (error) {
    if (error instanceof ApplyError && error.notRestored.length === 0) {
      return { ok: false, reason: redactor.redact(error.message), writeFailed: true };
    }
    throw error;
  }
}

/**
 * Whether `operation` is a write of exactly the bytes the regular file at
 * its path holds now, read as every project file is (bounded, at most
 * 1 MiB, never through a link): a file that cannot be read so is written.
 */
async function holdsAlready(root: string, operation: FileOperation): Promise<boolean> {
  if (operation.kind !== "write") return false;
  const wanted = encoder.encode(operation.content);
  // A file of another size differs: most replaced files are not read at all.
  const size = await lstatOrUndefined(under(root, operation.path)).then(
    (info) => info?.isFile ? info.size : undefined,
    () => undefined,
  );
  if (size !== wanted.length) return false;
  const now = await readProjectBytes(root, operation.path);
  if (!now.ok) return false;
  return now.bytes.length === wanted.length &&
    now.bytes.every((byte, index) => byte === wanted[index]);
}

const encoder = new TextEncoder();

/**
 * `created src/a.ts, replaced src/b.ts, deleted src/c.ts`; past twenty,
 * `2,000 files (1,990 created, 10 replaced): created a, …, and 1,980 more`;
 * then the files the reply left as they were, `src/d.ts unchanged (same
 * content)`; `no file changed` when there is neither. Never throws.
 */
export function describeChanges(
  changes: readonly AppliedChange[],
  unchanged: readonly string[] = [],
): string {
  const parts: string[] = [];
  if (changes.length > 0) parts.push(describeChanged(changes));
  if (unchanged.length > 0) parts.push(`${nameSome(unchanged)} unchanged (same content)`);
  return parts.length === 0 ? "no file changed" : parts.join("; ");
}

/** The changed files, named (the first twenty, then a count). */
function describeChanged(changes: readonly AppliedChange[]): string {
  const named = nameSome(changes.map((change) => `${change.kind} ${change.path}`));
  if (changes.length <= NAMED_AT_MOST) return named;
  const kinds = countKinds(changes.map((change) => ({ ...change, added: 0, removed: 0 })));
  return `${plural(changes.length, "file")} (${kinds}): ${named}`;
}
