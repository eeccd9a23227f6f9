/**
 * Before a run asks a model anything, the journal's folder must take writes:
 * otherwise no reply could be applied and each call would be paid for nothing.
 *
 * @module
 */

import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import { under } from "../file_system/file_system.ts";

/**
 * Checks that the journal's folder under `root` (or `agent-config/` while it
 * is not made) takes writes, with a probe `.tmp` file the journal's tidying
 * removes should this process die in between.
 *
 * @throws {CodeCommitError} (exit 3) naming the folder and the system's reason.
 */
export async function checkJournalWritable(root: string): Promise<void> {
  const journal = under(root, "agent-config/journal");
  const folder = await Deno.lstat(journal).then(() => journal, () => under(root, "agent-config"));
  const probe = `${folder}/.probe-${crypto.randomUUID()}.tmp`;
  try {
    await Deno.writeFile(probe, new Uint8Array(), { createNew: true });
    await Deno.remove(probe);
  } catch (error) {
    // No agent-config/ at all: the set-up checks name what is missing.
    if (error instanceof Deno.errors.NotFound) return;
    throw new CodeCommitError(
      `agent-config/journal/ cannot be written (${messageOf(error)}): code-commit records ` +
        "every apply there before it changes a file, so no reply could be applied; make " +
        "agent-config/ writable (a read-only mount? a full disk?) and run code-commit again; " +
        "nothing was sent to the model",
      EXIT.setup,
      { cause: error },
    );
  }
}
