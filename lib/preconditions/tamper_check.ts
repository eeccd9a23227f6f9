/**
 * The tamper check, contained or not. `build.sh` is looked at once, when
 * the run starts, and must be exactly that after every applied reply and
 * after every build: the same kind of entry, the same link target when it
 * is a link, the same permission bits and the same bytes. `.gitignore` must
 * still protect the keys after every build (the check made before the
 * first LLM call). A build runs code the model wrote; one that rewrote
 * `build.sh` (or swapped it for a link to a copy it can rewrite later)
 * would make every later build "pass", and one that emptied `.gitignore`
 * would get the keys committed by the user's next `git add -A`. The
 * sandbox makes both files read-only; this check is what protects a run
 * without it, and what catches a reply written where `build.sh` leads.
 *
 * When a build is stopped so, the root `.gitignore` is put back as it was
 * before the build (its bytes and mode are kept for that), when both then
 * and now it is a regular file (or now nothing): the user's next
 * `git add -A` must not commit `agent-config/`. When it cannot be put back
 * safely, the message says to restore it before any `git add`.
 *
 * @module
 */
import { denoFileSystem, under } from "../file_system/file_system.ts";
import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import { FileReadError, readBounded } from "../file_system/bounded_read.ts";
import { describeEntry, lstatOrUndefined } from "../file_system/lstat.ts";
import { READ_LIMITS } from "../file_system/read_limits.ts";
import { writeAtomically } from "../file_system/write_atomically.ts";
import type { ProjectScan } from "../sandbox/project_scan.ts";
import { checkAgentConfigIgnored } from "./preconditions.ts";
import {
  checkProtectedAfterBuild,
  type ProtectedSnapshot,
  snapshotProtected,
} from "./protected_entries.ts";

/** The build script, relative to the project root. */
const BUILD_FILE = "build.sh";

/**
 * `build.sh` as it was when the run started: missing, or what it is (a
 * regular file, or a link and what it leads to), its permission bits and
 * its bytes.
 */
export type BuildScriptSnapshot =
  | { readonly kind: "missing" }
  | {
    readonly kind: "file";
    /** Where the link `build.sh` points (as written), when it is one. */
    readonly linkTarget?: string;
    /** The permission bits of the file (through the link). */
    readonly mode: number | null;
    readonly bytes: Uint8Array;
  };

/** A line describing why `build.sh` could not be read, for the messages. */
function unreadable(error: unknown): string {
  return error instanceof FileReadError ? error.message : `${BUILD_FILE}: ${messageOf(error)}`;
}

/**
 * Looks at `build.sh` now, with the bounded read (a fifo or a link to a
 * device there cannot hang or swell the tool).
 *
 * @throws {CodeCommitError} when it exists but is not a regular file (nor a
 * link to one), is larger than 1 MiB, or cannot be read: a build script
 * that cannot be compared cannot be trusted after a build either.
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
    throw new CodeCommitError(
      `${unreadable(error)}; code-commit compares build.sh after every build and cannot here`,
      EXIT.setup,
    );
  }
  if (bytes === undefined) {
    // A dangling link: there is nothing to run, and nothing to compare but the link.
    return { kind: "file", linkTarget, mode: null, bytes: new Uint8Array() };
  }
  return { kind: "file", ...(linkTarget === undefined ? {} : { linkTarget }), mode, bytes };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** How `now` differs from `was`, in words, or undefined when it does not. */
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

/** What the user is told to do after a build tampered with a file. */
const REVIEW =
  "code-commit stopped before any further LLM call; review what the model's code did " +
  "(git status shows the files it made, git diff what it changed), restore the file, and " +
  "consider running with --sandbox on; code-commit --undo takes back what the run's replies " +
  "changed (not what the build itself wrote)";

/**
 * Checks that `build.sh` is what it was when the run started (`was`);
 * `when` says when it is checked (`while ./build.sh ran`, `after the reply
 * was applied`).
 *
 * @throws {CodeCommitError} (exit 5, `EXIT.safety`) naming build.sh and what changed.
 */
export async function checkBuildScriptUnchanged(
  root: string,
  was: BuildScriptSnapshot,
  when: string,
): Promise<void> {
  let now: BuildScriptSnapshot;
  try {
    now = await snapshotBuildScript(root);
  } catch (error) {
    throw new CodeCommitError(
      `${BUILD_FILE} changed ${when}: it cannot be read any more (${messageOf(error)}); restore ` +
        `it with git checkout -- ${BUILD_FILE}; ${REVIEW}`,
      EXIT.safety,
    );
  }
  const change = difference(was, now);
  if (change !== undefined) {
    const files = was.kind === "file" && was.linkTarget !== undefined
      ? `${BUILD_FILE} ${was.linkTarget}`
      : BUILD_FILE;
    throw new CodeCommitError(
      `${BUILD_FILE} changed ${when}: ${change} (restore it with git checkout -- ${files}); ` +
        REVIEW,
      EXIT.safety,
    );
  }
}

