/**
 * The staging of an apply, once the journal holds its plan: the planned
 * folders are made, from the top, then every file is written to a temporary
 * sibling, created exclusively, several at a time, each checked right after
 * it is created, before a byte is written to it.
 *
 * @module
 */

import { type FileIdentity, under } from "../file_system/file_system.ts";
import { parentFolder } from "../file_system/real_folders.ts";
import { FileStepError } from "../file_system/file_step_error.ts";
import { writeTemporary } from "../file_system/write_atomically.ts";
import { countLines } from "../text/diff.ts";
import { type ApplyRun, EncodeBuffer, type PlannedChange, sameFile } from "./apply_state.ts";

/** Makes the planned folders from the top, each checked right after it is made. */
export async function makeFolders(run: ApplyRun, changes: readonly PlannedChange[]): Promise<void> {
  for (const folder of run.toCreate) {
    run.culprit = changes.find((change) =>
      change.folder === folder || change.folder.startsWith(`${folder}/`)
    );
    await run.checkFolder(parentFolder(folder));
    try {
      await run.fs.mkdir(under(run.root, folder));
      run.created.push(folder);
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) {
        throw new FileStepError(`creating the folder "${folder}"`, error);
      }
      // Another process made it meanwhile: checked below, never removed.
    }
    const info = await run.lstat(folder);
    if (info === null || info.isSymlink || !info.isDirectory) {
      if (run.created.at(-1) === folder) run.strays.add(folder);
      throw await run.swapError(parentFolder(folder), "was swapped for another folder");
    }
    run.folders.set(folder, { kind: "real", dev: info.dev, ino: info.ino });
    try {
      await run.checkFolder(folder);
    } catch (error) {
      if (run.created.at(-1) === folder) run.strays.add(folder);
      throw error;
    }
  }
}

/**
 * Writes every temporary file, at most `parallelism` at once; on the first
 * failure no more are started, and it is thrown once those in flight finish.
 */
export async function writeTemporaries(
  run: ApplyRun,
  writes: readonly PlannedChange[],
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    // A buffer per worker, reused: a 20 MB reply is not 20 MB of buffers the allocator keeps.
    const buffer = new EncodeBuffer();
    while (failure === undefined && next < writes.length) {
      const change = writes[next++];
      try {
        await writeOneTemporary(run, change, buffer);
      } catch (error) {
        if (failure === undefined) {
          failure = { error };
          run.culprit = change;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(run.parallelism, writes.length) }, worker));
  if (failure !== undefined) throw failure.error;
}

/** Writes one change's temporary file (its text encoded into `buffer`). */
async function writeOneTemporary(
  run: ApplyRun,
  change: PlannedChange,
  buffer: EncodeBuffer,
): Promise<void> {
  const { content } = change.operation as { content: string | Uint8Array };
  const data = buffer.bytes(content);
  const name = change.temporary!.slice(change.folder === "" ? 0 : change.folder.length + 1);
  try {
    await writeTemporary(run.fs, run.root, change.operation.path, data, {
      name,
      mode: change.mode,
      temporaries: run.temporaries,
      onCreated: (identity) => checkCreated(run, change, identity),
    });
  } catch (error) {
    throw await run.explain(change.folder, error);
  }
  const created = change.created?.mode;
  const mode = change.mode ?? (typeof created === "number" ? created & 0o7777 : null);
  change.after = { mode, size: data.length, hash: change.hash!, lines: countLines(data) };
}

/**
 * Checks a temporary file right after it was created: Deno could `fstat` it
 * (so it is inside the folders it may read), and the file at its name is the
 * one made, with its folder the one checked right before and after that
 * look. Not a proof without `openat`; the cleanup does not rely on it (it
 * removes every file made by its exact name, wherever it is).
 *
 * @throws {SwapError} otherwise.
 */
async function checkCreated(
  run: ApplyRun,
  change: PlannedChange,
  identity: FileIdentity | undefined,
): Promise<void> {
  const temporary = change.temporary!;
  if (identity === undefined) {
    throw await run.swapError(change.folder, "was swapped for a symbolic link");
  }
  run.identities.set(temporary, identity);
  change.created = identity;
  await run.checkFolder(change.folder);
  const info = await run.lstat(temporary);
  if (info === null || !info.isFile || !sameFile(info, identity)) {
    throw await run.swapError(change.folder, "was swapped for another folder");
  }
  await run.checkFolder(change.folder);
}
