/**
 * `agent-config/last-run.json`: the `--json` object of every run that ends holding the project
 * lock, whether or not `--json` was given. In `agent-config/`: git ignores it, builds never see it.
 *
 * @module
 */
import { messageOf } from "../errors/errors.ts";
import { denoFileSystem } from "../file_system/file_system.ts";
import { writeAtomically } from "../file_system/write_atomically.ts";
import { AGENT_CONFIG_DIR } from "../guard/protected_paths.ts";
import { LOCK_FILE } from "../project_lock/project_lock.ts";

/** The last run's file, relative to the project root. */
export const LAST_RUN_FILE = `${AGENT_CONFIG_DIR}/last-run.json`;

/**
 * Writes `line` (the `--json` object, keys masked) to {@link LAST_RUN_FILE} in `root` atomically
 * (a rename replaces a planted link, never follows it), while the project lock is held. Nothing is
 * written when `agent-config` is a link, or when taking the lock made it (`madeFolder`) and it
 * holds only the lock: releasing the lock removes that folder. Never throws: it warns instead.
 */
export async function keepLastRun(
  root: string,
  line: string,
  madeFolder: boolean,
  warn: (line: string) => void,
): Promise<void> {
  try {
    // A link (to the user's folder of keys): code-commit never writes through it.
    if ((await Deno.lstat(`${root}/${AGENT_CONFIG_DIR}`)).isSymlink) return;
    if (madeFolder) {
      const entries = await Array.fromAsync(Deno.readDir(`${root}/${AGENT_CONFIG_DIR}`));
      if (entries.every((entry) => `${AGENT_CONFIG_DIR}/${entry.name}` === LOCK_FILE)) return;
    }
    const data = new TextEncoder().encode(`${line}\n`);
    await writeAtomically(denoFileSystem, root, LAST_RUN_FILE, data, { mode: 0o600 });
  } catch (error) {
    warn(`cannot write ${LAST_RUN_FILE}: ${messageOf(error)}`);
  }
}
