/**
 * The context budget: the largest parts of a codebase, and the check before each call.
 * @module
 */
import { CodeCommitError, EXIT } from "../errors/errors.ts";
import { checkPathSyntax } from "../guard/path_syntax.ts";
import { formatCount } from "../text/numbers.ts";
import { estimateTokens as estimateTextTokens, tokensOfBytes, utf8Length } from "../text/tokens.ts";

const FILENAMES = "FILENAMES";
/** Block headers of a codebase summary that name no file. */
const NOT_FILES = new Set([FILENAMES, "END FILENAMES"]);

/** One folder's or file's part of a codebase: its tokens, and its share of the whole. */
export interface CodebaseShare {
  readonly path: string;
  readonly tokens: number;
  readonly share: number;
}

/**
 * The largest files of the `--- path ---` blocks in `text`, and top-level folders (`lib/`),
 * `count` of each, with their estimated tokens and share (0 to 1) of all. Never throws.
 */
export function codebaseShares(
  text: string,
  count = 5,
): { tokens: number; folders: CodebaseShare[]; files: CodebaseShare[] } {
  const sizes = new Map<string, number>();
  const folders = new Map<string, number>();
  const add = (to: Map<string, number>, path: string, bytes: number) =>
    to.set(path, (to.get(path) ?? 0) + bytes);
  const lines = text.split("\n");
  let block = ""; // the path of the block header the line is under
  lines.forEach((line, index) => {
    const path = headerPath(line);
    if (path !== undefined) block = path;
    else if (block === FILENAMES) {
      // A summary's list of names: each name counts for its file (and so for its folder).
      if (line !== "") add(sizes, line, utf8Length(line) + 1);
      return;
    }
    if (block !== "" && !NOT_FILES.has(block)) {
      add(sizes, block, utf8Length(line) + (index < lines.length - 1 ? 1 : 0));
    }
  });
  let total = 0;
  for (const [path, bytes] of sizes) {
    total += bytes;
    const slash = path.indexOf("/");
    if (slash > 0) add(folders, path.slice(0, slash + 1), bytes);
  }
  const largest = (entries: Map<string, number>) =>
    [...entries].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, count)
      .map(([path, bytes]) => ({
        path,
        tokens: tokensOfBytes(bytes),
        share: total === 0 ? 0 : bytes / total,
      }));
  return { tokens: tokensOfBytes(total), folders: largest(folders), files: largest(sizes) };
}

/** The `x` of a `--- x ---` block header: a list header or a path a rollup could hold. */
function headerPath(line: string): string | undefined {
  if (!line.endsWith(" ---") || !line.startsWith("--- ") || line.length <= 8) return undefined;
  const path = line.slice(4, -4);
  return NOT_FILES.has(path) || checkPathSyntax(path) === undefined ? path : undefined;
}

/** `node_modules/ 97 %, lib/ 2 %`: each share named with its percentage. Never throws. */
export function describeShares(shares: readonly { path: string; share: number }[]): string {
  // A share under one per cent is `<1 %`.
  return shares.map(({ path, share }) => `${path} ${Math.round(share * 100) || "<1"} %`)
    .join(", ");
}

/** The largest folders and files of the codebase in `text`, as one clause. Never throws. */
export function describeLargest(text: string): string {
  const { folders, files } = codebaseShares(text);
  return [
    folders.length > 0 ? `the largest folders of the codebase: ${describeShares(folders)}` : "",
    files.length > 0 ? `the largest files: ${describeShares(files)}` : "",
  ].filter((part) => part !== "").join("; ");
}

/** What to do about a codebase too large (`--build-context` unless used). Never throws. */
export function shrinkAdvice(buildContext = false): string {
  return "leave what the model does not need out with a .codecommitignore at the project root " +
    "(gitignore syntax, e.g. `node_modules/` or `package-lock.json`; what it matches stays out " +
    "of every prompt though git tracks it), or untrack it and add it to .gitignore" +
    (buildContext
      ? ""
      : ", or use --build-context so that only the files the model chooses are sent");
}

/** The budget of one model's prompt (`local`: a window `--context-window` sets). */
export interface PromptBudget {
  readonly model: string;
  readonly inputLimit: number;
  readonly local: boolean;
  readonly buildContext?: boolean;
}

/** Checks that `prompt` fits `budget`. @throws {CodeCommitError} when it does not. */
export function checkPromptBudget(prompt: string, budget: PromptBudget): void {
  const tokens = estimateTextTokens(prompt);
  if (tokens <= budget.inputLimit) return;
  const largest = describeLargest(prompt);
  throw new CodeCommitError(
    `the prompt for ${budget.model} is about ${formatCount(tokens)} tokens, more than the ` +
      `${formatCount(budget.inputLimit)} the model takes, so it was not sent` +
      (largest === "" ? "" : `; ${largest}`) + `: ${shrinkAdvice(budget.buildContext)}` +
      (budget.local
        ? "; if the local server's window is larger, say so with --context-window TOKENS"
        : ""),
    EXIT.setup,
  );
}
