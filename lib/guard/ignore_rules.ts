/**
 * git's ignore rules over a project as `git status` applies them: every folder's `.gitignore`,
 * nearest first, then `.git/info/exclude` of a real `.git` folder. Not read: the global excludes
 * (outside the project), a `.gitignore` that is or lies behind a link (git ≥ 2.32 skips them too).
 *
 * @module
 */

import { FileReadError, readBounded } from "../file_system/bounded_read.ts";
import { READ_LIMITS } from "../file_system/read_limits.ts";
import { parentFolder } from "../file_system/real_folders.ts";
import { foldCase } from "./case_fold.ts";
import { type EntryKind, EntryKinds } from "./entry_kinds.ts";
import { type IgnorePattern, type IgnorePatterns, parseIgnorePatterns } from "./ignore_patterns.ts";
import { normalizeProjectPath } from "./path_syntax.ts";

/**
 * Where `git check-ignore -v` would say a path is ignored: the path that matched (it, or an
 * ignored folder above it), the rule's file relative to the root, and the rule as written.
 */
export interface IgnoreMatch {
  readonly path: string;
  readonly source: string;
  readonly pattern: string;
}

/** One ignore file, compiled: its name relative to the root, and its rules. */
interface Source {
  readonly name: string;
  readonly rules: IgnorePatterns;
}

/** An entry is listed, ignored by git, or ignored only once case is folded (refused too). */
export type Verdict = "shown" | "ignored" | "ignored-by-case";

/** git's verdicts on the entries of one folder, by name; synchronous (its rule files are read). */
export interface FolderIgnores {
  /** Whether git ignores the entry `name`, tested as a folder when `isFolder`. Never throws. */
  ignores(name: string, isFolder: boolean): boolean;
}

/** {@link FolderIgnores} that also say how: exactly, or only once case is folded. */
export interface EitherCaseIgnores extends FolderIgnores {
  /** The verdict on the entry `name`, tested as a folder when `isFolder`. Never throws. */
  verdict(name: string, isFolder: boolean): Verdict;
}

/** Everything in an ignored folder is ignored. */
const IGNORES_ALL = { ignores: () => true, verdict: (): Verdict => "ignored" };

/** One source as it applies in one folder: with the folder's path relative to the source's. */
type Level = Source & { readonly prefix: string };

/** The sources that apply in one folder, the nearest first, `info/exclude` last. */
class LevelIgnores implements FolderIgnores {
  constructor(readonly levels: readonly Level[], readonly fold: boolean) {}

  /** The nearest source's last rule that matches the entry `name`, and the source's name. */
  match(name: string, isFolder: boolean): { rule: IgnorePattern; source: string } | undefined {
    const matched = this.fold ? foldCase(name) : name;
    for (const { rules, prefix, name: source } of this.levels) {
      const rule = rules.lastMatch(prefix + matched, isFolder);
      if (rule !== undefined) return { rule, source };
    }
    return undefined;
  }

  ignores(name: string, isFolder: boolean): boolean {
    return this.match(name, isFolder)?.rule.negated === false;
  }
}

/**
 * git's ignore rules over one project. Files are read lazily, once each, and folder verdicts are
 * cached: load one instance per batch of checks, again after `.gitignore` files change.
 */
export class IgnoreRules {
  readonly root: string;
  /** Whether rules and paths are both folded with `foldCase`, as a case-insensitive system does. */
  readonly ignoreCase: boolean;
  /** The `lstat` results these rules looked at, for a caller of the same batch to share. */
  readonly entries: EntryKinds;
  /** Each rule file's text, read once per project root and shared with the case-folded sibling. */
  readonly #texts: Map<string, Promise<string | undefined>>;
  /** The compiled sources by key (a folder, or {@link EXCLUDE_KEY}). */
  readonly #sources = new Map<string, Promise<Source | undefined>>();
  /** Each folder's verdicts, once its rule files are read, for `explain` and unlisted folders. */
  readonly #levelsOf = new Map<string, Promise<LevelIgnores>>();
  readonly #folders = new Map<string, Promise<FolderIgnores>>();
  #sibling: IgnoreRules | undefined;

