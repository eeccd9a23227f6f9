/**
 * The tamper check, contained or not: `build.sh` must stay as first seen (kind, mode, bytes, and
 * link target: a build could swap it for a link to a copy it rewrites later), or a build that
 * rewrote it would make every later build "pass"; `.gitignore` must still protect the keys after
 * every build, or the user's next `git add -A` commits them (a stopped build has it put back when
 * that is safe). The sandbox makes both read-only; this check holds without it.
 * A build that creates, removes or changes another protected entry (a `src/.git` whose
 * configuration runs a command at the next `git status`, a `.gitignore` hiding what it wrote; a
 * rename of the folder above, which no read-only mount stops) stops the run too. Compared: kind,
 * device and inode, mode, and a file's SHA-256 (over 4 MiB: size and times) or a link's target.
 * @module
 */
import { sameBytes } from "../apply/content_hash.ts";
import { denoFileSystem, under } from "../file_system/file_system.ts";
import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import { FileReadError, readBounded } from "../file_system/bounded_read.ts";
import { describeEntry, lstatOrUndefined } from "../file_system/lstat.ts";
import { READ_LIMITS, type ReadLimit } from "../file_system/read_limits.ts";
import { writeAtomically } from "../file_system/write_atomically.ts";
import { PROTECTED_PATHS } from "../guard/protected_paths.ts";
import { type ProjectScan, scanProject } from "../sandbox/project_scan.ts";
import { nameSome } from "../text/change_list.ts";
import { checkAgentConfigIgnored } from "./preconditions.ts";

const BUILD_FILE = "build.sh";

/** `build.sh` as it was: missing, or its link target (as written) if a link, mode and bytes. */
export type BuildScriptSnapshot =
  | { readonly kind: "missing" }
  | {
    readonly kind: "file";
    readonly linkTarget?: string;
    readonly mode: number | null;
    readonly bytes: Uint8Array;
  };

/**
 * Looks at `build.sh` now, with the bounded read. @throws {CodeCommitError} when it is not a regular
 * file (nor a link to one), too large or unreadable: a script not compared is not trusted.
 */
export async function snapshotBuildScript(root: string): Promise<BuildScriptSnapshot> {
  const path = under(root, BUILD_FILE);
  let linkTarget: string | undefined;
  try {
    const info = await lstatOrUndefined(path);
    if (info === undefined) return { kind: "missing" };
    if (info.isSymlink) linkTarget = await Deno.readLink(path);
  } catch (error) {
    throw new CodeCommitError(`${BUILD_FILE} cannot be looked at: ${messageOf(error)}`, EXIT.setup);
  }
  let bytes: Uint8Array | undefined;
  let mode: number | null;
  try {
    bytes = await readBounded(path, {
      limit: READ_LIMITS.buildScript,
      followSymlink: true,
      name: BUILD_FILE,
    });
    mode = bytes === undefined ? null : (await Deno.stat(path)).mode;
  } catch (error) {
    const why = error instanceof FileReadError
      ? error.message
      : `${BUILD_FILE}: ${messageOf(error)}`;
    throw new CodeCommitError(
      `${why}; code-commit compares build.sh after every build and cannot here`,
      EXIT.setup,
    );
  }
  // A dangling link reads as nothing: nothing to run, and nothing to compare but the link.
  bytes ??= new Uint8Array();
  return { kind: "file", ...(linkTarget === undefined ? {} : { linkTarget }), mode, bytes };
}

function difference(was: BuildScriptSnapshot, now: BuildScriptSnapshot): string | undefined {
  if (was.kind === "missing" || now.kind === "missing") {
    if (was.kind === now.kind) return undefined;
    return now.kind === "missing" ? "it is gone" : "it was not there when the run started";
  }
  if (was.linkTarget !== now.linkTarget) {
    if (now.linkTarget === undefined) return `it was a link to ${was.linkTarget}, now a file`;
    if (was.linkTarget === undefined) return `it is now a link to ${now.linkTarget}`;
    return `it was a link to ${was.linkTarget}, now to ${now.linkTarget}`;
  }
  if (was.mode !== now.mode) {
    return `its permissions changed from ${was.mode?.toString(8)} to ${now.mode?.toString(8)}`;
  }
  if (!sameBytes(was.bytes, now.bytes)) {
    return was.linkTarget === undefined
      ? "it is not what it was"
      : `${was.linkTarget}, where it leads, is not what it was`;
  }
  return undefined;
}

const REVIEW =
  "code-commit stopped before any further LLM call; review what the model's code did " +
  "(git status shows the files it made, git diff what it changed), restore the file, and " +
  "consider running with --sandbox on; code-commit --undo takes back what the run's replies " +
  "changed (not what the build itself wrote)";

/**
 * Checks that `build.sh` is what it was (`was`); `when` says when (`while ./build.sh ran`).
 * @throws {CodeCommitError} (`EXIT.safety`) naming build.sh and what changed.
 */
