/**
 * `--dry-run`: the initial call, its reply checked exactly as before an apply and shown instead of
 * applied (one line per path, the unified diff in the log folder). Nothing else is written, no
 * build runs.
 * @module
 */
import { EXIT, type ExitStatus } from "../../errors/errors.ts";
import { denoFileSystem, under } from "../../file_system/file_system.ts";
import { INITIAL_QUERY, REFUSED_LIST } from "../../logger/log_names.ts";
import type { RunLog } from "../../logger/run_log.ts";
import { askModel, type Session } from "../../session/session.ts";
import {
  type ChangedFile,
  countKinds,
  cutList,
  formatChangedFiles,
  NAMED_AT_MOST,
} from "../../text/change_list.ts";
import { countLineChanges, unifiedDiff } from "../../text/diff.ts";
import { plural } from "../../text/plural.ts";
import { checkReply } from "./apply_reply.ts";
import { showProse } from "./loop.ts";
import { initialPrompt } from "./prompt_layout.ts";

const decoder = new TextDecoder();

/**
 * Makes the initial call and shows what its reply would change: 0, or 4 when the reply could not be
 * applied (every refused path named).
 * @throws {LlmError} when the call fails; a `CodeCommitError` when a file cannot be read.
 */
export async function runDryRun(
  session: Session,
  log: RunLog,
  query: string,
  codebase: string,
): Promise<ExitStatus> {
  const { console, client, root } = session;
  console.info(`initial query (dry run): asking ${client.model}`);
  session.record.noteAttempt(0);
  session.record.dryRun = true;
  const reply = await askModel(session, log, INITIAL_QUERY, initialPrompt(query, codebase));
  showProse(console, client.model, reply.text, log.path(INITIAL_QUERY.replyText));
  const tokens = `${plural(session.tally.calls, "LLM call")}, ${session.tally.describe()}`;
  const checked = await checkReply(root, reply, session.redactor);
  if (!checked.ok) {
    await log.write(REFUSED_LIST, `${checked.reason}\n`);
    const shown = cutList(checked.reason.split("\n"), log.path(REFUSED_LIST), NAMED_AT_MOST + 1);
    console.error(`the reply could not be applied: ${shown.join("\n")}`);
    console.result(
      `committing code (dry run): the reply could not be applied (see above); nothing was ` +
        `written; ${tokens}; logs in ${log.dir}`,
    );
    return EXIT.model;
  }
  for (const warning of checked.warnings) console.warn(warning);

  const planned: ChangedFile[] = [];
  const diffs: string[] = [];
  const unchanged: string[] = [];
  for (const operation of checked.operations) {
    const before = await currentText(root, operation.path);
    const after = operation.kind === "write" ? operation.content : null;
    if (before === after) {
      unchanged.push(
        operation.kind === "delete"
          ? `unchanged ${operation.path} (to be deleted, but it does not exist)`
          : `unchanged ${operation.path} (it holds exactly this already)`,
      );
      continue;
    }
    const kind = before === null ? "created" : after === null ? "deleted" : "replaced";
    planned.push({ path: operation.path, kind, ...countLineChanges(before ?? "", after ?? "") });
    diffs.push(unifiedDiff(operation.path, before, after));
  }
  session.record.changes = planned;
  const lines = formatChangedFiles(planned);
  const file = log.path(INITIAL_QUERY.dryRun);
  await log.write(
    INITIAL_QUERY.dryRun,
    [
      `# code-commit --dry-run: what the reply would change (nothing was written)`,
      ...lines.map((line) => `#${line}`),
      ...unchanged.map((line) => `#  ${line}`),
      "",
      diffs.join(""),
    ].join("\n"),
  );
  const what = planned.length === 0
    ? "would change no file"
    : `would change ${plural(planned.length, "file")} (${countKinds(planned)})`;
  console.result(
    [`the reply ${what}:`, ...cutList([...lines, ...unchanged.map((line) => `  ${line}`)], file)]
      .join("\n"),
  );
  console.result(
    `committing code (dry run): the reply ${what}; nothing was written and no build ran; ` +
      `the whole diff is in ${file}; ${tokens}; logs in ${log.dir}`,
  );
  return EXIT.ok;
}

/** The text of the file at `path` (the guard checked it is regular), or null when none is there. */
async function currentText(root: string, path: string): Promise<string | null> {
  try {
    await denoFileSystem.lstat(under(root, path));
  } catch {
    return null;
  }
  return decoder.decode(await denoFileSystem.readFile(under(root, path)));
}
