/**
 * What must hold before any LLM call, each refused with one line naming file and fix.
 * @module
 */
import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import { FileReadError, readBounded } from "../file_system/bounded_read.ts";
import { READ_LIMITS, type ReadLimit } from "../file_system/read_limits.ts";
import { IgnoreRules } from "../guard/ignore_rules.ts";
import { parseIgnorePatterns } from "../guard/ignore_patterns.ts";
import { AGENT_CONFIG_DIR } from "../guard/protected_paths.ts";
import { KEY_FILES } from "../llm/models.ts";
import { trackedPaths } from "./git_index.ts";
import { displayPath } from "../text/characters.ts";
import { nameSome } from "../text/change_list.ts";
import { type FolderCoverage, folderCoverage } from "./ignored_folder.ts";
import { under } from "../file_system/file_system.ts";
import { describeEntry, lstatOrUndefined } from "../file_system/lstat.ts";

/** The query the user writes. */
export const QUERY_FILE = "agent-config/query.txt";
/** The codebase rollup, made by `code-commit --rollup` (or the user's own script). */
export const CODE_ROLLUP_FILE = "agent-config/codeRollup.txt";
/** The consistency report, written by `--consistency-check`. */
export const CONSISTENCY_REPORT_FILE = "agent-config/consistency-report.txt";

const AGENT_CONFIG_FILES = [...KEY_FILES, QUERY_FILE, CODE_ROLLUP_FILE, CONSISTENCY_REPORT_FILE];
const ROLLUP_FIX =
  "run code-commit --rollup to make it, or use --build-context to let code-commit choose the files";
/** A line only the placeholder `build.sh` of `code-commit --init` holds. */
export const BUILD_PLACEHOLDER_LINE =
  `echo "build.sh: put your project's build and test commands in build.sh" >&2`;

/**
 * Checks that git will never commit anything in `agent-config/`: the root `.gitignore` is a regular
 * file (git reads no link), its rules ignore every name there, git's whole set of rules agrees on
 * each file the tool uses there, and nothing there is tracked already (ignore rules do not apply
 * to tracked files). @throws {CodeCommitError} naming the file and what to do.
 */
export async function checkAgentConfigIgnored(root: string): Promise<void> {
  const info = await lstatOrUndefined(under(root, ".gitignore"));
  if (info === undefined) {
    throw new CodeCommitError(
      `.gitignore not found in the project root: create it with the line /${AGENT_CONFIG_DIR} so your API keys are never committed`,
      EXIT.setup,
    );
  }
  if (!info.isFile) {
    throw new CodeCommitError(
      `.gitignore is ${describeEntry(info)}${info.isSymlink ? ", which git does not read" : ""}: ` +
        `make it a regular file with the line /${AGENT_CONFIG_DIR}`,
      EXIT.setup,
    );
  }
  const rules = new TextDecoder().decode(
    await readBounded(under(root, ".gitignore"), {
      limit: READ_LIMITS.ignoreRules,
      followSymlink: false,
      name: ".gitignore",
    }) ?? new Uint8Array(),
  );
  const all = await IgnoreRules.load(root);
  const coverage = folderCoverage(
    AGENT_CONFIG_DIR,
    rules,
    await all.gitignoreText(AGENT_CONFIG_DIR),
  );
  const rootOnly = parseIgnorePatterns(rules);
  const exposed: string[] = [];
  for (const path of AGENT_CONFIG_FILES) {
    if (!rootOnly.ignores(path, false) || !(await all.isIgnored(path, false))) exposed.push(path);
  }
  if (!coverage.ignored || exposed.length > 0) {
    throw new CodeCommitError(
      `.gitignore does not ignore everything in ${AGENT_CONFIG_DIR}/ (${
        describeExposure(coverage, exposed)
      }): add the line /${AGENT_CONFIG_DIR} at the end of .gitignore; it ignores the folder ` +
        "itself, so no rule can re-include anything in it, and your API keys and codebase are " +
        "never committed",
      EXIT.setup,
    );
  }
  const tracked = (await trackedPaths(root)).paths.filter((path) =>
    path.startsWith(`${AGENT_CONFIG_DIR}/`)
  );
  if (tracked.length > 0) {
    throw new CodeCommitError(
      `git already tracks ${
        nameSome(tracked.map(displayPath))
      }, so ignore rules do not protect it: run ` +
        `git rm --cached -r ${AGENT_CONFIG_DIR} (and change any key that was committed)`,
      EXIT.setup,
    );
  }
}

