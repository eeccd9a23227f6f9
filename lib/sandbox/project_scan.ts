/**
 * One walk of the project before (and after) a build: the entries of the
 * protected-path table a build may not write or read, found in every folder
 * git would read, and, for a contained build, the files whose hard links
 * lead out of the project.
 *
 * Which folders git reads: the root and every real folder (not a symbolic
 * link, not a `.git`) that git's own, exact ignore rules do not ignore. That
 * includes folders whose names the path guard refuses (`v~1`) and folders
 * ignored only once case is folded (`Sub/` under a rule `sub/`): git on
 * Linux reads the `.gitignore` and finds the `.git` in those too. A folder
 * that is itself a protected entry (`.git`, `agent-state/`, `logs/`,
 * `agent-config/`) is not walked: the sandbox binds it whole.
 *
 * The hard-link scan also opens the ignored folders (`node_modules/`,
 * `.venv/`): a package manager that links files from its cache (uv, pnpm)
 * puts them there. A name that is not UTF-8 cannot be reached through
 * Deno (it decodes names lossily, to U+FFFD): the scan cannot look at such
 * a file's links or into such a folder, so it reports the folder that
 * holds the name, for the plan to make read-only whole (fail closed). It
 * reads with the synchronous calls, several times faster than the
 * asynchronous ones over many files.
 *
 * @module
 */
import { foldCase } from "../guard/case_fold.ts";
import { IgnoreRules } from "../guard/ignore_rules.ts";
import { PROTECTED_PATHS, type ProtectedPath } from "../guard/protected_paths.ts";

/** An entry of the protected-path table, found in the project. */
export interface FoundEntry {
  /** The path relative to the project root, `/`-separated. */
  readonly path: string;
  /** The table entry whose name it has. */
  readonly rule: ProtectedPath;
}

/** What one walk found. */
export interface ProjectScan {
  /** The project root, links resolved. */
  readonly root: string;
  /**
   * Every entry (of any kind) named as a read-only or hidden entry of the
   * table: root names in the root, any-depth names in every folder git
   * reads. Sorted by path.
   */
  readonly entries: readonly FoundEntry[];
  /**
   * Regular files with more than one hard link, when some of their links
   * are not in the project (found by counting the names seen): relative
   * paths, sorted. Empty unless the scan was asked for them.
   */
  readonly hardLinked: readonly string[];
  /**
   * Folders (relative paths, `""` for the root) holding an entry whose name
   * the scan could not reach (not UTF-8, decoded to U+FFFD): what is in or
   * behind that entry was not looked at. Sorted; empty unless the scan was
   * asked for hard links.
   */
  readonly unreachable: readonly string[];
  /** How many folders were read (for measurements). */
  readonly folders: number;
}

/** Options of {@link scanProject}. */
export interface ScanOptions {
  /** Also look for hard links, in every folder (ignored ones included). */
  readonly hardLinks?: boolean;
}

/** The table's entries a build may not write or read, by folded name. */
const GUARDED = PROTECTED_PATHS.filter((entry) => entry.build !== "writable");
const ROOT_NAMES = new Map(
  GUARDED.filter((entry) => entry.scope !== "any-depth-name").map((entry) => [
    foldCase(entry.name),
    entry,
  ]),
);
const ANY_DEPTH_NAMES = new Map(
  GUARDED.filter((entry) => entry.scope === "any-depth-name").map((entry) => [
    foldCase(entry.name),
    entry,
  ]),
);

/** The entries of `folder`, or none when it cannot be listed (gone, or not ours to read). */
function listFolder(folder: string): Deno.DirEntry[] {
  try {
    return [...Deno.readDirSync(folder)];
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) {
      return [];
    }
    if (error instanceof Deno.errors.NotADirectory) return [];
    throw error;
  }
}

/**
 * Whether the entry `name` of the folder `absolute` cannot be reached by
 * its name: Deno decoded a name that is not UTF-8 to U+FFFD, and no entry
 * of the decoded name is there (a name that really holds U+FFFD is). Never throws.
 */
function unreachableName(absolute: string, name: string): boolean {
  if (!name.includes("\uFFFD")) return false;
  try {
    Deno.lstatSync(`${absolute}/${name}`);
    return false;
  } catch {
    return true;
  }
}

/** Files with more than one link, by device and inode: the names seen, and the link count. */
class LinkCounter {
  readonly #inodes = new Map<string, { paths: string[]; links: number }>();

  /** Looks at the regular file `path` (relative) at `absolute`. */
  add(path: string, absolute: string): void {
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(absolute);
    } catch {
      return; // Gone since the folder was listed.
    }
    const links = info.nlink ?? 1;
    if (!info.isFile || links < 2) return;
    const key = `${info.dev}:${info.ino}`;
    const seen = this.#inodes.get(key);
    if (seen === undefined) this.#inodes.set(key, { paths: [path], links });
    else seen.paths.push(path);
  }

  /** The files with a link the walk did not see (outside the project, or in a folder not walked). */
  leadingOut(): string[] {
    const paths: string[] = [];
    for (const { paths: seen, links } of this.#inodes.values()) {
      if (seen.length < links) paths.push(...seen);
    }
    return paths.sort();
  }
}

/**
 * Walks the project at `root` (absolute, links resolved): see the module
 * documentation for which folders are read.
 *
 * @throws {CodeCommitError} when an ignore file cannot be read.
 * @throws file system errors other than a folder that is gone or not readable.
 */
export async function scanProject(root: string, options: ScanOptions = {}): Promise<ProjectScan> {
  const rules = await IgnoreRules.load(root);
  const entries: FoundEntry[] = [];
  const links = options.hardLinks ? new LinkCounter() : undefined;
  const unreachable = new Set<string>();
  let folders = 0;

  /** Whether `name` in the folder `path` cannot be reached, noting the folder when so. */
  const cannotReach = (path: string, absolute: string, name: string): boolean => {
    if (links === undefined || !unreachableName(absolute, name)) return false;
    unreachable.add(path);
    return true;
  };

  const ignoredFolder = (path: string): void => {
    folders++;
    const absolute = `${root}/${path}`;
    for (const entry of listFolder(absolute)) {
      if (cannotReach(path, absolute, entry.name)) continue;
      const child = `${path}/${entry.name}`;
      if (entry.isDirectory) ignoredFolder(child);
      else if (entry.isFile) links!.add(child, `${root}/${child}`);
    }
  };

  const gitFolder = async (path: string): Promise<void> => {
    folders++;
    const absolute = path === "" ? root : `${root}/${path}`;
    for (const entry of listFolder(absolute)) {
      if (cannotReach(path, absolute, entry.name)) continue;
      const child = path === "" ? entry.name : `${path}/${entry.name}`;
      const folded = foldCase(entry.name);
      const rule = (path === "" ? ROOT_NAMES.get(folded) : undefined) ??
        ANY_DEPTH_NAMES.get(folded);
      if (rule !== undefined) {
        // Bound or hidden whole: never walked (nothing in it is found, nor scanned for links).
        entries.push({ path: child, rule });
        continue;
      }
      if (entry.isDirectory) {
        if (!(await rules.isIgnored(child, true))) await gitFolder(child);
        else if (links !== undefined) ignoredFolder(child);
      } else if (entry.isFile && links !== undefined) {
        links.add(child, `${root}/${child}`);
      }
    }
  };

  await gitFolder("");
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    root,
    entries,
    hardLinked: links?.leadingOut() ?? [],
    unreachable: [...unreachable].sort(),
    folders,
  };
}
