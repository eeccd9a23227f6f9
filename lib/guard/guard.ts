/**
 * The path guard: decides, before anything is written, whether each path of
 * an LLM reply may be written or deleted (SPEC decisions 6 and 7), and whether
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
import { describeProtectedPath, protectedRulesFor } from "./protected_paths.ts";
import { linkedProtectedTargets, type LinkedTarget, linkedTargetOf } from "./linked_protected.ts";

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

/** What one guard call has looked at: lstat results and ignore rules, shared by every path. */
class GuardContext {
  readonly entries: EntryKinds;
  readonly exact: IgnoreRules;
  readonly folded: IgnoreRules;
  /** Where protected links lead (a reply's writes and deletes only). */
  readonly linked: readonly LinkedTarget[];
  /** Each folder's verdicts on its entries (a reply writes many files per folder). */
  readonly #folders = new Map<string, Promise<FolderIgnores>>();
  /** Each path's syntax check, once (the folders' rules are read before the paths are checked). */
  readonly #syntax = new Map<string, string | undefined>();

  constructor(rules: IgnoreRules, linked: readonly LinkedTarget[] = []) {
    // One lstat per entry for the whole check: the ignore rules look at the same folders.
    this.entries = rules.entries;
    this.exact = rules.withIgnoreCase(false);
    this.folded = rules.withIgnoreCase(true);
    this.linked = linked;
  }

  /**
   * Reads, all at once, the ignore rules of the folders `paths` lie in (a
   * reply's paths lie in many folders, each with `.gitignore` files to read
   * on the way): the checks that follow, one path at a time, then find them
   * read. What cannot be read is left for the check of the path that needs
   * it, which reports it. Never rejects.
   */
  async readRulesFor(paths: readonly string[]): Promise<void> {
    const folders = new Set<string>();
    for (const path of paths) {
      if (this.syntax(path) !== undefined) continue;
      const normalized = normalizeProjectPath(path);
      const slash = normalized.lastIndexOf("/");
      folders.add(slash < 0 ? "" : normalized.slice(0, slash));
    }
    await Promise.all([...folders].map((folder) => this.inFolder(folder).catch(() => {})));
  }

