/**
 * The path guard: whether each path of a reply may be written or deleted, and whether the context
 * builder may read a path. Refused: bad syntax, protected (case-folded), through a link (it could
 * lead to a protected file) or a non-folder, a folder or special file, ignored by git exactly or
 * case-folded, where a protected link or a `.git` file leads, through a file the reply writes.
 * The guard only reads: the applier must still not follow links as it writes.
 *
 * @module
 */

import { messageOf } from "../errors/errors.ts";
import { displayPath } from "../text/characters.ts";
import { plural } from "../text/plural.ts";
import type { FileOperation } from "../reply/operations.ts";
import { describeSpecial } from "../file_system/lstat.ts";
import { parentFolder } from "../file_system/real_folders.ts";
import { foldCase } from "./case_fold.ts";
import { IgnoreRules } from "./ignore_rules.ts";
import { checkPathSyntax, normalizeProjectPath } from "./path_syntax.ts";
import { describeProtectedPath, protectedRulesFor } from "./protected_paths.ts";
import {
  gitDataTargets,
  linkedProtectedTargets,
  type LinkedTarget,
  linkedTargetOf,
} from "./linked_protected.ts";
import { findGitFiles } from "./gitdir_file.ts";

/** One refused path of a reply: the path as the reply wrote it, and why. */
export interface Refusal {
  readonly path: string;
  readonly reason: string;
}

/** Every operation (paths normalized: no leading `./`), or one refusal per refused one, in order. */
export type GuardResult =
  | { readonly ok: true; readonly operations: FileOperation[] }
  | { readonly ok: false; readonly refusals: Refusal[] };

type Access = "write" | "delete" | "read";

/**
 * What one guard call has looked at, shared by every path; each folder's checks are made once.
 * One lstat per entry for the whole check: the ignore rules' `entries` look at the same folders.
 */
class GuardContext {
  readonly exact: IgnoreRules;
  readonly #along = new Map<string, string | undefined>();

  constructor(rules: IgnoreRules, readonly linked: readonly LinkedTarget[]) {
    this.exact = rules.withIgnoreCase(false);
  }

  /**
   * What lies along `folder`: the reason to refuse every path in it, or undefined when every
   * folder on the way is real or missing. The topmost problem decides. Throws as `EntryKinds.kind`.
   */
  along(folder: string): string | undefined {
    if (folder === "") return undefined;
    return this.#along.getOrInsertComputed(folder, () => {
      const above = this.along(parentFolder(folder));
      if (above !== undefined) return above;
      const kind = this.exact.entries.kind(folder);
      if (kind === "symlink") {
        return `passes through \`${folder}\`, a symbolic link (a link could lead outside the ` +
          "project or to a protected file)";
      }
      if (kind === "folder" || kind === "missing") return undefined;
      return `passes through \`${folder}\`, which is not a folder`;
    });
  }
}

