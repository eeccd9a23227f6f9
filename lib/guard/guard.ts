/**
 * The path guard: decides, before anything is written, whether each path of
 * an LLM reply may be written or deleted, and whether
 * the context builder may read a file an LLM asks for.
 *
 * A path is refused when it
 * - fails the syntax check (`path_syntax.ts`): traversal, absolute, home,
 *   backslash, drive letter, control characters, ...;
 * - is protected (`protected_paths.ts`), compared without regard to case;
 * - passes through or names a symbolic link, even one that points inside the
 *   project (it could point at a protected file), passes through something
 *   that is not a folder, or names an existing folder or a special file
 *   (fifo, socket, device);
 * - is ignored by git's ignore rules (`ignore_rules.ts`), with git's exact
 *   semantics or with names folded as a case-insensitive file system folds
 *   them: either refuses.
 * - (in a reply) is, or lies under, the place a protected root entry that
 *   is a symbolic link leads to (`linked_protected.ts`): `ci/build.sh` when
 *   `build.sh` is a link to it.
 * - is, or lies under, a place a `.git` file names as git's data (`.git`
 *   holding `gitdir: .repo`, or `sub/.git` holding `gitdir: ../.subrepo`;
 *   `gitdir_file.ts` finds them in every folder git reads): no more
 *   writable or readable than `.git`.
 * - (in a reply) passes through a path that the same reply writes as a file.
 *
 * The guard only reads; what it checked can change before the applier writes,
 * so the applier must still not follow symbolic links when it writes.
 *
 * @module
 */

import { messageOf } from "../errors/errors.ts";
import { displayPath } from "../text/characters.ts";
import { plural } from "../text/plural.ts";
import type { FileOperation } from "../reply/operations.ts";
import { describeSpecial } from "../file_system/lstat.ts";
import type { EntryKinds } from "./entry_kinds.ts";
import { foldCase } from "./case_fold.ts";
import { type FolderIgnores, IgnoreRules } from "./ignore_rules.ts";
import { checkPathSyntax, normalizeProjectPath } from "./path_syntax.ts";
import {
  describeProtectedPath,
  type ProtectedPath,
  protectedRuleOfSegment,
  protectedRulesFor,
} from "./protected_paths.ts";
import {
  gitDataTargets,
  linkedProtectedTargets,
  type LinkedTarget,
  linkedTargetOf,
} from "./linked_protected.ts";
import { findGitFiles } from "./gitdir_file.ts";

/** One refused path of a reply. */
export interface Refusal {
  /** The path exactly as the reply wrote it. */
  readonly path: string;
  /** Why it may not be written, for the user and for the repair prompt. */
  readonly reason: string;
}

/**
 * The guard's verdict on a whole reply: every operation may be carried out
 * (with its path normalized: no leading `./`), or the refusals, one per
 * refused operation, in reply order.
 */
export type GuardResult =
  | { readonly ok: true; readonly operations: FileOperation[] }
  | { readonly ok: false; readonly refusals: Refusal[] };

type Access = "write" | "delete" | "read";

/** What lies along a folder's path: a reason to refuse, nothing wrong, or a folder missing on the way. */
type AlongFolder = string | undefined | typeof MISSING;
const MISSING = Symbol("missing");

/**
 * What one guard call has looked at: lstat results and ignore rules, shared
 * by every path, and what was found for each folder (a reply writes many
 * files in few folders: each folder's checks are made once).
 */
class GuardContext {
  readonly entries: EntryKinds;
  readonly exact: IgnoreRules;
  readonly folded: IgnoreRules;
  /** Where protected links lead (a reply's writes and deletes only). */
  readonly linked: readonly LinkedTarget[];
  /** Each folder's verdicts on its entries. */
  readonly #folders = new Map<string, Promise<FolderIgnores>>();
  /** Each folder's protected-path entries (a path's are its folder's, then its name's). */
  readonly #protected = new Map<string, readonly ProtectedPath[]>();
  /** What lies along each folder's path, on disk. */
  readonly #along = new Map<string, AlongFolder>();
  /** Each folder's verdicts, once read (most paths then need no promise). */
  readonly #settled = new Map<string, FolderIgnores>();

  constructor(rules: IgnoreRules, linked: readonly LinkedTarget[] = []) {
    // One lstat per entry for the whole check: the ignore rules look at the same folders.
    this.entries = rules.entries;
    this.exact = rules.withIgnoreCase(false);
    this.folded = rules.withIgnoreCase(true);
    this.linked = linked;
  }

