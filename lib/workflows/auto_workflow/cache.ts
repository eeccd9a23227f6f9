/**
 * The specification cache, `agent-state/specifications/<module>/<stage>`: a stage is done while its
 * copy is the current specification. Only real folders, so no link redirects a write.
 * @module
 */
import { applyOperations } from "../../apply/apply.ts";
import type { ApplyJournal } from "../../apply/journal.ts";
import { CodeCommitError, EXIT, messageOf } from "../../errors/errors.ts";
import { readBounded } from "../../file_system/bounded_read.ts";
import { denoFileSystem, under } from "../../file_system/file_system.ts";
import { lstatOrUndefined } from "../../file_system/lstat.ts";
import { checkRealFolder, parentFolder } from "../../file_system/real_folders.ts";
import { READ_LIMITS } from "../../file_system/read_limits.ts";
import { foldCase } from "../../guard/case_fold.ts";
import { ROOT_MODULE } from "./graph.ts";
import { STAGES } from "./stages.ts";

const CACHE_DIR = "agent-state/specifications";

function cachePath(modulePath: string, stage: string): string {
  return `${CACHE_DIR}/${modulePath === ROOT_MODULE ? "" : `${modulePath}/`}${stage}`;
}

/**
 * Each cache `file` (`outer`'s, for `stage`) that is a folder on the way to `inner`'s cache
 * (`src/a/implemented`, compared case-insensitively as some file systems do); `folder` is the
 * project folder to rename. Never throws.
 */
export function cacheCollisions(
  modulePaths: readonly string[],
): { outer: string; inner: string; stage: string; file: string; folder: string }[] {
  // Each folder (case-folded) on the way to a module's cache files → that module.
  const folders = new Map<string, string>();
  for (const path of modulePaths) {
    const segments = cachePath(path, STAGES[0].name).split("/");
    for (let depth = CACHE_DIR.split("/").length + 1; depth < segments.length; depth++) {
      const folder = foldCase(segments.slice(0, depth).join("/"));
      if (!folders.has(folder)) folders.set(folder, path);
    }
  }
  return modulePaths.flatMap((outer) =>
    STAGES.flatMap(({ name: stage }) => {
      const file = cachePath(outer, stage);
      const inner = folders.get(foldCase(file));
      if (inner === undefined) return [];
      const depth = file.split("/").length - CACHE_DIR.split("/").length;
      return [{ outer, inner, stage, file, folder: inner.split("/").slice(0, depth).join("/") }];
    })
  );
}

function refuse(path: string, symlink: boolean, want: "folder" | "file"): CodeCommitError {
  const what = symlink ? "a symbolic link" : `not a ${want}`;
  return new CodeCommitError(
    `${path} is ${what}: code-commit keeps its specification cache in real folders ` +
      `under ${CACHE_DIR}/ and follows no link there; move ${path} away, then run again`,
    EXIT.setup,
  );
}

/** The cache file of `stage` for a module, refused unless each folder on the way is real, the file regular. */
async function checkedCacheFile(
  root: string,
  modulePath: string,
  stage: string,
): Promise<{ file: string; exists: boolean }> {
  const file = cachePath(modulePath, stage);
  const check = await checkRealFolder(denoFileSystem, root, parentFolder(file));
  if (!check.ok && check.found !== "missing") {
    throw refuse(check.folder, check.found === "symlink", "folder");
  }
  const info = check.ok ? await lstatOrUndefined(under(root, file)) : undefined;
  if (info !== undefined && (info.isSymlink || !info.isFile)) {
    throw refuse(file, info.isSymlink, "file");
  }
  return { file, exists: info !== undefined };
}

/**
 * The cached specification of `stage` for a module, or `undefined` when it never passed.
 * @throws {CodeCommitError} when a folder on the way or the file is a link or of the wrong kind,
 * the file has several hard links (its text goes into prompts), or it cannot be read.
 */
export async function readCache(
  root: string,
  modulePath: string,
  stage: string,
): Promise<Uint8Array | undefined> {
  const { file, exists } = await checkedCacheFile(root, modulePath, stage);
  return exists ? await readSpecification(root, file) : undefined;
}

/** A specification's bytes, refused when a link, too large or hard-linked (its text goes into prompts). */
export function readSpecification(root: string, path: string): Promise<Uint8Array | undefined> {
  return readBounded(under(root, path), {
    limit: READ_LIMITS.specification,
    followSymlink: false,
    name: path,
    refuseHardLinks: true,
  });
}

/**
 * Records atomically that a module passed `stage` with `spec`; returns the file's path. Journaled
 * in `journal`, so `--undo` takes it back with the code the run changed.
 * @throws {CodeCommitError} when a folder on the way or the file is a link or of the wrong kind, or
 * the file cannot be written (the old one is kept).
 */
export async function writeCache(
  root: string,
  modulePath: string,
  stage: string,
  spec: Uint8Array,
  journal?: ApplyJournal,
): Promise<string> {
  const { file } = await checkedCacheFile(root, modulePath, stage);
  try {
    await applyOperations(root, [{ kind: "write", path: file, content: spec, mode: 0o644 }], {
      journal,
    });
  } catch (error) {
    throw new CodeCommitError(
      `cannot write the cached specification ${file}: ${messageOf(error)}`,
      EXIT.setup,
      { cause: error },
    );
  }
  return file;
}
