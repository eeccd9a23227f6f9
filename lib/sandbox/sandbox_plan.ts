/**
 * What a contained build may do in the project, found on disk right before
 * each build from the protected-path table (`lib/guard/protected_paths.ts`,
 * its `build` column): the project read-write, the `hidden` entries
 * (`agent-config/`, `logs/`) replaced by an empty read-only folder, the `read-only`
 * ones (`.git`, `build.sh`, every `.gitignore`, ...) read-only, and so are
 * the files whose hard links lead out of the project, and every folder
 * holding a name the scan could not reach (not UTF-8: a hard link behind
 * it could not be looked at). The plan is plain data; `bubblewrap.ts` and
 * `seatbelt.ts` turn it into a sandbox.
 *
 * It fails closed: what must be hidden and cannot be found where it leads,
 * more hard-linked files than the sandbox can make read-only, or a name
 * that is not UTF-8 in the project root itself, means no contained build
 * at all (a one-line error saying what to do).
 *
 * @module
 */
import { under } from "../file_system/file_system.ts";
import { folderOf, relativeUnder } from "../file_system/paths.ts";
import { CodeCommitError, EXIT, messageOf } from "../errors/errors.ts";
import { gitdirPlaces } from "../guard/gitdir_file.ts";
import { type ProjectScan, scanProject } from "./project_scan.ts";

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
  /**
   * Folders of the project made mount points of their own (still
   * writable): every folder between the root and a read-only entry, so
   * that no rename can move a read-only entry away and put a new one in its
   * place (`mv src src.orig; mkdir src` fails with EBUSY). Sorted, parents
   * first.
   */
  readonly mountPoints: readonly string[];
  /**
   * Paths inside the project that stay readable but not writable: the
   * table's read-only entries (where a link among them leads, when that is
   * in the project), the files with hard links out of the project, and the
   * folders holding a name that is not UTF-8. Sorted, parents first.
   */
  readonly readOnly: readonly string[];
  /**
   * Paths nothing can be read from: the hidden entries (`agent-config/`,
   * `logs/`) and, when a link inside one leads elsewhere, where the link
   * leads (so a key file that is a link to `~/.keys/gemini` is hidden too).
   * Sorted, parents first.
   */
  readonly hidden: readonly HiddenPath[];
}

/**
 * At most this many files with hard links out of the project are made
 * read-only one by one: bubblewrap's time to set up a mount grows with the
 * mounts already there (the whole set-up, with about the square of their
 * number), and it takes at most 9,000 arguments.
 */
const MAX_HARD_LINKED_FILES = 100;

/**
 * At most this many folders and links are looked at in a hidden entry
 * (links followed); plain files are not counted (`logs/` holds a folder of
 * a few files for every run).
 */
const MAX_HIDDEN_ENTRIES = 10_000;

/** Whether `path` is `parent` or inside it (both absolute, resolved). Never throws. */
export function isInside(path: string, parent: string): boolean {
  return path === parent || relativeUnder(parent, path) !== undefined;
}