  private constructor(
    entries: EntryKinds,
    texts: Map<string, Promise<string | undefined>>,
    ignoreCase: boolean,
  ) {
    this.root = entries.root;
    this.entries = entries;
    this.#texts = texts;
    this.ignoreCase = ignoreCase;
  }

  /**
   * Loads the ignore rules of the project at `root` (nested `.gitignore` files when needed).
   * Throws a `CodeCommitError` when an ignore file exists but cannot be read (no guessing).
   */
  static async load(root: string, options?: { ignoreCase?: boolean }): Promise<IgnoreRules> {
    const rules = new IgnoreRules(new EntryKinds(root), new Map(), options?.ignoreCase ?? false);
    await rules.#source("");
    await rules.#source(EXCLUDE_KEY);
    return rules;
  }

  /** The same project's rules with (or without) case folding, sharing the files read. */
  withIgnoreCase(ignoreCase: boolean): IgnoreRules {
    if (ignoreCase === this.ignoreCase) return this;
    if (this.#sibling === undefined) {
      this.#sibling = new IgnoreRules(this.entries, this.#texts, ignoreCase);
      this.#sibling.#sibling = this;
    }
    return this.#sibling;
  }

  /** The text of `<folder>/.gitignore`, or undefined when git reads none. Rejects when unreadable. */
  gitignoreText(folder: string): Promise<string | undefined> {
    return this.#text(folder);
  }

