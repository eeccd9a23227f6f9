/**
 * `agent-config/last-run.json`: the object `--json` prints (see `json_result.ts`), kept for every
 * run that ends holding the project lock, whether or not `--json` was given, so that how the last
 * run ended can be read afterwards. It lies in `agent-config/`: git ignores it and builds never see
 * it.
 *
 * @module
 */
import { messageOf } from "../errors/errors.ts";
import { denoFileSystem } from "../file_system/file_system.ts";
import { writeAtomically } from "../file_system/write_atomically.ts";
import { LOCK_FILE, LOCK_FOLDER } from "../project_lock/project_lock.ts";

/** The file, relative to the project root. */
export const LAST_RUN_FILE = `${LOCK_FOLDER}/last-run.json`;

/**
 * Writes `line` (the run's `--json` object, keys masked already) to {@link LAST_RUN_FILE} in
 * `root`, atomically: a temporary sibling, then a rename, which replaces whatever has the name (a
 * link planted there is replaced, never followed). When `agent-config` is a link to a folder of the
 * user's, nothing is written: never through a link. Call it while the project lock is held: only
 * the run holding the project writes the file. When taking the lock made `agent-config/`
 * (`madeFolder`) and nothing but the lock is in it, nothing is written: releasing the lock removes
 * the folder, and a run leaves no folder it made for its lock alone.
 *
 * Never throws: a failure is one warning (through `warn`) naming the file and the reason; it never
 * changes how the run ends.
 */
export async function keepLastRun(
  root: string,
  line: string,
  madeFolder: boolean,
  warn: (line: string) => void,
): Promise<void> {
  try {
    // A link (to the user's folder of keys): code-commit never writes through it.
    if ((await Deno.lstat(`${root}/${LOCK_FOLDER}`)).isSymlink) return;
    if (madeFolder) {
      const entries = await Array.fromAsync(Deno.readDir(`${root}/${LOCK_FOLDER}`));
      if (entries.every((entry) => `${LOCK_FOLDER}/${entry.name}` === LOCK_FILE)) return;
    }
    const data = new TextEncoder().encode(`${line}\n`);
    await writeAtomically(denoFileSystem, root, LAST_RUN_FILE, data, { mode: 0o600 });
  } catch (error) {
    warn(`cannot write ${LAST_RUN_FILE}: ${messageOf(error)}`);
  }
}