/** Sorts absolute paths so that a parent comes before what is inside it, and drops repeats. */
function parentsFirst(paths: Iterable<string>): string[] {
  return [...new Set(paths)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** What to do when something that must be hidden cannot be. */
const HIDE_ADVICE =
  "keep the keys and what agent-config/ links to inside the project, or run with --sandbox off";

/**
 * Where the in-project path `path` leads, read through the path itself
 * (Deno, run with `--allow-read=.`, resolves a link out of the project
 * given its in-project name, but refuses to look at the target by its
 * own): undefined for a dangling link (nothing to hide).
 *
 * @throws {CodeCommitError} when it cannot be resolved for another reason.
 */
async function whereItLeads(
  path: string,
  shown: string,
): Promise<{ target: string; isDirectory: boolean } | undefined> {
  try {
    const target = await Deno.realPath(path);
    const info = await Deno.stat(path);
    return { target, isDirectory: info.isDirectory };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw new CodeCommitError(
      `${shown} must be hidden from the build, but code-commit cannot find where it leads: ` +
        `${messageOf(error)}; ${HIDE_ADVICE}`,
      EXIT.setup,
    );
  }
}

/**
 * Everything to hide for the hidden entry `name` in `root` (`agent-config`, `logs`):
 * where it leads, and where every link inside it leads when that is not
 * inside it already, followed through folders outside (reached by their
 * in-project names).
 *
 * @throws {CodeCommitError} when an entry cannot be resolved or listed, one
 * leads to a folder that holds the project, or there are more than
 * {@link MAX_HIDDEN_ENTRIES} entries.
 */
async function hiddenPaths(root: string, name: string): Promise<HiddenPath[]> {
  const found: HiddenPath[] = [];
  const top = await whereItLeads(under(root, name), name);
  if (top === undefined) return found;
  const walked = new Set<string>();
  let seen = 0;

  const add = (target: string, isDirectory: boolean, shown: string): void => {
    if (isInside(root, target)) {
      throw new CodeCommitError(
        `${shown} leads to ${target}, a folder that holds the project: the sandbox cannot hide it ` +
          `from the build; ${HIDE_ADVICE}`,
        EXIT.setup,
      );
    }
    found.push({ path: target, isDirectory });
  };

  /** Walks the folder `path` (in-project name) that leads to `target`. */
  const walk = async (path: string, shown: string, target: string): Promise<void> => {
    if (walked.has(target)) return;
    walked.add(target);
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(path));
    } catch (error) {
      throw new CodeCommitError(
        `${shown} must be hidden from the build, but code-commit cannot list it ` +
          `(${messageOf(error)}): ${HIDE_ADVICE}`,
        EXIT.setup,
      );
    }
    for (const entry of entries) {
      if ((entry.isDirectory || entry.isSymlink) && ++seen > MAX_HIDDEN_ENTRIES) {
        throw new CodeCommitError(
          `${name}/ holds more than ${MAX_HIDDEN_ENTRIES} folders and links (links followed): ` +
            `keep only code-commit's files there (remove old runs from logs/), ` +
            `or run with --sandbox off`,
          EXIT.setup,
        );
      }
      const child = under(path, entry.name);
      const childShown = `${shown}/${entry.name}`;
      if (entry.isDirectory) {
        await walk(child, childShown, under(target, entry.name));
      } else if (entry.isSymlink) {
        const leads = await whereItLeads(child, childShown);
        if (leads === undefined || found.some((hidden) => isInside(leads.target, hidden.path))) {
          continue;
        }
        add(leads.target, leads.isDirectory, childShown);
        if (leads.isDirectory) await walk(child, childShown, leads.target);
      }
    }
  };

  add(top.target, top.isDirectory, name);
  if (top.isDirectory) await walk(under(root, name), name, top.target);
  return found;
}

/**
 * The places inside `root` (not `root` itself) that the `.git` file at
 * `path` (links resolved) names as git's data, links resolved; none when
 * it is not a `gitdir:` file or names a place that is not there. Never throws.
 */
function gitdirsInside(root: string, path: string): string[] {
  return gitdirPlaces(path).flatMap((place) => {
    try {
      const target = Deno.realPathSync(place);
      return isInside(target, root) && target !== root ? [target] : [];
    } catch {
      return [];
    }
  });
}

/**
 * Turns a scan of the project at `root` into a plan (see {@link SandboxPlan}).
 *
 * @throws {CodeCommitError} when something that must be hidden cannot be
 * (see {@link planSandbox}), more than {@link MAX_HARD_LINKED_FILES}
 * files have hard links out of the project, or the project root holds a
 * name that is not UTF-8.
 */
