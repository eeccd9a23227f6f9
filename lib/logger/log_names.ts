/**
 * Every log folder slug and log file name, in one place.
 * @module
 */

/** The folder under the project root that holds one folder per run. */
export const LOGS_DIR = "logs";

/** Run folder slugs. */
export const SLUGS = {
  committingCode: "committing-code",
  consistencyReport: "consistency-report",
  undo: "undo",
  checkBuild: "check-build",
} as const;

/** `--check-build`'s one build, in its run folder. */
export const CHECK_BUILD_LOG = "build.txt";

/** The slug of one auto-workflow task: `auto-workflow-<spec path, / as +>-<stage>`. Never throws. */
export function autoWorkflowSlug(specPath: string, stage: string): string {
  return `auto-workflow-${specPath.replaceAll("/", "+")}-${stage}`;
}

/** The files of one LLM call: prompt, reply text (or `ERROR`), JSON body, events, build, dry-run diff. */
export type CallLogNames = Readonly<ReturnType<typeof callNames>>;

function callNames(stem: string) {
  return {
    query: `${stem}.txt`,
    replyText: `${stem}-response.txt`,
    replyJson: `${stem}-response.json`,
    replyEvents: `${stem}-response-events.txt`,
    build: `${stem}-build.txt`,
    dryRun: `${stem}-dry-run.diff`,
  };
}

/** Committing code's first call: `1-initial-query…`. */
export const INITIAL_QUERY: CallLogNames = callNames("1-initial-query");

/** Committing code's repair `n` (1-based): `<n+1>-repair-query-<n>…`. Never throws. */
export function repairQuery(n: number): CallLogNames {
  return callNames(`${n + 1}-repair-query-${n}`);
}

/** The context builder's preprocessing call: `0-context-query…`. */
export const CONTEXT_QUERY: CallLogNames = callNames("0-context-query");

/** The codebase the context builder assembled. */
export const CONTEXT_CODEBASE = "0-codebase.txt";

/** A workflow's single call (consistency report, auto-workflow review): `query…`. */
export const SINGLE_QUERY: CallLogNames = callNames("query");

/** The files a run changed, each with the lines added and removed (the terminal shows the first ones). */
export const CHANGES_LIST = "changes.txt";

/** Why a dry run's reply could not be applied, every refused path (the terminal shows the first ones). */
export const REFUSED_LIST = "refused.txt";

/** What `--undo` restored. */
export const UNDO_LIST = "undo.txt";
