/**
 * Before a run that applies a reply asks a model anything: the apply
 * journal's folder, `agent-config/journal/`, must take writes. Every apply
 * is recorded there before it writes a byte; where it cannot be, no reply
 * can ever be applied, and each call to the model would be paid for
 * nothing.
 *
 * @module
 */

import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import { under } from "../file_system/file_system.ts";

/**
 * Checks that the journal's folder under `root` takes writes: creates and
 * removes a probe file in `agent-config/journal/`, or in `agent-config/`
 * while the journal's folder is not made yet (nothing is made here; a
 * probe left by a process that died in between is a `.tmp` file the
 * journal's tidying removes).
 *
 * @throws {CodeCommitError} (a set-up error) naming the folder and the
 * system's reason when it cannot (a read-only mount, a full disk, no
 * permission).
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
