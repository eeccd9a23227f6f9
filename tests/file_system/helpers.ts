/**
 * Helpers for the file-system tests: real fifos, and a file system that
 * records its calls and fails on demand. Temporary folders come from
 * `tests/support/project.ts` (`withProject`).
 *
 * @module
 */
import { denoFileSystem, type FileSystem } from "../../lib/file_system/file_system.ts";

/** Makes a fifo (named pipe) at `path` with the real `mkfifo`. */
export async function mkfifo(path: string): Promise<void> {
  const result = await new Deno.Command("mkfifo", { args: [path] }).output();
  if (!result.success) throw new Error(`mkfifo ${path} failed`);
}

/** One call made through {@link recordingFs}. */
export interface FsCall {
  /** The method called. */
  readonly method: keyof FileSystem;
  /** Its (first) path argument. */
  readonly path: string;
}

/**
 * The real file system, recording every call in `calls`; a call for which
 * `fail` returns an error rejects with it instead of running.
 */
export function recordingFs(
  fail: (call: FsCall) => Error | undefined = () => undefined,
): { fs: FileSystem; calls: FsCall[] } {
  const calls: FsCall[] = [];
  const check = (method: keyof FileSystem, path: string) => {
    const call = { method, path };
    calls.push(call);
    const error = fail(call);
    if (error !== undefined) throw error;
  };
  const fs: FileSystem = {
    lstat: async (path) => (check("lstat", path), await denoFileSystem.lstat(path)),
    readFile: async (path) => (check("readFile", path), await denoFileSystem.readFile(path)),
    writeNewFile: async (path, data, mode, onCreated) => {
      check("writeNewFile", path);
      await denoFileSystem.writeNewFile(path, data, mode, onCreated);
    },
    rename: async (from, to) => (check("rename", to), await denoFileSystem.rename(from, to)),
    remove: async (path) => (check("remove", path), await denoFileSystem.remove(path)),
    mkdir: async (path) => (check("mkdir", path), await denoFileSystem.mkdir(path)),
    realPath: async (path) => (check("realPath", path), await denoFileSystem.realPath(path)),
  };
  return { fs, calls };
}