export async function planFromScan(scan: ProjectScan): Promise<SandboxPlan> {
  const root = scan.root;
  if (scan.unreachable.includes("")) {
    throw new CodeCommitError(
      `the project root holds a file or folder whose name is not UTF-8: code-commit cannot ` +
        `look behind it for hard links out of the project, through which a contained build ` +
        `could write outside it, and cannot make the root read-only; rename it ` +
        `(ls -b shows it), or run with --sandbox off`,
      EXIT.setup,
    );
  }
  if (scan.hardLinked.length > MAX_HARD_LINKED_FILES) {
    throw new CodeCommitError(
      `${scan.hardLinked.length} files in the project (${scan.hardLinked[0]}, ...) have hard ` +
        `links that lead out of it, more than the ${MAX_HARD_LINKED_FILES} the sandbox can make ` +
        `read-only; a contained build could write through them into the other copies (a ` +
        `package manager's cache). Have the package manager copy files instead ` +
        `(uv: UV_LINK_MODE=copy uv sync --reinstall; pnpm: package-import-method=copy in ` +
        `.npmrc, then pnpm install --force), or run with --sandbox off`,
      EXIT.setup,
    );
  }

  const readOnly: string[] = scan.hardLinked.map((path) => under(root, path));
  // A folder holding a name not looked behind: read-only whole (fail closed).
  readOnly.push(...scan.unreachable.map((path) => under(root, path)));
  const hidden: HiddenPath[] = [];
  for (const entry of scan.entries) {
    const absolute = under(root, entry.path);
    if (entry.rule.build === "hidden") {
      hidden.push(...await hiddenPaths(root, entry.path));
      continue;
    }
    let target: string;
    try {
      target = await Deno.realPath(absolute);
    } catch {
      continue; // A dangling link: nothing there to protect.
    }
    // Outside the project everything is read-only already.
    if (isInside(target, root) && target !== root) readOnly.push(target);
    // A `.git` file's `gitdir:` inside the project is git's data too (its hooks, its config).
    if (entry.rule.name === ".git") readOnly.push(...gitdirsInside(root, target));
  }

  const sortedReadOnly = parentsFirst(readOnly);
  const mountPoints = new Set<string>();
  for (const path of sortedReadOnly) {
    for (let folder = folderOf(path); folder !== root && isInside(folder, root);) {
      mountPoints.add(folder);
      folder = folderOf(folder);
    }
  }
  return {
    root,
    // Never one inside a read-only entry (a link can lead into `.git/`): it would be writable.
    mountPoints: parentsFirst(mountPoints).filter((folder) =>
      !sortedReadOnly.some((path) => isInside(folder, path))
    ),
    readOnly: sortedReadOnly,
    hidden: parentsFirst(hidden.map((entry) => entry.path)).map((path) =>
      hidden.find((entry) => entry.path === path)!
    ),
  };
}

/**
 * Finds what a contained build of the project at `root` may do (see
 * {@link SandboxPlan}): the read-only and hidden entries of the
 * protected-path table that exist now, looked for in every folder git
 * reads (`project_scan.ts`), names compared as the table compares them
 * (case folded); a read-only entry that is a link is followed, and what it
 * leads to is made read-only when it is inside the project (outside,
 * everything is read-only already); a link in `agent-config/` is followed
 * through its in-project name, and what it leads to is hidden.
 *
 * @throws {CodeCommitError} when an ignore file cannot be read; when an
 * entry that must be hidden cannot be resolved or listed under the tool's
 * permissions, or leads to a folder holding the project; when more than
 * {@link MAX_HARD_LINKED_FILES} files have hard links out of the project;
 * or when the root holds a name that is not UTF-8.
 * @throws {Deno.errors.NotFound} and other file system errors when `root` cannot be read.
 */
export async function planSandbox(root: string): Promise<SandboxPlan> {
  const realRoot = await Deno.realPath(root);
  return await planFromScan(await scanProject(realRoot, { hardLinks: true }));
}
