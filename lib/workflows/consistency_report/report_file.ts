/**
 * Writes the consistency report to `agent-config/consistency-report.txt`, atomically and never
 * through a symbolic link.
 * @module
 */
import { CodeCommitError, EXIT, messageOf } from "../../errors/errors.ts";
import { denoFileSystem, under } from "../../file_system/file_system.ts";
import { describeEntry, lstatOrUndefined } from "../../file_system/lstat.ts";
import { checkRealFolder } from "../../file_system/real_folders.ts";
import { writeAtomically } from "../../file_system/write_atomically.ts";
import { AGENT_CONFIG_DIR, CONSISTENCY_REPORT_FILE } from "../../preconditions/preconditions.ts";

/** The report's path, relative to the project root. */
export const REPORT_FILE = CONSISTENCY_REPORT_FILE;

/**
 * Checks that `agent-config` is a real folder and the report absent or a regular file.
 * @throws {CodeCommitError} naming the path and what to do when it is not.
 */
export async function checkReportDestination(root: string): Promise<void> {
  const folder = await checkRealFolder(denoFileSystem, root, AGENT_CONFIG_DIR);
  if (!folder.ok) {
    throw new CodeCommitError(
      folder.found === "missing"
        ? `${AGENT_CONFIG_DIR}/ not found: the consistency report is written to ${REPORT_FILE}; create the folder`
        : folder.found === "symlink"
        ? `${AGENT_CONFIG_DIR} is a symbolic link; the consistency report is written only into a real ` +
          `${AGENT_CONFIG_DIR}/ folder: replace the link with a folder`
        : `${AGENT_CONFIG_DIR} is not a folder: it must be the folder of your keys`,
      EXIT.setup,
    );
  }
  const file = await lstatOrUndefined(under(root, REPORT_FILE));
  if (file === undefined || file.isFile) return;
  throw new CodeCommitError(
    `${REPORT_FILE} is ${
      describeEntry(file)
    }; code-commit writes the report only as a regular file: remove it`,
    EXIT.setup,
  );
}

/**
 * Writes `text` to the report atomically (a reader sees the old or the new one; a failed write
 * keeps the old), checking the destination right before.
 * @throws {CodeCommitError} naming the report when it cannot be written safely.
 */
export async function writeReport(root: string, text: string): Promise<void> {
  await checkReportDestination(root);
  try {
    await writeAtomically(denoFileSystem, root, REPORT_FILE, new TextEncoder().encode(text));
  } catch (error) {
    throw new CodeCommitError(`cannot write ${REPORT_FILE}: ${messageOf(error)}`, EXIT.setup, {
      cause: error,
    });
  }
}