/** The root `.gitignore` before a build: a regular file's bytes and mode; undefined otherwise. */
type GitignoreCopy = { readonly bytes: Uint8Array; readonly mode: number | null } | undefined;

/** What {@link checkAfterBuild} compares with: the project just before a build. */
export interface BeforeBuild {
  /** The protected entries (see `snapshotProtected`). */
  readonly protected: ProtectedSnapshot;
  /** The root `.gitignore`, to put back if the build is stopped. */
  readonly gitignore: GitignoreCopy;
}

/** The root `.gitignore`, relative to the project root. */
const GITIGNORE = ".gitignore";

/**
 * Takes what {@link checkAfterBuild} needs, just before a build: the
 * protected entries from `scan` (a walk made now), and the root
 * `.gitignore`'s bytes and mode when it is a regular file (bounded read,
 * no link followed). Never throws for a `.gitignore` it cannot copy: there
 * is then nothing to put back.
 */
export async function snapshotBeforeBuild(root: string, scan: ProjectScan): Promise<BeforeBuild> {
  return { protected: await snapshotProtected(scan), gitignore: await copyGitignore(root) };
}

/** The root `.gitignore` if it is a regular file that can be read; undefined otherwise. */
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
 * Checks, after a build, that `build.sh` is what it was when the run
 * started, that `.gitignore` still protects `agent-config/`, and that the
 * protected entries are what they were before the build (`before`). When
 * any of it fails, the root `.gitignore` is put back first (see
 * {@link restoreGitignore}), and the message says what became of it.
 *
 * @throws {CodeCommitError} (exit 5, `EXIT.safety`, or the class of the check that failed) naming the file that changed.
 */
export async function checkAfterBuild(
  root: string,
  buildScript: BuildScriptSnapshot,
  before: BeforeBuild,
): Promise<void> {
  let stop: CodeCommitError | undefined;
  try {
    await checkBuildScriptUnchanged(root, buildScript, "while ./build.sh ran");
    try {
      await checkAgentConfigIgnored(root);
    } catch (error) {
      throw new CodeCommitError(
        `.gitignore no longer protects the keys after ./build.sh ran: ${
          messageOf(error)
        }; ${REVIEW}`,
        EXIT.safety,
      );
    }
    await checkProtectedAfterBuild(await Deno.realPath(root), before.protected, REVIEW);
  } catch (error) {
    if (!(error instanceof CodeCommitError)) throw error;
    stop = error;
  }
  if (stop === undefined) return;
  const gitignore = await restoreGitignore(root, before.gitignore);
  if (gitignore === undefined) throw stop;
  throw new CodeCommitError(`${stop.message}; ${gitignore}`, stop.exitCode, { cause: stop });
}

/** What the user must do when `.gitignore` cannot be put back. */
const RESTORE_BY_HAND = "restore .gitignore before any git add (git add -A would commit " +
  "agent-config/, your API keys with it): git checkout -- .gitignore, or add the line " +
  "/agent-config";

/**
 * Puts the root `.gitignore` back as it was before the build (`copy`), with
 * the one atomic write (never through a link), when it changed and it is
 * safe: it was a regular file then, and now it is a regular file or
 * nothing. Returns a clause for the stop message: undefined when
 * `.gitignore` is as it was, else what was done or what the user must do.
 * Never throws.
 */
async function restoreGitignore(root: string, copy: GitignoreCopy): Promise<string | undefined> {
  let now: Deno.FileInfo | undefined;
  try {
    now = await lstatOrUndefined(under(root, GITIGNORE));
  } catch (error) {
    return `.gitignore cannot be looked at (${messageOf(error)}); ${RESTORE_BY_HAND}`;
  }
  if (copy === undefined) {
    if (now !== undefined && now.isFile) {
      // Nothing to put back: the advice only when the keys are not protected now.
      try {
        await checkAgentConfigIgnored(root);
        return undefined;
      } catch (error) {
        return `there is no copy of .gitignore from before the build to put back, and it does ` +
          `not protect the keys (${messageOf(error)}); ${RESTORE_BY_HAND}`;
      }
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
  try {
    await writeAtomically(denoFileSystem, root, GITIGNORE, copy.bytes, {
      ...(copy.mode === null ? {} : { mode: copy.mode & 0o7777 }),
    });
  } catch (error) {
    return `.gitignore could not be put back (${messageOf(error)}); ${RESTORE_BY_HAND}`;
  }
  try {
    await checkAgentConfigIgnored(root);
  } catch (error) {
    return `.gitignore was put back as it was before the build, yet the keys are not ` +
      `protected: ${messageOf(error)}; do that before any git add`;
  }
  return "code-commit put .gitignore back as it was before the build (what the build wrote " +
    "there is gone), so agent-config/ stays ignored";
}
