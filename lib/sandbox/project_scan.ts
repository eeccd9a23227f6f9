/**
 * One walk of the project before (and after) a build: the protected-path table's entries a build
 * may not write or read, found in every folder git would read, and for a contained build the
 * files whose hard links lead out of the project.
 *
 * Git reads the root and every real folder (not a link, not a `.git`) its own exact ignore rules
 * do not ignore, so also folders the path guard refuses (`v~1`) or that a case-folded rule
 * ignores. A protected folder is not walked: the sandbox binds it whole. The hard-link scan also
 * opens ignored folders, where uv and pnpm link files from their caches. A name that is not UTF-8
 * cannot be reached through Deno, so the folder holding it is reported, to be made read-only
 * whole (fail closed). Synchronous calls: several times faster over many files.
 *
 * @module
 */
import { IgnoreRules } from "../guard/ignore_rules.ts";
import { type ProtectedPath, protectedRuleOfSegment } from "../guard/protected_paths.ts";

/** What one walk found. */
export interface ProjectScan {
  /** The project root, links resolved. */
  readonly root: string;
  /**
   * Every entry named as a read-only or hidden entry of the table (root names in the root,
   * any-depth names in every folder git reads), path relative and `/`-separated, sorted by path.
   */
  readonly entries: readonly { readonly path: string; readonly rule: ProtectedPath }[];
  /** Regular files with a hard link the walk did not see: relative paths, sorted (hard-link scan only). */
  readonly hardLinked: readonly string[];
  /** Folders (`""` the root) holding a name not UTF-8, not looked behind: sorted (hard-link scan only). */
  readonly unreachable: readonly string[];
}

/** The entries of `folder`, or none when it cannot be listed (gone, or not ours to read). */
function listFolder(folder: string): Deno.DirEntry[] {
  try {
    return [...Deno.readDirSync(folder)];
  } catch (error) {
    if (
      error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied ||
      error instanceof Deno.errors.NotADirectory
    ) {
      return [];
    }
    throw error;
  }
}

/**
 * Whether the entry `name` of `absolute` cannot be reached by its name: Deno decoded a name that
 * is not UTF-8 to U+FFFD, and no entry of that name is there. Never throws.
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
 * Walks the project at `root` (absolute, links resolved), with `hardLinks` also every folder for
 * hard links out.
 *
 * @throws {CodeCommitError} when an ignore file cannot be read.
 * @throws file system errors other than a folder that is gone or not readable.
 */
export async function scanProject(
  root: string,
  options: { readonly hardLinks?: boolean } = {},
): Promise<ProjectScan> {
  const rules = await IgnoreRules.load(root);
  const entries: { path: string; rule: ProtectedPath }[] = [];
  const links = options.hardLinks ? new LinkCounter() : undefined;
  const unreachable = new Set<string>();

  /** Whether `name` in the folder `path` cannot be reached, noting the folder when so. */
  const cannotReach = (path: string, absolute: string, name: string): boolean => {
    if (links === undefined || !unreachableName(absolute, name)) return false;
    unreachable.add(path);
    return true;
  };

  const ignoredFolder = (path: string): void => {
    const absolute = `${root}/${path}`;
    for (const entry of listFolder(absolute)) {
      if (cannotReach(path, absolute, entry.name)) continue;
      const child = `${path}/${entry.name}`;
      if (entry.isDirectory) ignoredFolder(child);
      else if (entry.isFile) links!.add(child, `${root}/${child}`);
    }
  };

  const gitFolder = async (path: string): Promise<void> => {
    const absolute = path === "" ? root : `${root}/${path}`;
    for (const entry of listFolder(absolute)) {
      if (cannotReach(path, absolute, entry.name)) continue;
      const child = path === "" ? entry.name : `${path}/${entry.name}`;
      const rule = protectedRuleOfSegment(entry.name, path === "");
      if (rule !== undefined && rule.build !== "writable") {
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
  };
}
