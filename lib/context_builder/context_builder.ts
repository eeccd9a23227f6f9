/**
 * A run's codebase: the rollup, or with `--build-context` the files a preprocessing call names.
 * @module
 */
import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { displayPath } from "../text/characters.ts";
import { plural } from "../text/plural.ts";
import { IgnoreRules } from "../guard/ignore_rules.ts";
import { CodeCommitIgnore } from "../guard/codecommit_ignore.ts";
import { CONTEXT_CODEBASE, CONTEXT_QUERY } from "../logger/log_names.ts";
import type { RunLog } from "../logger/run_log.ts";
import { SYSTEM_PROMPTS } from "../prompts/system_prompts.ts";
import { loadRollup } from "../rollup/rollup.ts";
import { askModel, type Session } from "../session/session.ts";

/** What the context builder needs: the next agent's prompt, and the log folder it logs in. */
export type ContextRequest = { readonly nextAgentPrompt: string; readonly log: RunLog };

const MAX_WARNINGS_SHOWN = 10;

function contextQueryPrompt(nextAgentPrompt: string, summary: string): string {
  const [system, next, codebase] = [SYSTEM_PROMPTS.contextQuery, nextAgentPrompt, summary]
    .map((text) => text.endsWith("\n") ? text : `${text}\n`);
  return `${system}\n=== Next Agent Full Prompt ===\n${next}\n=== Codebase Summary ===\n${codebase}`;
}

/**
 * A run's codebase: the rollup, read now, or the builder, run when the returned function is.
 * @throws {CodeCommitError} when the rollup is needed and missing, or cannot be made again.
 */
export async function prepareCodebase(
  session: Session,
): Promise<(request: ContextRequest) => Promise<string>> {
  if (session.options.buildContext) return (request) => buildContext(session, request);
  const rollup = await loadRollup(session.root, session.console, !session.options.dryRun);
  return () => Promise.resolve(rollup);
}

// The files the model chooses from the project's summary; the errors of `askModel`, or none read.
async function buildContext(session: Session, request: ContextRequest): Promise<string> {
  const { root, console, client } = session;
  const { log } = request;
  // Loaded only with --build-context: a run from the rollup needs none of it.
  const [{ assembleChosenFiles, parseFileList }, { buildSummary }] = await Promise.all([
    import("./chosen_files.ts"),
    import("./summary.ts"),
  ]);
  const rules = await IgnoreRules.load(root);
  const exclude = await CodeCommitIgnore.load(root);
  const summary = await buildSummary(root, rules, { exclude });
  const { warnings } = summary;
  const shown = warnings.length > MAX_WARNINGS_SHOWN + 1
    ? warnings.slice(0, MAX_WARNINGS_SHOWN)
    : warnings;
  for (const warning of shown) console.warn(`context builder: ${warning}`);
  const more = warnings.length - shown.length;
  if (more > 0) console.warn(`context builder: … and ${more} more like these`);
  console.info(
    `context builder: asking ${client.model} to choose the files (the summary lists ` +
      `${plural(summary.files, "file")} and ${plural(summary.modules, "folder")} ${summary.where})`,
  );
  const prompt = contextQueryPrompt(request.nextAgentPrompt, summary.text);
  const reply = await askModel(session, log, CONTEXT_QUERY, prompt);

  const list = parseFileList(reply.text);
  if (!list.ok) {
    const cut = reply.truncated ? " (the reply was cut off at the model's output limit)" : "";
    throw new CodeCommitError(
      `the context builder's reply cannot be used: ${list.reason}${cut}; ` +
        `see ${log.path(CONTEXT_QUERY.replyText)}`,
      EXIT.model,
    );
  }

  const codebase = await assembleChosenFiles(root, list.paths, rules, exclude);
  for (const drop of codebase.dropped) {
    console.warn(`context builder: ${displayPath(drop.path)} was not provided: ${drop.reason}`);
  }
  await log.write(CONTEXT_CODEBASE, codebase.text);
  if (codebase.included.length === 0) {
    const why = list.paths.length === 0
      ? "its list names none"
      : `${list.paths.length} requested, none could be read`;
    throw new CodeCommitError(
      `the context builder provided no file (${why}), so the run stops rather than change code ` +
        `the model has not seen; see ${log.path(CONTEXT_QUERY.replyText)}`,
      EXIT.model,
    );
  }
  console.info(
    `context builder: ${plural(codebase.included.length, "file")} provided` +
      (codebase.dropped.length > 0 ? `, ${codebase.dropped.length} requested but dropped` : "") +
      `; see ${log.path(CONTEXT_CODEBASE)}`,
  );
  return codebase.text;
}