function describeExposure(coverage: FolderCoverage, exposed: readonly string[]): string {
  const parts: string[] = [];
  if (exposed.length > 0) {
    const last = exposed[exposed.length - 1];
    const list = exposed.length === 1 ? last : `${exposed.slice(0, -1).join(", ")} and ${last}`;
    parts.push(`${list} ${exposed.length === 1 ? "is" : "are"} not ignored`);
  }
  if (!coverage.ignored && coverage.reinclude !== undefined) {
    const { file, rule } = coverage.reinclude;
    parts.push(`the rule ${rule.rule} on line ${rule.line} of ${file} can re-include names in it`);
  }
  return parts.join("; ") ||
    "its rules ignore some names in it, but neither the folder itself nor every name";
}

/** Reads a file the workflow needs (a link followed); a setup error with `fix` if not a file. */
async function readRequiredFile(
  root: string,
  path: string,
  fix: string,
  limit: ReadLimit,
): Promise<string> {
  const bytes = await readBounded(under(root, path), { limit, followSymlink: true, name: path })
    .catch((error) => {
      if (!(error instanceof FileReadError) || error.problem !== "folder") throw error;
      throw new CodeCommitError(`${path} is not a file: ${fix}`, EXIT.setup);
    });
  if (bytes === undefined) throw new CodeCommitError(`${path} not found: ${fix}`, EXIT.setup);
  return new TextDecoder().decode(bytes);
}

/** Reads `agent-config/query.txt`. @throws {CodeCommitError} when it is missing or blank. */
export async function readQuery(root: string): Promise<string> {
  const fix = "write what you want done in it";
  const query = await readRequiredFile(root, QUERY_FILE, fix, READ_LIMITS.query);
  if (query.trim() === "") throw new CodeCommitError(`${QUERY_FILE} is empty: ${fix}`, EXIT.setup);
  return query;
}

/** Reads `agent-config/codeRollup.txt`. @throws {CodeCommitError} when it is missing. */
export function readCodeRollup(root: string): Promise<string> {
  return readRequiredFile(root, CODE_ROLLUP_FILE, ROLLUP_FIX, READ_LIMITS.codeRollup);
}

/** `stat` of `path`; a setup error saying `notFound` when nothing is there. */
async function statRequired(root: string, path: string, notFound: string): Promise<Deno.FileInfo> {
  try {
    return await Deno.stat(under(root, path));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new CodeCommitError(notFound, EXIT.setup);
    throw new CodeCommitError(`${path} cannot be read: ${messageOf(error)}`, EXIT.setup);
  }
}

/** Checks, unread, that `agent-config/codeRollup.txt` is a file. @throws {CodeCommitError} when not. */
export async function checkCodeRollup(root: string): Promise<void> {
  const path = CODE_ROLLUP_FILE;
  const info = await statRequired(root, path, `${path} not found: ${ROLLUP_FIX}`);
  if (!info.isFile) throw new CodeCommitError(`${path} is not a file: ${ROLLUP_FIX}`, EXIT.setup);
}

/** Checks that `./build.sh` is an executable file, not `--init`'s placeholder. @throws {CodeCommitError} */
export async function checkBuildScript(root: string): Promise<void> {
  const info = await statRequired(
    root,
    "build.sh",
    "build.sh not found in the project root: committing code runs ./build.sh to check every change; " +
      "create it (code-commit --init writes a starter)",
  );
  if (!info.isFile) {
    throw new CodeCommitError("build.sh is not a file: it must be the build script", EXIT.setup);
  }
  if (info.mode !== null && (info.mode & 0o111) === 0) {
    throw new CodeCommitError("build.sh is not executable: run chmod +x build.sh", EXIT.setup);
  }
  if (info.size > 64 * 1024) return; // far larger than the placeholder
  const bytes = await readBounded(under(root, "build.sh"), {
    limit: READ_LIMITS.buildScript,
    followSymlink: true,
    name: "build.sh",
  }).catch(() => undefined);
  if (bytes !== undefined && new TextDecoder().decode(bytes).includes(BUILD_PLACEHOLDER_LINE)) {
    throw new CodeCommitError(
      "build.sh is still the placeholder code-commit --init wrote: put your project's build and " +
        "test commands in it (every change is kept only when it exits 0)",
      EXIT.setup,
    );
  }
}
