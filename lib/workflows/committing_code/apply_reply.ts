/**
 * One reply, applied all or nothing: refused when cut off, parsed, every path guarded, then written
 * transactionally. A refusal writes nothing and its reason goes to the next repair query.
 * @module
 */
import { sameBytes } from "../../apply/content_hash.ts";
import { type AppliedChange, ApplyError, applyOperations } from "../../apply/apply.ts";
import type { ApplyJournal } from "../../apply/journal.ts";
import { EXIT, type ExitStatus } from "../../errors/errors.ts";
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

/** A refused reply: why (keys masked), and its status: 5 for a key, 3 for a rolled-back write, else 4. */
type Refused = { readonly ok: false; readonly reason: string; readonly status: ExitStatus };

/** What applying a reply did: its operations in reply order, what changed, and what it left as it was. */
export type ReplyOutcome =
  | {
    readonly ok: true;
    readonly operations: readonly FileOperation[];
    readonly changes: readonly AppliedChange[];
    /** Paths whose file already held exactly the reply's content: not written. */
    readonly unchanged: readonly string[];
    readonly warnings: readonly string[];
  }
  | Refused;

const KEY_IN_CONTENT_REASON =
  "its content holds an API key (whole, in part, or encoded), and a key is never written to a file";

const KEY_IN_PATH_REASON =
  "its path holds an API key (whole, in part, or encoded), and a key is never written to a file " +
  "name (git would commit it with the file)";

/**
 * The operations that would write a key `redactor` knows, in their path (what `git add` records) or
 * content, as refusals with unmasked paths. The whole reply is scanned first, once, with line ends
 * as the parser reads them: every path and content is then a substring of it, so when it holds no
 * key, no part does.
 */
function keyRefusals(
  operations: readonly FileOperation[],
  redactor: Redactor,
  replyText: string,
): Refusal[] {
  if (!redactor.containsKey(withLineFeeds(replyText))) return [];
  return operations.flatMap(({ path, ...operation }) =>
    redactor.containsKey(path)
      ? [{ path, reason: KEY_IN_PATH_REASON }]
      : operation.kind === "write" && redactor.containsKey(operation.content)
      ? [{ path, reason: KEY_IN_CONTENT_REASON }]
      : []
  );
}

/** A reply parsed, guarded and checked for keys: its operations and the parser's warnings. */
export type CheckedReply =
  | {
    readonly ok: true;
    readonly operations: readonly FileOperation[];
    readonly warnings: readonly string[];
  }
  | Refused;

/**
 * Checks `reply` against the project at `root` without writing anything. Never throws for a bad
 * reply; a reason holds no key (every one is masked).
 */
export async function checkReply(
  root: string,
  reply: LlmReply,
  redactor: Redactor,
): Promise<CheckedReply> {
  if (reply.truncated) {
    const reason =
      `the reply was cut off at the model's output limit (finish reason ${reply.finishReason}), ` +
      `so none of it was applied; reply with fewer or smaller files`;
    return { ok: false, reason, status: EXIT.model };
  }
  const parsed = parseReply(reply.text);
  if (!parsed.ok) return { ok: false, reason: redactor.redact(parsed.reason), status: EXIT.model };

  const guarded = await guardOperations(root, parsed.operations);
  const keys = keyRefusals(parsed.operations, redactor, reply.text);
  if (!guarded.ok || keys.length > 0) {
    const refused = guarded.ok ? [] : guarded.refusals;
    const paths = new Set(refused.map((refusal) => refusal.path));
    // One line per refused path, in reply order (a path refused by the guard is not repeated).
    const order = new Map(parsed.operations.map((operation, index) => [operation.path, index]));
    const all = [...refused, ...keys.filter((refusal) => !paths.has(refusal.path))]
      .sort((a, b) => (order.get(a.path) ?? 0) - (order.get(b.path) ?? 0))
      .map((refusal) => ({ ...refusal, path: redactor.redact(refusal.path) }));
    return {
      ok: false,
      reason: redactor.redact(formatRefusals(all)),
      status: keys.length > 0 ? EXIT.safety : EXIT.model,
    };
  }
  return { ok: true, operations: guarded.operations, warnings: parsed.warnings };
}

/**
 * Applies `reply` all or nothing, journaled before anything is written. A bad reply or a
 * rolled-back write comes back as `ok: false`, every key masked in the reason (it goes into the
 * next repair prompt).
 * @throws {ApplyError} only when a failed write could not be rolled back completely: the run must
 * stop, and the message lists the paths to restore.
 */
export async function applyReply(
  root: string,
  reply: LlmReply,
  redactor: Redactor,
  journal: ApplyJournal,
): Promise<ReplyOutcome> {
  const checked = await checkReply(root, reply, redactor);
  if (!checked.ok) return checked;
  // A file already holding the reply's content is left alone, and told as unchanged.
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
      return { ok: false, reason: redactor.redact(error.message), status: EXIT.setup };
    }
    throw error;
  }
}

/** Whether `operation` writes exactly the bytes its regular file holds now (read as project files are). */
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
  return sameBytes(now.bytes, wanted);
}

const encoder = new TextEncoder();

/**
 * `created src/a.ts, replaced src/b.ts; src/d.ts unchanged (same content)`, with counts past twenty
 * files, or `no file changed`. Never throws.
 */
export function describeChanges(
  changes: readonly AppliedChange[],
  unchanged: readonly string[] = [],
): string {
  const parts: string[] = [];
  if (changes.length > 0) {
    const named = nameSome(changes.map((change) => `${change.kind} ${change.path}`));
    const kinds = countKinds(changes.map((change) => ({ ...change, added: 0, removed: 0 })));
    parts.push(
      changes.length <= NAMED_AT_MOST
        ? named
        : `${plural(changes.length, "file")} (${kinds}): ${named}`,
    );
  }
  if (unchanged.length > 0) parts.push(`${nameSome(unchanged)} unchanged (same content)`);
  return parts.length === 0 ? "no file changed" : parts.join("; ");
}
