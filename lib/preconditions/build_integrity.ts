/**
 * The tamper check after every build, contained or not: `build.sh` must be
 * byte for byte what it was before the build, and `.gitignore` must still
 * protect the keys (the check made before the first LLM call). A build runs
 * code the model wrote; one that rewrote `build.sh` would make every later
 * build "pass", and one that emptied `.gitignore` would get the keys
 * committed by the user's next `git add -A`. The sandbox makes both files
 * read-only; this check is what protects a run without it.
 *
 * @module
 */
import { join } from "node:path";
import { CodeCommitError, messageOf } from "../errors/errors.ts";
import { readBounded } from "../file_system/bounded_read.ts";
import { READ_LIMITS } from "../file_system/read_limits.ts";
import { checkAgentConfigIgnored } from "./preconditions.ts";

/** The build script, relative to the project root. */
const BUILD_FILE = "build.sh";

/** `build.sh` as it was before a build: its bytes, or undefined when it could not be read. */
export interface BuildScriptSnapshot {
  readonly bytes: Uint8Array | undefined;
}

/**
 * Reads `build.sh` as it is now, with the bounded read (a build that put a
 * fifo or a link to a device there cannot hang or swell the tool). Never
 * throws: an unreadable script is a snapshot too.
 */
export async function snapshotBuildScript(root: string): Promise<BuildScriptSnapshot> {
  try {
    return {
      bytes: await readBounded(join(root, BUILD_FILE), {
        limit: READ_LIMITS.buildScript,
        followSymlink: true,
        name: BUILD_FILE,
      }),
    };
  } catch {
    return { bytes: undefined };
  }
}

function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** What the user is told to do after a build tampered with a file. */
const REVIEW =
  "code-commit stopped before any further LLM call; review what the model's code does " +
  "(git diff), restore the file, and consider running with --sandbox on";

/**
 * Checks, after a build, that `build.sh` is byte for byte `before` and that
 * `.gitignore` still protects `agent-config/`.
 *
 * @throws {CodeCommitError} (exit 1) naming the file that changed.
 */
export async function checkAfterBuild(root: string, before: BuildScriptSnapshot): Promise<void> {
  const after = await snapshotBuildScript(root);
  if (!sameBytes(before.bytes, after.bytes)) {
    const what = after.bytes === undefined ? "is gone or unreadable" : "is not what it was";
    throw new CodeCommitError(
      `${BUILD_FILE} changed while ./build.sh ran: it ${what} (restore it with git checkout -- ` +
        `${BUILD_FILE}); ${REVIEW}`,
    );
  }
  try {
    await checkAgentConfigIgnored(root);
  } catch (error) {
    throw new CodeCommitError(
      `.gitignore no longer protects the keys after ./build.sh ran: ${messageOf(error)}; ${REVIEW}`,
    );
  }
}
