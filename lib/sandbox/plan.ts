/**
 * What a contained build may do in the project, found on disk right before
 * each build from the protected-path table (`lib/guard/protected_paths.ts`,
 * its `build` column): the project read-write, the `hidden` entries
 * (`agent-config/`) replaced by an empty read-only folder, the `read-only`
 * ones (`.git`, `build.sh`, every `.gitignore`, ...) read-only. The plan is
 * plain data; `bubblewrap.ts` and `seatbelt.ts` turn it into a sandbox.
 *
 * @module
 */
import { isAbsolute, join, relative, sep } from "node:path";
import { foldCase } from "../guard/case_fold.ts";
import { IgnoreRules } from "../guard/ignore_rules.ts";
import { PROTECTED_PATHS, type ProtectedPath } from "../guard/protected_paths.ts";
import { walkTree } from "../project_files/walk.ts";

/** A path to hide: a folder gets an empty read-only folder in its place, a file an empty file. */
export interface HiddenPath {
  /** The absolute path, symbolic links resolved. */
  readonly path: string;
  /** Whether it is a folder. */
  readonly isDirectory: boolean;
}

/** What a contained build may do, as absolute paths with symbolic links resolved. */
export interface SandboxPlan {
  /** The project root: readable and writable. */
  readonly root: string;
  /** Paths inside the project that stay readable but not writable, sorted (parents first). */
  readonly readOnly: readonly string[];
  /**
   * Paths nothing can be read from: `agent-config/` and, when a link inside
   * it leads elsewhere, where the link leads (so a key file that is a link
   * to `~/.keys/gemini` is hidden too). Sorted, parents first.
   */
  readonly hidden: readonly HiddenPath[];
}

/** The table's entries a build may not write, and those it may not even read. */
const READ_ONLY = PROTECTED_PATHS.filter((entry) => entry.build === "read-only");
const HIDDEN = PROTECTED_PATHS.filter((entry) => entry.build === "hidden");

/** Folded any-depth names a build may not write (`.gitignore`, `UserSpecification.md`, `.git`). */
const READ_ONLY_ANY_DEPTH = new Set(
  READ_ONLY.filter((entry) => entry.scope === "any-depth-name").map((entry) =>
    foldCase(entry.name)
  ),
);

/** Whether `path` is `parent` or inside it (both absolute, resolved). */
export function isInside(path: string, parent: string): boolean {
  const rest = relative(parent, path);
  return rest === "" || (rest !== ".." && !rest.startsWith(`..${sep}`) && !isAbsolute(rest));
}

/** The resolved path of `path`, or `undefined` when it does not resolve (a dangling link). */
async function resolved(path: string): Promise<string | undefined> {
  try {
    return await Deno.realPath(path);
  } catch {
    return undefined;
  }
}

/** `lstat`, or `undefined` when nothing is there or it cannot be looked at. */
async function lstatOrNothing(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.lstat(path);
  } catch {
    return undefined;
  }
}

/** The names of `entries` that exist directly in `folder` (absolute), as absolute paths. */
async function existing(folder: string, entries: readonly ProtectedPath[]): Promise<string[]> {
  const found: string[] = [];
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (await lstatOrNothing(path) !== undefined) found.push(path);
  }
  return found;
}

/**
 * Every link under `folder` (absolute, a real folder), followed: where each
 * leads, when that is outside `inside`. Never throws; what cannot be read is
 * left out (the build cannot read it either through the hidden folder).
 */
async function linkTargets(folder: string, inside: string, depth = 0): Promise<HiddenPath[]> {
  const targets: HiddenPath[] = [];
  if (depth > 32) return targets;
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(folder));
  } catch {
    return targets;
  }
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory) {
      targets.push(...await linkTargets(path, inside, depth + 1));
    } else if (entry.isSymlink) {
      const target = await resolved(path);
      if (target === undefined || isInside(target, inside)) continue;
      const info = await lstatOrNothing(target);
      if (info === undefined) continue;
      targets.push({ path: target, isDirectory: info.isDirectory });
      if (info.isDirectory) targets.push(...await linkTargets(target, target, depth + 1));
    }
  }
  return targets;
}

/** Sorts absolute paths so that a parent comes before what is inside it, and drops repeats. */
function parentsFirst(paths: Iterable<string>): string[] {
  return [...new Set(paths)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Finds what a contained build of the project at `root` may do: the
 * read-only and hidden entries of the protected-path table that exist now.
 * Any-depth names (`.gitignore`, `UserSpecification.md`, `.git`) are looked
 * for in the root and in every folder git does not ignore (git reads no
 * `.gitignore` in an ignored folder), with the project walk the context
 * builder uses; names are compared as the table compares them (case
 * folded). A read-only entry that is a link is followed: what it leads to
 * is made read-only when it is inside the project (outside, everything is
 * read-only already).
 *
 * @throws {CodeCommitError} when an ignore file cannot be read.
 * @throws {Deno.errors.NotFound} and other file system errors when `root` cannot be read.
 */
export async function planSandbox(root: string): Promise<SandboxPlan> {
  const realRoot = await Deno.realPath(root);
  const candidates = await existing(realRoot, READ_ONLY);
  const rules = await IgnoreRules.load(realRoot);
  const walk = await walkTree(realRoot, "", rules);
  for (const folder of walk.folders) {
    const absolute = folder.path === "" ? realRoot : join(realRoot, folder.path);
    for (const file of [...folder.files, ...folder.folders]) {
      const name = file.slice(file.lastIndexOf("/") + 1);
      if (READ_ONLY_ANY_DEPTH.has(foldCase(name))) candidates.push(join(realRoot, file));
    }
    // The walk never lists `.git` (no prompt may read it): look for it directly.
    if (folder.path !== "") {
      candidates.push(
        ...await existing(absolute, READ_ONLY.filter((entry) => entry.scope === "any-depth-name")),
      );
    }
  }
  const readOnly: string[] = [];
  for (const candidate of candidates) {
    const target = await resolved(candidate);
    if (target !== undefined && isInside(target, realRoot) && target !== realRoot) {
      readOnly.push(target);
    }
  }

  const hidden = new Map<string, HiddenPath>();
  for (const path of await existing(realRoot, HIDDEN)) {
    const target = await resolved(path);
    if (target === undefined) continue;
    const info = await lstatOrNothing(target);
    if (info === undefined) continue;
    hidden.set(target, { path: target, isDirectory: info.isDirectory });
    if (info.isDirectory) {
      for (const linked of await linkTargets(target, target)) hidden.set(linked.path, linked);
    }
  }

  return {
    root: realRoot,
    readOnly: parentsFirst(readOnly),
    hidden: parentsFirst(hidden.keys()).map((path) => hidden.get(path)!),
  };
}
