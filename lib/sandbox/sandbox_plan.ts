/**
 * What a contained build may do in the project, found right before each build from the
 * protected-path table's `build` column. Plain data that `bubblewrap.ts` and `seatbelt.ts` turn
 * into a sandbox. It fails closed: what cannot be hidden or made read-only means no build.
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
  readonly isDirectory: boolean;
}

/** What a contained build may do, as absolute paths with links resolved, each list parents first. */
export interface SandboxPlan {
  /** The project root: readable and writable. */
  readonly root: string;
  /**
   * Every folder between the root and a read-only entry, made a mount point (still writable) so
   * that no rename can swap a read-only entry for a new one (`mv src src.orig` fails with EBUSY).
   */
  readonly mountPoints: readonly string[];
  /**
   * Read-only: the table's entries (where links lead, in the project), files with hard links out,
   * folders holding a name not UTF-8.
   */
  readonly readOnly: readonly string[];
  /** Unreadable: the hidden entries and where links inside them lead (a key file linked elsewhere). */
  readonly hidden: readonly HiddenPath[];
}

/** Most files with hard links out made read-only one by one (each is a mount: slow, and bwrap takes at most 9,000 arguments). */
const MAX_HARD_LINKED_FILES = 100;

/** Most folders and links looked at in a hidden entry, links followed (plain files not counted). */
const MAX_HIDDEN_ENTRIES = 10_000;

/** Whether `path` is `parent` or inside it (both absolute, resolved). Never throws. */
export function isInside(path: string, parent: string): boolean {
  return path === parent || relativeUnder(parent, path) !== undefined;
}

function parentsFirst(paths: Iterable<string>): string[] {
  return [...new Set(paths)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const HIDE_ADVICE =
  "keep the keys and what agent-config/ links to inside the project, or run with --sandbox off";

function setupError(message: string): CodeCommitError {
  return new CodeCommitError(message, EXIT.setup);
}

function cannotHide(shown: string, why: string): CodeCommitError {
  return setupError(`${shown} must be hidden from the build, but ${why}`);
}

/**
 * Where the in-project `path` leads, read through the path itself (Deno, allowed to read only the
 * project, refuses the target by its own name); undefined for a dangling link.
 */
async function whereItLeads(path: string, shown: string) {
  try {
    const target = await Deno.realPath(path);
    return { target, isDirectory: (await Deno.stat(path)).isDirectory };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw cannotHide(
      shown,
      `code-commit cannot find where it leads: ${messageOf(error)}; ${HIDE_ADVICE}`,
    );
  }
}

/**
 * Everything to hide for the hidden entry `name`: where it leads, and where every link inside it
 * leads when not inside already, followed through folders outside by their in-project names.
 */
async function hiddenPaths(root: string, name: string): Promise<HiddenPath[]> {
  const found: HiddenPath[] = [];
  const walked = new Set<string>();
  let seen = 0;

  const follow = async (path: string, shown: string): Promise<void> => {
    const leads = await whereItLeads(path, shown);
    if (leads === undefined || found.some((hidden) => isInside(leads.target, hidden.path))) return;
    if (isInside(root, leads.target)) {
      throw setupError(
        `${shown} leads to ${leads.target}, a folder that holds the project: the sandbox cannot ` +
          `hide it from the build; ${HIDE_ADVICE}`,
      );
    }
    found.push({ path: leads.target, isDirectory: leads.isDirectory });
    if (leads.isDirectory) await walk(path, shown, leads.target);
  };

  const walk = async (path: string, shown: string, target: string): Promise<void> => {
    if (walked.has(target)) return;
    walked.add(target);
    const entries = await Array.fromAsync(Deno.readDir(path)).catch((error) => {
      throw cannotHide(shown, `code-commit cannot list it (${messageOf(error)}): ${HIDE_ADVICE}`);
    });
    for (const entry of entries) {
      if ((entry.isDirectory || entry.isSymlink) && ++seen > MAX_HIDDEN_ENTRIES) {
        throw setupError(
          `${name}/ holds more than ${MAX_HIDDEN_ENTRIES} folders and links (links followed): ` +
            `keep only code-commit's files there (remove old runs from logs/), ` +
            `or run with --sandbox off`,
        );
      }
      const child = under(path, entry.name);
      const childShown = `${shown}/${entry.name}`;
      if (entry.isDirectory) await walk(child, childShown, under(target, entry.name));
      else if (entry.isSymlink) await follow(child, childShown);
    }
  };

  await follow(under(root, name), name);
  return found;
}

/** The places inside `root` (not `root` itself) a `.git` file at `path` names as git's data. */
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
 * Turns a scan of the project into a plan. @throws {CodeCommitError} when something that must be
 * hidden cannot be, too many files have hard links out, or the root holds a name not UTF-8.
 */
export async function planFromScan(scan: ProjectScan): Promise<SandboxPlan> {
  const root = scan.root;
  if (scan.unreachable.includes("")) {
    throw setupError(
      `the project root holds a file or folder whose name is not UTF-8: code-commit cannot ` +
        `look behind it for hard links out of the project, through which a contained build ` +
        `could write outside it, and cannot make the root read-only; rename it ` +
        `(ls -b shows it), or run with --sandbox off`,
    );
  }
  if (scan.hardLinked.length > MAX_HARD_LINKED_FILES) {
    throw setupError(
      `${scan.hardLinked.length} files in the project (${scan.hardLinked[0]}, ...) have hard ` +
        `links that lead out of it, more than the ${MAX_HARD_LINKED_FILES} the sandbox can make ` +
        `read-only; a contained build could write through them into the other copies (a ` +
        `package manager's cache). Have the package manager copy files instead ` +
        `(uv: UV_LINK_MODE=copy uv sync --reinstall; pnpm: package-import-method=copy in ` +
        `.npmrc, then pnpm install --force), or run with --sandbox off`,
    );
  }

  // A folder holding a name not looked behind is read-only whole (fail closed).
  const readOnly = [...scan.hardLinked, ...scan.unreachable].map((path) => under(root, path));
  const hidden: HiddenPath[] = [];
  for (const entry of scan.entries) {
    if (entry.rule.build === "hidden") {
      hidden.push(...await hiddenPaths(root, entry.path));
      continue;
    }
    const target = await Deno.realPath(under(root, entry.path)).catch(() => undefined);
    if (target === undefined) continue; // A dangling link: nothing there to protect.
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
 * Finds what a contained build of the project at `root` may do, as `planFromScan` after a scan.
 * @throws {CodeCommitError} as those do; file system errors when `root` cannot be read.
 */
export async function planSandbox(root: string): Promise<SandboxPlan> {
  return await planFromScan(await scanProject(await Deno.realPath(root), { hardLinks: true }));
}