  /** Why the syntax check refuses `path`, or undefined: `checkPathSyntax`, once per path. */
  syntax(path: string): string | undefined {
    if (this.#syntax.has(path)) return this.#syntax.get(path);
    const problem = checkPathSyntax(path);
    this.#syntax.set(path, problem);
    return problem;
  }

  /** git's verdicts, exact and case-folded, on the entries of `folder`. Rejects as `inFolder`. */
  inFolder(folder: string): Promise<FolderIgnores> {
    let ignores = this.#folders.get(folder);
    if (ignores === undefined) {
      ignores = this.exact.inFolderEitherCase(folder);
      ignores.catch(() => {}); // the caller that asked handles it
      this.#folders.set(folder, ignores);
    }
    return ignores;
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
 * is a symbolic link leads to (`build.sh` → `ci/build.sh`), resolved once
 * per call. Throws only when the ignore rules cannot be loaded at all
 * (`IgnoreRules.load`).
 */
export async function guardOperations(
  root: string,
  ops: readonly FileOperation[],
): Promise<GuardResult> {
  const linked = linkedProtectedTargets(root);
  const context = new GuardContext(await IgnoreRules.load(root), linked);
  await context.readRulesFor(ops.map((op) => op.path));

  const reasons: (string | undefined)[] = [];
  for (const op of ops) reasons.push(await checkPath(context, op.path, op.kind));

  // The (folded) paths this reply may write as files: no other path of the
  // same reply can pass through one of them as a folder.
  const writtenFiles = new Map<string, string>();
  ops.forEach((op, index) => {
    if (op.kind === "write" && reasons[index] === undefined) {
      const path = normalizeProjectPath(op.path);
      writtenFiles.set(foldCase(path), path);
    }
  });

  const refusals: Refusal[] = [];
  const operations: FileOperation[] = [];
  ops.forEach((op, index) => {
    const path = normalizeProjectPath(op.path);
    const reason = reasons[index] ?? conflictWithReply(path, writtenFiles);
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
 * (`.git`, `agent-config/`, ...), and the path must name an existing regular
 * file. Returns the reason it is refused, or `undefined` when it may be read.
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
  const context = new GuardContext(rules ?? await IgnoreRules.load(root));
  return await checkPath(context, path, "read");
}

/** The reason `path` may not be accessed, or undefined. Never throws. */
async function checkPath(
  context: GuardContext,
  original: string,
  access: Access,
): Promise<string | undefined> {
  const syntax = context.syntax(original);
  if (syntax !== undefined) return syntax;
  const path = normalizeProjectPath(original);

  // A write is refused by any covering entry; a read by any unreadable one, even an inner one
  // (`target/` is readable, `target/.git/config` is not).
  const rules = protectedRulesFor(path);
  const rule = access === "read" ? rules.find((entry) => !entry.readable) : rules[0];
  if (rule !== undefined) {
    return `${access === "read" ? "may not be read" : "is protected"}: ${
      describeProtectedPath(rule)
    }`;
  }
  const behind = access === "read" ? undefined : linkedTargetOf(context.linked, path);
  if (behind !== undefined) {
    return `is protected: \`${behind.entry}\` is a symbolic link that leads to \`${behind.path}\`, ` +
      `so writing or deleting here changes it: ${describeProtectedPath(behind.rule)}`;
  }

  try {
    const onDisk = await checkOnDisk(context.entries, path, access);
    if (onDisk !== undefined) return onDisk;
    return await checkIgnored(context, path);
  } catch (error) {
    return `could not be checked, so it is refused: ${messageOf(error)}`;
  }
}

/** Checks what is on disk along `path`: no symbolic link, no special file, no folder. */
async function checkOnDisk(
  entries: EntryKinds,
  path: string,
  access: Access,
): Promise<string | undefined> {
  const segments = path.split("/");
  for (let depth = 1; depth < segments.length; depth++) {
    const prefix = segments.slice(0, depth).join("/");
    const kind = await entries.kind(prefix);
    if (kind === "missing") {
      return access === "read" ? "does not exist" : undefined;
    }
    if (kind === "symlink") {
      return `passes through \`${prefix}\`, a symbolic link (a link could lead outside the ` +
        "project or to a protected file)";
    }
    if (kind !== "folder") return `passes through \`${prefix}\`, which is not a folder`;
  }
  const info = await entries.info(path);
  if (info === undefined) return access === "read" ? "does not exist" : undefined;
  if (info.isSymlink) {
    return "is a symbolic link (a link could lead outside the project or to a protected file)";
  }
  if (info.isDirectory) return "names an existing folder, not a file";
  if (!info.isFile) return `names ${describeSpecial(info)}, not a regular file`;
  return undefined;
}

/** Checks git's ignore rules, exact and case-folded. */
async function checkIgnored(context: GuardContext, path: string): Promise<string | undefined> {
  // The folder's verdicts answer at once; only a path that is ignored asks which rule.
  const slash = path.lastIndexOf("/");
  const ignores = await context.inFolder(slash < 0 ? "" : path.slice(0, slash));
  if (!ignores.ignores(path.slice(slash + 1), false)) return undefined;
  const exact = await context.exact.explain(path, false);
  const match = exact ?? await context.folded.explain(path, false);
  if (match === undefined) return undefined;
  const what = match.path === path ? "" : ` matches the folder \`${match.path}\``;
  const how = exact === undefined
    ? " (comparing names without regard to case, as macOS and Windows do)"
    : "";
  return `is ignored by .gitignore: the rule \`${match.pattern}\` in ${match.source}${what}${how}`;
}

/** A path that passes through a file this same reply writes. */
function conflictWithReply(path: string, writtenFiles: Map<string, string>): string | undefined {
  // Folding keeps every `/` where it is: the folded path's prefixes are the prefixes' folds.
  const folded = foldCase(path);
  for (let slash = folded.indexOf("/"); slash >= 0; slash = folded.indexOf("/", slash + 1)) {
    const file = writtenFiles.get(folded.slice(0, slash));
    if (file !== undefined) {
      const depth = folded.slice(0, slash).split("/").length;
      const prefix = path.split("/").slice(0, depth).join("/");
      return `passes through \`${prefix}\`, which this reply writes as a file (\`${file}\`)`;
    }
  }
  return undefined;
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
