/**
 * Protected entries that are symbolic links: `build.sh` kept as a link to
 * `ci/build.sh`, `.gitignore` to `config/gitignore`, `agent-config` to
 * `config/agent`, `.git` to `.repo`. The path guard refuses the protected
 * names themselves, and any path through a link, but the place a link leads
 * to has a name of its own: a reply writing `ci/build.sh` rewrites the build
 * that `./build.sh` runs. This module finds those places, once per guard
 * run, so the guard refuses them as well, naming the entry they stand
 * behind.
 *
 * Every protected name of the table is looked at in the project root (the
 * root files, the root folders, and `.gitignore`, `UserSpecification.md` and
 * `.git` there). Nested `.gitignore` and `UserSpecification.md` links are
 * not looked for: finding them would take a walk of the whole project per
 * reply, and neither has a protected meaning through a link (git ≥ 2.32
 * does not read a `.gitignore` that is a link; a module's specification
 * must be a regular file).
 *
 * Each hop of a chain (`build.sh` → `tools/run.sh` → `../ci/build.sh`) that
 * lies inside the project is a place, as is the real place the last hop
 * names once the folders on its way are resolved (`ci` → `tools` makes
 * `ci/build.sh` really `tools/build.sh`). A target that does not exist yet
 * counts too: a reply could create it. A target outside the project is
 * nothing to protect here: no reply can write there.
 *
 * A root `.git` that is a file (`gitdir: .repo`) leads where it names, as a
 * link would (`gitdir_file.ts`): `.repo/` is git's data, its hooks run at
 * the user's next `git commit`; so is the common folder a worktree's
 * gitdir names. So does a `.git` file in any folder git reads (`sub/.git`
 * naming `../.subrepo`): those are found by `findGitFiles`, once per set of
 * ignore rules, and turned into targets by {@link gitDataTargets}.
 *
 * @module
 */

import { under } from "../file_system/file_system.ts";
import { folderOf, linkTarget, relativeUnder } from "../file_system/paths.ts";
import { foldCase } from "./case_fold.ts";
import { EntryKinds } from "./entry_kinds.ts";
import { type GitData, gitdirPlacesInside, realFolders } from "./gitdir_file.ts";
import { PROTECTED_PATHS, type ProtectedPath } from "./protected_paths.ts";

/** A path inside the project that a protected entry, a symbolic link, leads to. */
export interface LinkedTarget {
  /** The path it leads to, relative to the project root, `/`-separated. */
  readonly path: string;
  /** The protected entry that is the link, relative to the project root (`build.sh`). */
  readonly entry: string;
  /** The entry's rule in the protected-path table. */
  readonly rule: ProtectedPath;
  /** How the entry leads there: a symbolic link, or a `.git` file's `gitdir:` line. */
  readonly how: "link" | "gitdir";
}

/** More hops than this is a loop (the kernel gives up at 40 too). */
const MAX_HOPS = 40;

/**
 * Every path inside the project at `root` that a protected root entry,
 * being a symbolic link, leads to (see the module doc), each once per
 * entry. Synchronous: a dozen `lstat`s, where a thread hop each would cost
 * more than the calls. The
 * root entries are looked at through `entries` (the guard's, for the same
 * root: shared with its other checks, and a small root is listed once
 * rather than each missing name looked at). Never throws: what cannot be
 * inspected or resolved leads nowhere a reply could write.
 */
export function linkedProtectedTargets(
  root: string,
  entries: EntryKinds = new EntryKinds(root),
): LinkedTarget[] {
  let realRoot: string;
  try {
    realRoot = Deno.realPathSync(root);
  } catch {
    return [];
  }
  const linked = PROTECTED_PATHS.flatMap((rule) =>
    isLink(entries, rule.name)
      ? targetsOf(realRoot, rule.name).map((path): LinkedTarget => ({
        path,
        entry: rule.name,
        rule,
        how: "link",
      }))
      : []
  );
  return [...linked, ...gitdirTargets(realRoot, entries)];
}

/**
 * The places inside the project that the `.git` files of `data` (every one
 * in the folders git reads, `findGitFiles`) name as git's data, each naming
 * its `.git` file: what the guard refuses to read as well as to write. The
 * root `.git` is left out when `nested`: {@link linkedProtectedTargets}
 * holds it already. Never throws.
 */
export function gitDataTargets(data: GitData, nested = false): LinkedTarget[] {
  const rule = PROTECTED_PATHS.find((entry) => entry.name === ".git");
  if (rule === undefined) return [];
  return data.files.filter((found) => !nested || found.file.includes("/")).flatMap((found) =>
    found.places.map((path): LinkedTarget => ({ path, entry: found.file, rule, how: "gitdir" }))
  );
}

/** The places inside `realRoot` the root `.git` names, when it is a `gitdir:` file. */
function gitdirTargets(realRoot: string, entries: EntryKinds): LinkedTarget[] {
  let kind;
  try {
    kind = entries.kind(".git");
  } catch {
    return [];
  }
  const rule = PROTECTED_PATHS.find((entry) => entry.name === ".git");
  if (kind !== "file" || rule === undefined) return [];
  return gitdirPlacesInside(realRoot, under(realRoot, ".git")).map((path) => ({
    path,
    entry: ".git",
    rule,
    how: "gitdir",
  }));
}

/** Whether the root entry `name` is a symbolic link; false when it cannot be looked at. */
function isLink(entries: EntryKinds, name: string): boolean {
  try {
    return entries.kind(name) === "symlink";
  } catch {
    return false;
  }
}

/**
 * The target among `targets` that `path` (relative, normalized) is, or lies
 * under, comparing names without regard to case as the guard does; or
 * undefined. Never throws.
 */
export function linkedTargetOf(
  targets: readonly LinkedTarget[],
  path: string,
): LinkedTarget | undefined {
  if (targets.length === 0) return undefined;
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
    let info: Deno.FileInfo;
    let link: string;
    try {
      info = Deno.lstatSync(current);
      if (!info.isSymlink) break;
      link = Deno.readLinkSync(current);
    } catch {
      break; // missing, or outside what may be read: nothing more inside the project
    }
    const next = realFolders(linkTarget(folderOf(current), link));
    const inside = next === undefined ? undefined : insideRoot(realRoot, next);
    if (next === undefined || inside === undefined) break;
    places.add(inside);
    current = next;
  }
  if (places.size > 0) {
    // Where the whole chain really ends, when it ends inside the project.
    try {
      const end = insideRoot(realRoot, Deno.realPathSync(under(realRoot, name)));
      if (end !== undefined) places.add(end);
    } catch {
      // Dangling, or outside: the hops above are what a reply could write.
    }
  }
  return [...places];
}

/** `path` relative to `realRoot`, `/`-separated, when it lies inside it (not the root itself). */
function insideRoot(realRoot: string, path: string): string | undefined {
  return relativeUnder(realRoot, path);
}