export async function checkBuildScriptUnchanged(
  root: string,
  was: BuildScriptSnapshot,
  when: string,
): Promise<void> {
  const now = await snapshotBuildScript(root).catch((error) => {
    throw new CodeCommitError(
      `${BUILD_FILE} changed ${when}: it cannot be read any more (${messageOf(error)}); restore ` +
        `it with git checkout -- ${BUILD_FILE}; ${REVIEW}`,
      EXIT.safety,
    );
  });
  const change = difference(was, now);
  if (change === undefined) return;
  const files = was.kind === "file" && was.linkTarget !== undefined
    ? `${BUILD_FILE} ${was.linkTarget}`
    : BUILD_FILE;
  throw new CodeCommitError(
    `${BUILD_FILE} changed ${when}: ${change} (restore it with git checkout -- ${files}); ${REVIEW}`,
    EXIT.safety,
  );
}

type GitignoreCopy = { readonly bytes: Uint8Array; readonly mode: number | null } | undefined;

const PROTECTED_FILE_LIMIT: ReadLimit = { bytes: 4 * 2 ** 20, what: "a protected file" };

/**
 * Left out: `build.sh`, compared with the run's first look, and what the table hides from builds
 * (`logs/`, `agent-config/`): a build cannot change what it cannot see.
 */
const LEFT_OUT = new Set([
  BUILD_FILE,
  ...PROTECTED_PATHS.filter((entry) => entry.build === "hidden").map((entry) => entry.name),
]);

/** Each protected entry's state (a string that differs when anything compared differs), by path. */
type ProtectedSnapshot = ReadonlyMap<string, string>;

async function stateOf(absolute: string, name: string): Promise<string | undefined> {
  const info = await lstatOrUndefined(absolute).catch(messageOf);
  if (typeof info === "string") return `unreadable ${info}`;
  if (info === undefined) return undefined;
  const identity = `${info.dev}:${info.ino} mode ${info.mode?.toString(8)}`;
  if (info.isSymlink) return `link ${identity} -> ${await Deno.readLink(absolute)}`;
  if (info.isDirectory) return `folder ${identity}`;
  if (!info.isFile) return `special ${identity}`;
  const times = `size ${info.size} mtime ${info.mtime?.getTime()} ctime ${info.ctime?.getTime()}`;
  try {
    const bytes = await readBounded(absolute, {
      limit: PROTECTED_FILE_LIMIT,
      followSymlink: false,
      name,
    });
    if (bytes === undefined) return undefined;
    // Web Crypto: `node:crypto` would load Deno's Node layer.
    const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
    return `file ${identity} sha256 ${new Uint8Array(digest).toHex()}`;
  } catch (error) {
    if (error instanceof FileReadError && error.problem === "too-large") {
      return `large file ${identity} ${times}`;
    }
    return `unreadable file ${identity} ${times} (${
      error instanceof FileReadError ? error.problem : messageOf(error)
    })`;
  }
}

/** Adds `path` and, for a folder when `deep` (`agent-state/`), everything in it. */
async function addEntry(
  root: string,
  path: string,
  entries: Map<string, string>,
  deep: boolean,
): Promise<void> {
  const state = await stateOf(`${root}/${path}`, path);
  if (state === undefined) return;
  entries.set(path, state);
  if (!deep || !state.startsWith("folder ")) return;
  const children = await Array.fromAsync(Deno.readDir(`${root}/${path}`)).catch(messageOf);
  if (typeof children === "string") {
    entries.set(`${path}/`, `unlistable ${children}`);
    return;
  }
  for (const child of children) await addEntry(root, `${path}/${child.name}`, entries, true);
}

/** Takes the snapshot from `scan` (a walk made now); an unreadable entry matches only itself. */
async function snapshotProtected(scan: ProjectScan): Promise<ProtectedSnapshot> {
  const entries = new Map<string, string>();
  for (const entry of scan.entries) {
    if (entry.rule.scope !== "any-depth-name" && LEFT_OUT.has(entry.rule.name)) continue;
    await addEntry(scan.root, entry.path, entries, entry.rule.scope === "root-folder");
  }
  return entries;
}

/**
 * Walks the project at `root` (links resolved) again and compares its protected entries with `before`.
 * @throws {CodeCommitError} (`EXIT.safety`) naming what is new, removed or changed.
 */
async function checkProtectedAfterBuild(root: string, before: ProtectedSnapshot): Promise<void> {
  const after = await snapshotProtected(await scanProject(root));
  const changes = [...new Set([...before.keys(), ...after.keys()])].sort()
    .filter((path) => before.get(path) !== after.get(path))
    .map((path) => ({
      path,
      change: !before.has(path) ? "new" : !after.has(path) ? "removed" : "changed",
    }));
  if (changes.length === 0) return;
  const named = nameSome(changes.map(({ path, change }) => `${path} (${change})`), { limit: 5 });
  const newGit = changes.find(({ path, change }) => change === "new" && /(^|\/)\.git$/i.test(path));
  const git = newGit === undefined
    ? ""
    : `; remove ${newGit.path} before you run any git command in its folder (git would run ` +
      `what its configuration names)`;
  throw new CodeCommitError(
    `./build.sh changed protected entries of the project: ${named}${git}; if a tool ` +
      `your build runs made a new .gitignore (pytest's .pytest_cache/, say), add that folder to ` +
      `.gitignore; ${REVIEW}`,
    EXIT.safety,
  );
}