  /** The text of source `key`, read once per project; undefined when git reads none there. */
  #text(key: string): Promise<string | undefined> {
    return this.#texts.getOrInsertComputed(key, async () => {
      const exclude = key === EXCLUDE_KEY;
      if (!this.entries.isRealFolder(exclude ? ".git/info" : key)) return undefined;
      const file = sourceName(key);
      const kind = this.entries.kind(file);
      // git ≥ 2.32 does not follow a link to a `.gitignore`; it follows one at `.git/info/exclude`
      // (not an in-tree file): so do we.
      if (kind !== "file" && !(exclude && kind === "symlink")) return undefined;
      try {
        const bytes = await readBounded(`${this.root}/${file}`, {
          limit: READ_LIMITS.ignoreRules,
          followSymlink: exclude,
          name: file,
        });
        return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
      } catch (error) {
        // Through a link, a folder: no rules.
        if (error instanceof FileReadError && error.problem === "folder") return undefined;
        throw error;
      }
    });
  }

  /**
   * Whether git ignores `path` (relative, normalized; one leading `./` allowed), tested as a
   * folder when `isDir`. Rejects with a `CodeCommitError` for an unreadable ignore file, a
   * `RangeError` for a path of the wrong form.
   */
  async isIgnored(path: string, isDir: boolean): Promise<boolean> {
    return (await this.explain(path, isDir)) !== undefined;
  }

  /**
   * Like `isIgnored`, but says which rule ignores the path, as `git check-ignore -v` would: from
   * the top, a folder that is ignored hides everything in it; else the path's own match decides.
   */
  async explain(path: string, isDir: boolean): Promise<IgnoreMatch | undefined> {
    const segments = splitPath(path);
    for (let depth = 0; depth < segments.length; depth++) {
      const folder = segments.slice(0, depth);
      const levels = await this.#levels(folder.join("/"), folder);
      const found = levels.match(segments[depth], depth < segments.length - 1 || isDir);
      if (found === undefined || found.rule.negated) continue;
      const matched = segments.slice(0, depth + 1).join("/");
      return { path: matched, source: found.source, pattern: found.rule.text };
    }
    return undefined;
  }

  /**
   * git's verdicts on the entries of `folder` (`""` the root): {@link IgnoreRules.isIgnored}'s
   * answers without a promise per name. `gitignore`, the kind of its `.gitignore` entry, is given
   * only for a folder a listing with these rules showed (neither ignored nor under a link): nothing
   * else is trusted. Rejects as `isIgnored`.
   */
  async inFolder(folder: string, gitignore?: EntryKind): Promise<FolderIgnores> {
    const segments = folder === "" ? [] : splitPath(folder);
    const key = normalizeProjectPath(folder);
    if (gitignore !== undefined) {
      this.entries.noteListed(folder, ".gitignore", gitignore);
      // A listed folder is not ignored. Not kept: a walk visits each folder once, and keeping
      // every folder's verdicts would hold kilobytes per folder for the walk's whole life.
      return await this.#readLevels(segments);
    }
    // Cached; ignored whole when its parent ignores it.
    return await this.#folders.getOrInsertComputed(key, async () => {
      if (key !== "") {
        const parent = await this.inFolder(parentFolder(key));
        if (parent.ignores(key.slice(key.lastIndexOf("/") + 1), true)) return IGNORES_ALL;
      }
      return await this.#levels(key, segments);
    });
  }

  /** The verdicts in `folder`, known not to be ignored: every rule file on the way is read. */
  #levels(folder: string, segments: readonly string[]): Promise<LevelIgnores> {
    return this.#levelsOf.getOrInsertComputed(folder, () => this.#readLevels(segments));
  }

  async #readLevels(segments: readonly string[]): Promise<LevelIgnores> {
    const keys = [EXCLUDE_KEY, ""];
    for (let depth = 1; depth <= segments.length; depth++) {
      keys.push(depth === 1 ? segments[0] : `${keys[depth]}/${segments[depth - 1]}`);
    }
    const sources: (Source | undefined)[] = [];
    for (const key of keys) sources.push(await this.#source(key));
    const matched = this.ignoreCase ? segments.map(foldCase) : segments;
    const levels: Level[] = [];
    // The nearest `.gitignore` first, each with the folder's path relative to its own.
    for (let depth = segments.length; depth >= -1; depth--) {
      const source = sources[depth + 1]; // -1: `info/exclude`, with the folder's whole path
      const prefix = matched.slice(Math.max(depth, 0)).map((segment) => `${segment}/`).join("");
      if (source !== undefined) {
        levels.push({ ...source, rules: source.rules.under(prefix), prefix });
      }
    }
    return new LevelIgnores(levels, this.ignoreCase);
  }

  /** Whether git ignores each entry of `folder` exactly, or once case is folded. Rejects as `isIgnored`. */
  async inFolderEitherCase(folder: string, gitignore?: EntryKind): Promise<EitherCaseIgnores> {
    const exact = await this.withIgnoreCase(false).inFolder(folder, gitignore);
    if (exact === IGNORES_ALL) return IGNORES_ALL;
    const folded = await this.withIgnoreCase(true).inFolder(folder, gitignore);
    const verdict = (name: string, isFolder: boolean): Verdict =>
      exact.ignores(name, isFolder)
        ? "ignored"
        : folded.ignores(name, isFolder)
        ? "ignored-by-case"
        : "shown";
    return { verdict, ignores: (name, isFolder) => verdict(name, isFolder) !== "shown" };
  }

  /** The compiled rules of source `key`, read once; undefined when git reads no file there. */
  #source(key: string): Promise<Source | undefined> {
    return this.#sources.getOrInsertComputed(key, () => this.#compile(key));
  }

  /** Reads and compiles the rules of source `key`; rejects as `explain`. */
  async #compile(key: string): Promise<Source | undefined> {
    const text = await this.#text(key);
    if (text === undefined) return undefined;
    return {
      name: sourceName(key),
      rules: parseIgnorePatterns(this.ignoreCase ? foldCase(text) : text, this.ignoreCase),
    };
  }
}

/** The key of `.git/info/exclude` among the sources (no folder can be named with a NUL). */
const EXCLUDE_KEY = "\0exclude";

/** The file of source `key`, relative to the root. */
function sourceName(key: string): string {
  return key === EXCLUDE_KEY
    ? ".git/info/exclude"
    : key === ""
    ? ".gitignore"
    : `${key}/.gitignore`;
}

/** Splits a project path into segments; throws a RangeError for a path of the wrong form. */
function splitPath(path: string): string[] {
  const relative = normalizeProjectPath(path);
  const segments = relative.split("/");
  if (relative === "" || segments.some((s) => s === "" || s === "." || s === "..")) {
    throw new RangeError(
      `IgnoreRules: ${
        JSON.stringify(path)
      } is not a project path (relative, \`/\`-separated, without \`.\`, \`..\` or empty segments)`,
    );
  }
  return segments;
}
