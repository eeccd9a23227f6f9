/**
 * One walk of the project around a build: the protected-path table's entries in every folder git
 * reads (by its exact ignore rules), and files whose hard links lead out (ignored folders too: uv
 * and pnpm link from caches). A folder holding a name not UTF-8, which Deno cannot reach, is
 * reported, to be made read-only whole (fail closed). Synchronous calls: faster over many files.
 *
 * @module
 */
import { IgnoreRules } from "../guard/ignore_rules.ts";
import { type ProtectedPath, protectedRuleOfSegment } from "../guard/protected_paths.ts";

/** What one walk found. */
export interface ProjectScan {
  /** The project root, links resolved. */
  readonly root: string;
  /** Every read-only or hidden entry of the table, path relative and `/`-separated, sorted. */
  readonly entries: readonly { readonly path: string; readonly rule: ProtectedPath }[];
  /** Regular files with a hard link the walk did not see: relative paths, sorted (hard-link scan only). */
  readonly hardLinked: readonly string[];
  /** Folders (`""` the root) holding a name not UTF-8, not looked behind: sorted (hard-link scan only). */
  readonly unreachable: readonly string[];
}

function listFolder(folder: string): Deno.DirEntry[] {
  try {
    return [...Deno.readDirSync(folder)];
  } catch (error) {
    const { NotFound, PermissionDenied, NotADirectory } = Deno.errors;
    if ([NotFound, PermissionDenied, NotADirectory].some((kind) => error instanceof kind)) {
      return [];
    }
    throw error;
  }
}

/** Whether Deno decoded the entry's name (not UTF-8) to U+FFFD, so no entry of that name is there. */
function unreachableName(absolute: string, name: string): boolean {
  if (!name.includes("\uFFFD")) return false;
  try {
    Deno.lstatSync(`${absolute}/${name}`);
    return false;
  } catch {
    return true;
  }
}

/**
 * Walks the project at `root` (absolute, links resolved), with `hardLinks` also every folder for
 * hard links out. @throws {CodeCommitError} when an ignore file cannot be read, and file system
 * errors other than a folder that is gone or not readable.
 */
export async function scanProject(
  root: string,
  options: { readonly hardLinks?: boolean } = {},
): Promise<ProjectScan> {
  const rules = await IgnoreRules.load(root);
  const hardLinks = options.hardLinks === true;
  const entries: { path: string; rule: ProtectedPath }[] = [];
  const unreachable = new Set<string>();
  // Files with more than one link, by device and inode: the names seen, and the link count.
  const inodes = new Map<string, { paths: string[]; links: number }>();

  const countLinks = (path: string): void => {
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(`${root}/${path}`);
    } catch {
      return; // Gone since the folder was listed.
    }
    const links = info.nlink ?? 1;
    if (!info.isFile || links < 2) return;
    const key = `${info.dev}:${info.ino}`;
    const seen = inodes.get(key);
    if (seen === undefined) inodes.set(key, { paths: [path], links });
    else seen.paths.push(path);
  };

  /** Walks the folder `path`; in an `ignored` one (read for hard links only) no entry is protected. */
  const walk = async (path: string, ignored: boolean): Promise<void> => {
    const absolute = path === "" ? root : `${root}/${path}`;
    for (const entry of listFolder(absolute)) {
      if (hardLinks && unreachableName(absolute, entry.name)) {
        unreachable.add(path);
        continue;
      }
      const child = path === "" ? entry.name : `${path}/${entry.name}`;
      const rule = ignored ? undefined : protectedRuleOfSegment(entry.name, path === "");
      if (rule !== undefined && rule.build !== "writable") {
        // Bound or hidden whole: never walked (nothing in it is found, nor scanned for links).
        entries.push({ path: child, rule });
        continue;
      }
      if (entry.isDirectory) {
        const childIgnored = ignored || await rules.isIgnored(child, true);
        if (!childIgnored || hardLinks) await walk(child, childIgnored);
      } else if (entry.isFile && hardLinks) {
        countLinks(child);
      }
    }
  };

  await walk("", false);
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // A file with a link the walk did not see: outside the project, or in a folder not walked.
  const hardLinked = [...inodes.values()].flatMap(({ paths, links }) =>
    paths.length < links ? paths : []
  );
  return { root, entries, hardLinked: hardLinked.sort(), unreachable: [...unreachable].sort() };
}