  /**
   * Reads, all at once, the ignore rules of `folders` (a reply's paths lie
   * in many folders, each with `.gitignore` files to read on the way): the
   * checks that follow, one path at a time, then find them read. What cannot
   * be read is left for the check of the path that needs it, which reports
   * it. Never rejects.
   */
  async readRulesFor(folders: Iterable<string>): Promise<void> {
    await Promise.all([...folders].map((folder) => this.inFolder(folder).catch(() => {})));
  }

  /**
   * The protected-path entries that cover `<folder>/<name>` (see
   * `protectedRulesFor`), outermost first. Never throws.
   */
  protectedRules(folder: string, name: string): readonly ProtectedPath[] {
    let rules = this.#protected.get(folder);
    if (rules === undefined) {
      rules = folder === "" ? [] : protectedRulesFor(folder);
      this.#protected.set(folder, rules);
    }
    const own = protectedRuleOfSegment(name, folder === "");
    return own === undefined ? rules : [...rules, own];
  }

  /**
   * What lies along `folder` (a normalized, syntax-checked path; `""` is the
   * root): the reason to refuse every path in it (a symbolic link or
   * something else than a folder on the way), {@link MISSING} when a folder
   * on the way does not exist (nothing further down can be looked at), or
   * undefined when every folder on the way is a real folder. The first
   * problem from the top decides. Throws as `EntryKinds.kind` does.
   */
  along(folder: string): AlongFolder {
    if (folder === "") return undefined;
    const known = this.#along.get(folder);
    if (known !== undefined || this.#along.has(folder)) return known;
    const slash = folder.lastIndexOf("/");
    let along = this.along(slash < 0 ? "" : folder.slice(0, slash));
    if (along === undefined) {
      const kind = this.entries.kind(folder);
      if (kind === "missing") along = MISSING;
      else if (kind === "symlink") {
        along = `passes through \`${folder}\`, a symbolic link (a link could lead outside the ` +
          "project or to a protected file)";
      } else if (kind !== "folder") along = `passes through \`${folder}\`, which is not a folder`;
    }
    this.#along.set(folder, along);
    return along;
  }

  /** git's verdicts, exact and case-folded, on the entries of `folder`. Rejects as `inFolder`. */
  inFolder(folder: string): Promise<FolderIgnores> {
    let ignores = this.#folders.get(folder);
    if (ignores === undefined) {
      ignores = this.exact.inFolderEitherCase(folder);
      // The caller that asked handles a rejection; a cached copy must not go unhandled.
      ignores.then((found) => this.#settled.set(folder, found), () => {});
      this.#folders.set(folder, ignores);
    }
    return ignores;
  }

  /**
   * What {@link GuardContext.inFolder} resolved to for `folder`, once it
   * has; undefined before, or when it rejected. Never throws.
   */
  inFolderRead(folder: string): FolderIgnores | undefined {
    return this.#settled.get(folder);
  }
}

/**
 * Checks every operation of a reply against the project at `root` and
 * returns either all of them, with normalized paths, or a refusal for each
 * path that may not be written or deleted (it never stops at the first).
 * Writing or deleting a path that does not exist is fine (parents are created
 * later; a missing file's delete is a no-op). A path that cannot be inspected
 * (an lstat or ignore-file read error) is refused with the error, never let
 * through; so is a path that passes through a file another write of the same
 * reply creates (`a` and `a/b.ts`), and a path a protected root entry that
 * is a symbolic link leads to (`build.sh` → `ci/build.sh`), or where a
 * `.git` file in any folder git reads keeps git's data (`sub/.git` naming
 * `../.subrepo`), resolved once per call. Throws only when the ignore rules
 * cannot be loaded at all (`IgnoreRules.load`).
 */
export async function guardOperations(
  root: string,
  ops: readonly FileOperation[],
): Promise<GuardResult> {
  const rules = await IgnoreRules.load(root);
  const linked = [
    ...linkedProtectedTargets(root, rules.entries),
    // The root `.git` file is among the entries above; a nested one names git's data as well.
    ...gitDataTargets(await findGitFiles(rules), true),
  ];
  const context = new GuardContext(rules, linked);
  // Each path's syntax first: only a path that passes it is handed to the file system.
  const reasons = ops.map((op) => checkPathSyntax(op.path));
  const paths = ops.map((op) => normalizeProjectPath(op.path));
  // Each path's folder, one string each: the caches keyed by folder find it without hashing it again.
  const folders = paths.map(folderOf);
  await context.readRulesFor(new Set(folders.filter((_, index) => reasons[index] === undefined)));
  for (let index = 0; index < ops.length; index++) {
    if (reasons[index] !== undefined) continue;
    const reason = checkPath(context, paths[index], folders[index], ops[index].kind);
    reasons[index] = reason instanceof Promise ? await reason : reason;
  }

  // The (folded) paths this reply may write as files that another of its
  // paths passes through as a folder.
  const passed = foldersOnTheWay(folders.filter((_, index) => reasons[index] === undefined));
  const writtenFiles = new Map<string, string>();
  ops.forEach((op, index) => {
    if (op.kind === "write" && reasons[index] === undefined) {
      const folded = foldCase(paths[index]);
      if (passed.has(folded)) writtenFiles.set(folded, paths[index]);
    }
  });
  const conflicts = new ReplyConflicts(writtenFiles);

  const refusals: Refusal[] = [];
  const operations: FileOperation[] = [];
  ops.forEach((op, index) => {
    const path = paths[index];
    const reason = reasons[index] ?? conflicts.of(folders[index]);
    if (reason !== undefined) {
      refusals.push({ path: op.path, reason });
    } else {
      operations.push({ ...op, path });
    }
  });
  return refusals.length > 0 ? { ok: false, refusals } : { ok: true, operations };
}

/**
 * Checks whether the context builder may read `path` (a path an LLM asked
 * for) in the project at `root`: the same syntax, symbolic-link and ignore
 * checks as for a write, the protected entries that are not readable
 * (`.git`, `agent-config/`, ..., and where a `.git` file keeps git's data),
 * and the path must name an existing regular file. Returns the reason it is refused, or `undefined` when it may be read.
 * Pass `rules` (loaded for the same root) to share one set of ignore rules
 * across many reads. Throws only when the ignore rules cannot be loaded, or
 * when `rules` belong to another root (a programming error).
 */
export async function guardRead(
  root: string,
  path: string,
  rules?: IgnoreRules,
): Promise<string | undefined> {
  if (rules !== undefined && rules.root !== root) {
    throw new RangeError(`guardRead: the ignore rules given are for ${rules.root}, not ${root}`);
  }
  const syntax = checkPathSyntax(path);
  if (syntax !== undefined) return syntax;
  const loaded = rules ?? await IgnoreRules.load(root);
  // Where a `.git` file keeps git's data inside the project is no more readable than `.git`
  // (found once per set of rules: the reads of one batch share them).
  const context = new GuardContext(loaded, gitDataTargets(await findGitFiles(loaded)));
  const normalized = normalizeProjectPath(path);
  return await checkPath(context, normalized, folderOf(normalized), "read");
}

/** The folder `path` (normalized) lies in: `""` for the root. Never throws. */
function folderOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

/**
 * The reason `path` (normalized, its syntax checked), in `folder` (its
 * {@link folderOf}), may not be accessed, or undefined: at once, or a
 * promise of it when the folder's ignore rules are still to be read, or
 * the path is ignored (which rule ignores it is read then). Never throws;
 * the promise never rejects.
 */
function checkPath(
  context: GuardContext,
  path: string,
  folder: string,
  access: Access,
): string | undefined | Promise<string | undefined> {
  const name = folder === "" ? path : path.slice(folder.length + 1);

  // A write is refused by any covering entry; a read by any unreadable one, even an inner one
  // (`target/` is readable, `target/.git/config` is not).
  const rules = context.protectedRules(folder, name);
  const rule = access === "read" ? rules.find((entry) => !entry.readable) : rules[0];
  if (rule !== undefined) {
    return `${access === "read" ? "may not be read" : "is protected"}: ${
      describeProtectedPath(rule)
    }`;
  }
  const behind = linkedTargetOf(context.linked, path);
  if (behind !== undefined && behind.how === "gitdir") {
    // The repository's data kept elsewhere in the project: no more readable than `.git`.
    if (access !== "read" || !behind.rule.readable) {
      return `${access === "read" ? "may not be read" : "is protected"}: \`${behind.entry}\` ` +
        `is a file that names \`${behind.path}\` as git's repository data: ${
          describeProtectedPath(behind.rule)
        }`;
    }
  } else if (behind !== undefined && access !== "read") {
    return `is protected: \`${behind.entry}\` is a symbolic link that leads to \`${behind.path}\`, ` +
      `so writing or deleting here changes it: ${describeProtectedPath(behind.rule)}`;
  }

  try {
    const onDisk = checkOnDisk(context, folder, path, access);
    if (onDisk !== undefined) return onDisk;
    // The folder's verdicts, once read, answer at once for a path that is not ignored.
    const ignores = context.inFolderRead(folder);
    if (ignores !== undefined && !ignores.ignores(name, false)) return undefined;
  } catch (error) {
    return uncheckable(error);
  }
  return checkIgnored(context, path, folder, name);
}

/** The reason for a path that could not be checked because of `error`. Never throws. */
function uncheckable(error: unknown): string {
  return `could not be checked, so it is refused: ${messageOf(error)}`;
}

/**
 * Checks what is on disk along `path`, in `folder`: no symbolic link, no
 * special file, no folder. Throws as `EntryKinds.info` does.
 */
function checkOnDisk(
  context: GuardContext,
  folder: string,
  path: string,
  access: Access,
): string | undefined {
  const along = context.along(folder);
  if (along === MISSING) return access === "read" ? "does not exist" : undefined;
  if (along !== undefined) return along;
  const info = context.entries.info(path);
  if (info === undefined) return access === "read" ? "does not exist" : undefined;
  if (info.isSymlink) {
    return "is a symbolic link (a link could lead outside the project or to a protected file)";
  }
  if (info.isDirectory) return "names an existing folder, not a file";
  if (!info.isFile) return `names ${describeSpecial(info)}, not a regular file`;
  return undefined;
}

/**
 * Checks git's ignore rules, exact and case-folded, on `path`, the entry
 * `name` of `folder`, and says which rule ignores it. Never rejects: what
 * cannot be read refuses the path.
 */
async function checkIgnored(
  context: GuardContext,
  path: string,
  folder: string,
  name: string,
): Promise<string | undefined> {
  try {
    // The folder's verdicts answer at once; only a path that is ignored asks which rule.
    const ignores = context.inFolderRead(folder) ?? await context.inFolder(folder);
    if (!ignores.ignores(name, false)) return undefined;
    const exact = await context.exact.explain(path, false);
    const match = exact ?? await context.folded.explain(path, false);
    // The two checks should agree; where they do not, the path is refused, not written.
    if (match === undefined) return "is ignored by .gitignore (no one rule could be named)";
    const what = match.path === path ? "" : ` matches the folder \`${match.path}\``;
    const how = exact === undefined
      ? " (comparing names without regard to case, as macOS and Windows do)"
      : "";
    return `is ignored by .gitignore: the rule \`${match.pattern}\` in ${match.source}${what}${how}`;
  } catch (error) {
    return uncheckable(error);
  }
}

/**
 * Each of `folders` and every folder above it (the root aside), folded:
 * the folders paths in them pass through. Never throws.
 */
function foldersOnTheWay(folders: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const folded = new Set<string>();
  for (let folder of folders) {
    while (folder !== "" && !seen.has(folder)) {
      seen.add(folder);
      folded.add(foldCase(folder));
      folder = folderOf(folder);
    }
  }
  return folded;
}

/** The paths a reply writes as files, and the folders of its paths that pass through one. */
class ReplyConflicts {
  readonly #writtenFiles: ReadonlyMap<string, string>;
  readonly #folders = new Map<string, string | undefined>();

  /**
   * `writtenFiles`: each written path, folded, to the path as the reply
   * spells it (those no folder of the reply folds onto may be left out).
   */
  constructor(writtenFiles: ReadonlyMap<string, string>) {
    this.#writtenFiles = writtenFiles;
  }

  /**
   * Why a path in `folder` passes through a file this same reply writes (the
   * topmost such file on the way: `folder` or a folder above it), or
   * undefined. Never throws.
   */
  of(folder: string): string | undefined {
    if (folder === "" || this.#writtenFiles.size === 0) return undefined;
    if (this.#folders.has(folder)) return this.#folders.get(folder);
    const slash = folder.lastIndexOf("/");
    let reason = this.of(slash < 0 ? "" : folder.slice(0, slash));
    if (reason === undefined) {
      const file = this.#writtenFiles.get(foldCase(folder));
      if (file !== undefined) {
        reason = `passes through \`${folder}\`, which this reply writes as a file (\`${file}\`)`;
      }
    }
    this.#folders.set(folder, reason);
    return reason;
  }
}

/**
 * Formats refusals for the user and the repair prompt: the line
 * "refused the reply: N path(s) may not be written" ("1 path", "2 paths"),
 * then one line per refusal, "  <path>: <reason>", with the path shown by
 * `displayPath`. Never throws.
 */
export function formatRefusals(refusals: readonly Refusal[]): string {
  const lines = [`refused the reply: ${plural(refusals.length, "path")} may not be written`];
  for (const refusal of refusals) {
    lines.push(`  ${displayPath(refusal.path)}: ${refusal.reason}`);
  }
  return lines.join("\n");
}
