/**
 * The names of the temporary files a rollback writes pre-images through.
 * A rollback (in the process whose apply failed, or at the next start's
 * recovery) may itself be killed between creating a temporary file and
 * renaming it; its names are drawn from the apply's run, number and path,
 * not at random, so the next recovery knows them and removes them first.
 *
 * @module
 */

import { parentFolder } from "../file_system/real_folders.ts";
import { temporaryName } from "../file_system/temporary_name.ts";
import { contentHash } from "./content_hash.ts";

const encoder = new TextEncoder();

/**
 * The temporary file (relative to the root) through which a rollback of
 * apply `n` of run `run` restores `path`: a sibling of `path`, named like
 * every temporary file of code-commit, the same in every process. Never
 * throws.
 */
export function rollbackTemporary(run: string, n: number, path: string): string {
  const folder = parentFolder(path);
  const name = path.slice(folder === "" ? 0 : folder.length + 1);
  const hex = contentHash(encoder.encode(`rollback\0${run}\0${n}\0${path}`));
  const temporary = temporaryName(name, hex);
  return folder === "" ? temporary : `${folder}/${temporary}`;
}