/** What {@link checkAfterBuild} compares with: the project just before a build. */
export interface BeforeBuild {
  readonly protected: ProtectedSnapshot;
  /** The root `.gitignore` if a regular file, to put back if the build is stopped. */
  readonly gitignore: GitignoreCopy;
}

const GITIGNORE = ".gitignore";

/** Takes what {@link checkAfterBuild} needs just before a build, from `scan` (a walk made now). */
export async function snapshotBeforeBuild(root: string, scan: ProjectScan): Promise<BeforeBuild> {
  return { protected: await snapshotProtected(scan), gitignore: await copyGitignore(root) };
}

async function copyGitignore(root: string): Promise<GitignoreCopy> {
  try {
    const info = await lstatOrUndefined(under(root, GITIGNORE));
    if (info === undefined || !info.isFile) return undefined;
    const bytes = await readBounded(under(root, GITIGNORE), {
      limit: READ_LIMITS.ignoreRules,
      followSymlink: false,
      name: GITIGNORE,
    });
    return bytes === undefined ? undefined : { bytes, mode: info.mode };
  } catch {
    return undefined;
  }
}

/**
 * Checks, after a build, `build.sh`, that `.gitignore` still protects `agent-config/`, and the
 * protected entries; on failure `.gitignore` is put back first, the message says how.
 * @throws {CodeCommitError} (`EXIT.safety`, or the failed check's class) naming what changed.
 */
export async function checkAfterBuild(
  root: string,
  buildScript: BuildScriptSnapshot,
  before: BeforeBuild,
): Promise<void> {
  try {
    await checkBuildScriptUnchanged(root, buildScript, "while ./build.sh ran");
    await checkAgentConfigIgnored(root).catch((error) => {
      throw new CodeCommitError(
        `.gitignore no longer protects the keys after ./build.sh ran: ${
          messageOf(error)
        }; ${REVIEW}`,
        EXIT.safety,
      );
    });
    await checkProtectedAfterBuild(await Deno.realPath(root), before.protected);
  } catch (error) {
    if (!(error instanceof CodeCommitError)) throw error;
    const gitignore = await restoreGitignore(root, before.gitignore);
    if (gitignore === undefined) throw error;
    throw new CodeCommitError(`${error.message}; ${gitignore}`, error.exitCode, { cause: error });
  }
}

const RESTORE_BY_HAND = "restore .gitignore before any git add (git add -A would commit " +
  "agent-config/, your API keys with it): git checkout -- .gitignore, or add the line " +
  "/agent-config";

/**
 * Puts `.gitignore` back (`copy`, atomically) when it changed and was a regular file then and is
 * one or nothing now; a clause for the stop message, or undefined when it is as it was.
 */
async function restoreGitignore(root: string, copy: GitignoreCopy): Promise<string | undefined> {
  const now = await lstatOrUndefined(under(root, GITIGNORE)).catch(messageOf);
  if (typeof now === "string") return `.gitignore cannot be looked at (${now}); ${RESTORE_BY_HAND}`;
  if (copy === undefined) {
    if (now !== undefined && now.isFile) {
      // Nothing to put back: the advice only when the keys are not protected now.
      const unprotected = await checkAgentConfigIgnored(root).then(() => undefined, messageOf);
      if (unprotected === undefined) return undefined;
      return `there is no copy of .gitignore from before the build to put back, and it does ` +
        `not protect the keys (${unprotected}); ${RESTORE_BY_HAND}`;
    }
    return `there is ${
      now === undefined ? "no .gitignore" : `.gitignore, ${describeEntry(now)},`
    } and none to put back from before the build; ${RESTORE_BY_HAND}`;
  }
  if (now !== undefined && !now.isFile) {
    return `the build left .gitignore ${
      describeEntry(now)
    }, which code-commit does not replace; ${RESTORE_BY_HAND}`;
  }
  if (now !== undefined && now.mode === copy.mode) {
    const current = await copyGitignore(root);
    if (current !== undefined && sameBytes(current.bytes, copy.bytes)) return undefined;
  }
  const mode = copy.mode === null ? undefined : copy.mode & 0o7777;
  const unwritten = await writeAtomically(denoFileSystem, root, GITIGNORE, copy.bytes, { mode })
    .then(() => undefined, messageOf);
  if (unwritten !== undefined) {
    return `.gitignore could not be put back (${unwritten}); ${RESTORE_BY_HAND}`;
  }
  const unprotected = await checkAgentConfigIgnored(root).then(() => undefined, messageOf);
  if (unprotected !== undefined) {
    return `.gitignore was put back as it was before the build, yet the keys are not ` +
      `protected: ${unprotected}; do that before any git add`;
  }
  return "code-commit put .gitignore back as it was before the build (what the build wrote " +
    "there is gone), so agent-config/ stays ignored";
}
