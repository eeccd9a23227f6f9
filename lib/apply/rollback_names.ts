/**
 * The temporary names a rollback writes pre-images through: drawn from the
 * apply's run, number and path, so that the next recovery knows them and
 * removes them first should the rollback be killed before its rename.
 *
 * @module
 */

import { parentFolder } from "../file_system/real_folders.ts";
import { temporaryName } from "../file_system/temporary_name.ts";
import { contentHash } from "./content_hash.ts";

const encoder = new TextEncoder();

/** The temporary sibling through which a rollback of apply `n` of `run` restores `path`. Never throws. */
export function rollbackTemporary(run: string, n: number, path: string): string {
  const folder = parentFolder(path);
  const name = path.slice(folder === "" ? 0 : folder.length + 1);
  const hex = contentHash(encoder.encode(`rollback\0${run}\0${n}\0${path}`));
  const temporary = temporaryName(name, hex);
  return folder === "" ? temporary : `${folder}/${temporary}`;
}
