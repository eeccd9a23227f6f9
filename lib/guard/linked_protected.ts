/**
 * Where protected root entries that are links lead (`build.sh` → `ci/build.sh`: writing that
 * rewrites the build), and `.git` files: every hop inside the project, and the real end; a target
 * not there yet counts (a reply could create it). Nested `.gitignore` and `UserSpecification.md`
 * links are not looked for: a link means nothing there (git 2.32 and later skips a linked
 * `.gitignore`; a specification must be a regular file).
 *
 * @module
 */

import { under } from "../file_system/file_system.ts";
import { folderOf, linkTarget, relativeUnder } from "../file_system/paths.ts";
import { foldCase } from "./case_fold.ts";
import { EntryKinds } from "./entry_kinds.ts";
import { type GitData, gitdirPlacesInside, realFolders, realPath } from "./gitdir_file.ts";
import { PROTECTED_PATHS, type ProtectedPath } from "./protected_paths.ts";

/**
 * A path inside the project (relative) that the protected entry `entry` leads to, by a symbolic
 * link or a `.git` file's `gitdir:` line, with the entry's rule.
 */
export interface LinkedTarget {
  readonly path: string;
  readonly entry: string;
  readonly rule: ProtectedPath;
  readonly how: "link" | "gitdir";
}

const GIT_RULE = PROTECTED_PATHS.find((entry) => entry.name === ".git")!;

/** More hops than this is a loop (the kernel gives up at 40 too). */
const MAX_HOPS = 40;

/**
 * Every path inside the project at `root` that a protected root entry leads to, by a link or a
 * root `.git` file, the root entries looked at through `entries`. Synchronous: a dozen `lstat`s.
 * Never throws: what cannot be inspected leads nowhere a reply could write.
 */
export function linkedProtectedTargets(
  root: string,
  entries: EntryKinds = new EntryKinds(root),
): LinkedTarget[] {
  const realRoot = realPath(root);
  if (realRoot === undefined) return [];
  const kind = (name: string) => {
    try {
      return entries.kind(name);
    } catch {
      return "missing";
    }
  };
  const linked = PROTECTED_PATHS.flatMap((rule) =>
    kind(rule.name) === "symlink"
      ? targetsOf(realRoot, rule.name).map((path): LinkedTarget => ({
        path,
        entry: rule.name,
        rule,
        how: "link",
      }))
      : []
  );
  // The root `.git`, when it is a `gitdir:` file.
  const places = kind(".git") === "file"
    ? gitdirPlacesInside(realRoot, under(realRoot, ".git"))
    : [];
  return [...linked, ...gitDataTargets({ files: [{ file: ".git", places }], folded: new Set() })];
}

/**
 * The places the `.git` files of `data` name as git's data: refused to read as well as write.
 * Without the root `.git` when `nested` ({@link linkedProtectedTargets} holds it). Never throws.
 */
export function gitDataTargets(data: GitData, nested = false): LinkedTarget[] {
  const files = nested ? data.files.filter((found) => found.file.includes("/")) : data.files;
  return files.flatMap(({ file, places }) =>
    places.map((path): LinkedTarget => ({ path, entry: file, rule: GIT_RULE, how: "gitdir" }))
  );
}

/** The target among `targets` that `path` is or lies under, case-folded; or undefined. */
export function linkedTargetOf(
  targets: readonly LinkedTarget[],
  path: string,
): LinkedTarget | undefined {
  const folded = foldCase(path);
  return targets.find((target) => {
    const place = foldCase(target.path);
    return folded === place || folded.startsWith(`${place}/`);
  });
}

/** The places inside `realRoot` the entry `name` of the root leads to, if it is a link. */
function targetsOf(realRoot: string, name: string): string[] {
  const places = new Set<string>();
  let current = under(realRoot, name);
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    let link: string;
    try {
      link = Deno.readLinkSync(current);
    } catch {
      break; // missing, no link, or outside what may be read: nothing more inside the project
    }
    const next = realFolders(linkTarget(folderOf(current), link));
    const inside = next === undefined ? undefined : relativeUnder(realRoot, next);
    if (next === undefined || inside === undefined) break;
    places.add(inside);
    current = next;
  }
  if (places.size > 0) {
    // Where the whole chain really ends, when it ends inside the project (a dangling one: nowhere).
    const end = realPath(under(realRoot, name));
    const inside = end === undefined ? undefined : relativeUnder(realRoot, end);
    if (inside !== undefined) places.add(inside);
  }
  return [...places];
}