/**
 * Checks every operation of a reply: all of them, normalized, or one refusal per refused path (a
 * path that cannot be inspected is refused). Throws only when the ignore rules cannot load.
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
  const folders = paths.map(parentFolder);
  // Every folder's rules read at once; a failure is reported by the path's own check.
  const checked = new Set(folders.filter((_, index) => reasons[index] === undefined));
  await Promise.all(
    [...checked].map((folder) => context.exact.inFolderEitherCase(folder).catch(() => {})),
  );
  for (let index = 0; index < ops.length; index++) {
    if (reasons[index] !== undefined) continue;
    reasons[index] = await checkPath(context, paths[index], folders[index], ops[index].kind);
  }

  // The paths this reply writes as files, folded, to the path as the reply spells it.
  const writtenFiles = new Map(
    paths.filter((_, index) => ops[index].kind === "write" && reasons[index] === undefined)
      .map((path) => [foldCase(path), path]),
  );
  const refusals: Refusal[] = [];
  const operations: FileOperation[] = [];
  ops.forEach((op, index) => {
    const reason = reasons[index] ?? passesThroughWritten(folders[index], writtenFiles);
    if (reason !== undefined) refusals.push({ path: op.path, reason });
    else operations.push({ ...op, path: paths[index] });
  });
  return refusals.length > 0 ? { ok: false, refusals } : { ok: true, operations };
}

/**
 * Why the context builder may not read `path`, or undefined: the write checks, the unreadable
 * protected entries, and it must be a regular file. Throws when `rules` cannot load or are another root's.
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
  // Where a `.git` file keeps git's data is no more readable than `.git`.
  const context = new GuardContext(loaded, gitDataTargets(await findGitFiles(loaded)));
  const normalized = normalizeProjectPath(path);
  return await checkPath(context, normalized, parentFolder(normalized), "read");
}

/** Why `path` (syntax-checked) in `folder` may not be accessed, or undefined. Never rejects. */
async function checkPath(
  context: GuardContext,
  path: string,
  folder: string,
  access: Access,
): Promise<string | undefined> {
  const name = folder === "" ? path : path.slice(folder.length + 1);

  // A write is refused by any covering entry; a read by any unreadable one, even an inner one
  // (`target/` is readable, `target/.git/config` is not).
  const rules = protectedRulesFor(path);
  const rule = access === "read" ? rules.find((entry) => !entry.readable) : rules[0];
  if (rule !== undefined) {
    return `${access === "read" ? "may not be read" : "is protected"}: ${
      describeProtectedPath(rule)
    }`;
  }
  const behind = linkedTargetOf(context.linked, path);
  if (behind !== undefined && behind.how === "gitdir") {
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
    if (!(await context.exact.inFolderEitherCase(folder)).ignores(name, false)) return undefined;
    // Which ignore rule, exact or case-folded, ignores it.
    const exact = await context.exact.explain(path, false);
    const match = exact ?? await context.exact.withIgnoreCase(true).explain(path, false);
    // The two checks should agree; where they do not, the path is refused, not written.
    if (match === undefined) return "is ignored by .gitignore (no one rule could be named)";
    const what = match.path === path ? "" : ` matches the folder \`${match.path}\``;
    const how = exact === undefined
      ? " (comparing names without regard to case, as macOS and Windows do)"
      : "";
    return `is ignored by .gitignore: the rule \`${match.pattern}\` in ${match.source}${what}${how}`;
  } catch (error) {
    return `could not be checked, so it is refused: ${messageOf(error)}`;
  }
}

/** Checks what is on disk along `path`: no link, folder or special file. Throws as `EntryKinds.info`. */
function checkOnDisk(
  context: GuardContext,
  folder: string,
  path: string,
  access: Access,
): string | undefined {
  const along = context.along(folder);
  if (along !== undefined) return along;
  // Missing here or on the way: a write creates it, a read finds nothing.
  const info = context.exact.entries.info(path);
  if (info === undefined) return access === "read" ? "does not exist" : undefined;
  if (info.isSymlink) {
    return "is a symbolic link (a link could lead outside the project or to a protected file)";
  }
  if (info.isDirectory) return "names an existing folder, not a file";
  if (!info.isFile) return `names ${describeSpecial(info)}, not a regular file`;
  return undefined;
}

/** Why a path in `folder` passes through a file this reply writes (the topmost), or undefined. */
function passesThroughWritten(
  folder: string,
  writtenFiles: ReadonlyMap<string, string>,
): string | undefined {
  let reason: string | undefined;
  for (; folder !== "" && writtenFiles.size > 0; folder = parentFolder(folder)) {
    const file = writtenFiles.get(foldCase(folder));
    if (file !== undefined) {
      reason = `passes through \`${folder}\`, which this reply writes as a file (\`${file}\`)`;
    }
  }
  return reason;
}

/** Formats refusals for the user and the repair prompt: a count line, then `  <path>: <reason>`. */
export function formatRefusals(refusals: readonly Refusal[]): string {
  return [
    `refused the reply: ${plural(refusals.length, "path")} may not be written`,
    ...refusals.map((refusal) => `  ${displayPath(refusal.path)}: ${refusal.reason}`),
  ].join("\n");
}
