/**
 * git's ignore rules over a project, with git's own semantics (`dir.c`), so
 * that the path guard refuses exactly what `git status` would not show.
 *
 * Sources, from the highest precedence to the lowest:
 * - the `.gitignore` of every folder, the deepest first (a pattern is relative
 *   to the folder of the file it is in);
 * - `.git/info/exclude`, read only when `.git` is a real folder (in a worktree
 *   or submodule `.git` is a file, and the exclude file it points to lies
 *   outside the project).
 *
 * The user's global excludes file (`core.excludesFile`, by default
 * `~/.config/git/ignore`) is deliberately not read: it lives outside the
 * project, the tool may not read there, and it differs from one machine to
 * another. A `.gitignore` that is a symbolic link is not read either: git
 * 2.32 and later do not follow them. Nor is one inside a folder reached
 * through a symbolic link (git does not descend into those).
 *
 * The semantics: a path is ignored when one of its ancestor folders is ignored
 * (tested as a folder; the `.gitignore` files inside an ignored folder are never
 * read, so nothing there can re-include a file). Otherwise its own match
 * decides: the sources are consulted from the most specific to `info/exclude`;
 * in each, the LAST rule that matches the path itself decides (ignored for a
 * positive rule, not ignored for a `!` negation), and the first source with any
 * match wins. How one file's rules match is `ignore_patterns.ts`'s job.
 *
 * A walk asks about every entry of every folder: {@link IgnoreRules.inFolder}
 * answers for one folder's entries by name, synchronously, once the rule
 * files that apply there are read.
 *
 * @module
 */

import { FileReadError, readBounded } from "../file_system/bounded_read.ts";
import { READ_LIMITS } from "../file_system/read_limits.ts";
import { foldCase, foldLeavesAlone, isCaseNeutralText } from "./case_fold.ts";
import { type EntryKind, EntryKinds } from "./entry_kinds.ts";
import {
  type FolderPatterns,
  type IgnorePattern,
  type IgnorePatterns,
  parseIgnorePatterns,
} from "./ignore_patterns.ts";
import { normalizeProjectPath } from "./path_syntax.ts";

/** Where `git check-ignore -v` would say a path is ignored. */
export interface IgnoreMatch {
  /** The path that matched: the path asked about, or the ancestor folder that is ignored. */
  readonly path: string;
  /** The file the rule is in, relative to the project root: `.gitignore`, `src/.gitignore`, `.git/info/exclude`. */
  readonly source: string;
  /** The rule as written in that file. */
  readonly pattern: string;
}

/** Options of `IgnoreRules.load`. */
export interface IgnoreRulesOptions {
  /**
   * Compare without regard to case, the way a case-insensitive file system
   * does: both the rules and the paths are folded with `foldCase` (default
   * false: git's own, exact semantics).
   */
  readonly ignoreCase?: boolean;
}

/** One ignore file, compiled: its name relative to the root, and its rules. */
interface Source {
  readonly name: string;
  readonly rules: IgnorePatterns;
}

/** Files read once per project root and shared by the exact and the case-folded rules. */
class SourceFiles {
  readonly entries: EntryKinds;
  readonly #texts = new Map<string, Promise<string | undefined>>();

  constructor(root: string) {
    this.entries = new EntryKinds(root);
  }

  /**
   * The text of `<folder>/.gitignore`, or undefined when git would not read
   * one there. Rejects with a `CodeCommitError` (a `FileReadError` naming the
   * file) when it cannot be read, is larger than `READ_LIMITS.ignoreRules`,
   * or was swapped for something else than a regular file.
   */
  gitignore(folder: string): Promise<string | undefined> {
    return this.#cached(folder, async () => {
      if (!this.entries.isRealFolder(folder)) return undefined;
      const file = folder === "" ? ".gitignore" : `${folder}/.gitignore`;
      if (this.entries.kind(file) !== "file") return undefined; // git ≥ 2.32 does not follow symlinks
      return await this.#read(file, false);
    });
  }

  /**
   * The text of `.git/info/exclude`, or undefined when there is none in a
   * real `.git` folder. Rejects as `gitignore` does, and when a symbolic link
   * there leads to a fifo, socket or device.
   */
  exclude(): Promise<string | undefined> {
    return this.#cached(EXCLUDE_KEY, async () => {
      if (!this.entries.isRealFolder(".git/info")) return undefined;
      const kind = this.entries.kind(".git/info/exclude");
      // git follows a symbolic link here (it is not an in-tree file): so do we.
      if (kind !== "file" && kind !== "symlink") return undefined;
      return await this.#read(".git/info/exclude", true);
    });
  }

  #cached(key: string, load: () => Promise<string | undefined>): Promise<string | undefined> {
    let text = this.#texts.get(key);
    if (text === undefined) {
      text = load();
      this.#texts.set(key, text);
    }
    return text;
  }

  /**
   * The text of `file` through the bounded read (a final symbolic link
   * followed with `follow`), or undefined when it is missing or, through a
   * link, a folder (git reads nothing there either).
   */
  async #read(file: string, follow: boolean): Promise<string | undefined> {
    try {
      const bytes = await readBounded(`${this.entries.root}/${file}`, {
        limit: READ_LIMITS.ignoreRules,
        followSymlink: follow,
        name: file,
      });
      return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
    } catch (error) {
      if (error instanceof FileReadError && error.problem === "folder") return undefined;
      throw error;
    }
  }
}

/**
 * What the walk and the guard make of an entry: listed (`shown`), ignored by
 * git (`ignored`), or ignored only once names are compared without regard to
 * case (`ignored-by-case`), which the guard refuses too.
 */
export type Verdict = "shown" | "ignored" | "ignored-by-case";

/**
 * git's verdicts on the entries of one folder, by name: what
 * {@link IgnoreRules.inFolder} returns. Synchronous: every rule file it
 * needs was read when it was made.
 */
export interface FolderIgnores {
  /**
   * Whether git ignores the entry `name` (one segment) of the folder, tested
   * as a folder when `isFolder`. Never throws.
   */
  ignores(name: string, isFolder: boolean): boolean;
  /** The same question, saying how (see {@link Verdict}). Never throws. */
  verdict(name: string, isFolder: boolean): Verdict;
}

/** What a caller that just read a folder tells {@link IgnoreRules.inFolder} about it. */
export interface ListedFolder {
  /** What the folder's `.gitignore` entry is: `missing` when it holds none. */
  readonly gitignore: EntryKind;
  /**
   * The folder was found in a listing made with the same rules, as a real
   * folder: neither it nor one above it is ignored or a link. Without it,
   * nothing of `listed` is taken on trust.
   */
  readonly visible: boolean;
}

/** Everything in an ignored folder is ignored. */
const IGNORES_ALL: FolderIgnores = { ignores: () => true, verdict: () => "ignored" };

/** The sources that apply in one folder, each as it applies there: the nearest first, `info/exclude` last. */
class LevelIgnores implements FolderIgnores {
  #levels: readonly FolderPatterns[];
  readonly #fold: boolean;
  /**
   * Folding changes nothing here for a name it leaves alone: the folder's
   * path and every rule that applies are plain ASCII without capitals or
   * `[` classes.
   */
  readonly caseNeutral: boolean;
  #build: (() => readonly FolderPatterns[]) | undefined;

  /** `build` makes the levels, on first use (the folded rules are often never asked). */
  constructor(build: () => readonly FolderPatterns[], fold: boolean, caseNeutral: boolean) {
    this.#build = build;
    this.#levels = [];
    this.#fold = fold;
    this.caseNeutral = caseNeutral;
  }

  ignores(name: string, isFolder: boolean): boolean {
    if (this.#build !== undefined) {
      this.#levels = this.#build();
      this.#build = undefined;
    }
    const matched = this.#fold ? foldCase(name) : name;
    for (const level of this.#levels) {
      const match = level.lastMatch(matched, isFolder);
      if (match !== undefined) return !match.negated;
    }
    return false;
  }

  verdict(name: string, isFolder: boolean): Verdict {
    return this.ignores(name, isFolder) ? "ignored" : "shown";
  }
}

/** Ignored exactly, or once names are folded: see {@link IgnoreRules.inFolderEitherCase}. */
class EitherCase implements FolderIgnores {
  constructor(readonly exact: FolderIgnores, readonly folded: FolderIgnores) {}

  ignores(name: string, isFolder: boolean): boolean {
    return this.verdict(name, isFolder) !== "shown";
  }

  verdict(name: string, isFolder: boolean): Verdict {
    if (this.exact.ignores(name, isFolder)) return "ignored";
    // A name folding leaves alone gets the exact verdict where the rules are case-neutral.
    const exact = this.exact;
    if (exact instanceof LevelIgnores && exact.caseNeutral && foldLeavesAlone(name)) {
      return "shown";
    }
    return this.folded.ignores(name, isFolder) ? "ignored-by-case" : "shown";
  }
}

/**
 * git's ignore rules over one project (see the module doc for the exact
 * semantics and what is not read). Files are read lazily, once per folder,
 * and results for folders are cached: load one instance per batch of checks,
 * and load again after `.gitignore` files change.
 */
export class IgnoreRules {
  /** The project root. */
  readonly root: string;
  /** Whether rules and paths are compared with case folding (see `IgnoreRulesOptions`). */
  readonly ignoreCase: boolean;
  readonly #files: SourceFiles;
  /** The compiled sources being loaded or loaded, by key (a folder, or {@link EXCLUDE_KEY}). */
  readonly #sources = new Map<string, Promise<Source | undefined>>();
  /** The same, once loaded: the matching reads only these, without awaiting. */
  readonly #loaded = new Map<string, Source | undefined>();
  /** The verdicts on folders, once known (a walk asks 100,000 times). */
  readonly #folders = new Map<string, IgnoreMatch | undefined>();
  /** {@link IgnoreRules.inFolder} of each folder asked about without a listing. */
  readonly #unlistedFolders = new Map<string, Promise<FolderIgnores>>();
  #sibling: IgnoreRules | undefined;

  private constructor(files: SourceFiles, ignoreCase: boolean) {
    this.root = files.entries.root;
    this.ignoreCase = ignoreCase;
    this.#files = files;
  }

  /**
   * Loads the ignore rules of the project at `root` (the root `.gitignore` and
   * `.git/info/exclude` at once, nested `.gitignore` files when first needed).
   * Throws a `CodeCommitError` when an ignore file exists but cannot be read
   * (the guard must not guess).
   */
  static async load(root: string, options?: IgnoreRulesOptions): Promise<IgnoreRules> {
    const rules = new IgnoreRules(new SourceFiles(root), options?.ignoreCase ?? false);
    await rules.#load("");
    await rules.#load(EXCLUDE_KEY);
    return rules;
  }

  /**
   * The `lstat` results these rules looked at (and a caller checking paths of
   * the same project in the same batch, such as the guard, may share). Never throws.
   */
  get entries(): EntryKinds {
    return this.#files.entries;
  }

  /**
   * The same project's rules compared with (or without) case folding; the two
   * share the files already read. Returns `this` when `ignoreCase` already
   * matches. Never throws.
   */
  withIgnoreCase(ignoreCase: boolean): IgnoreRules {
    if (ignoreCase === this.ignoreCase) return this;
    if (this.#sibling === undefined) {
      this.#sibling = new IgnoreRules(this.#files, ignoreCase);
      this.#sibling.#sibling = this;
    }
    return this.#sibling;
  }

  /**
   * The text of `<folder>/.gitignore` (`folder` relative to the root, `""`
   * for the root), or undefined when git would read none there: the folder
   * is not a real folder, or the file is missing or not a regular file.
   * Rejects with a `CodeCommitError` when the file cannot be read.
   */
  gitignoreText(folder: string): Promise<string | undefined> {
    return this.#files.gitignore(folder);
  }

  /**
   * Whether git ignores `path` (relative to the root, `/`-separated, with
   * neither `.` nor `..` nor empty segments; one leading `./` is allowed),
   * `isDir` saying whether it is tested as a folder. Rejects with a
   * `CodeCommitError` when an ignore file cannot be read, and with a
   * `RangeError` for a path of the wrong form.
   */
  async isIgnored(path: string, isDir: boolean): Promise<boolean> {
    return (await this.explain(path, isDir)) !== undefined;
  }

  /**
   * Like `isIgnored`, but says which rule ignores the path (or the ancestor
   * folder that is ignored), as `git check-ignore -v` would; `undefined` when
   * the path is not ignored. Rejects as `isIgnored` does.
   *
   * The matching itself is synchronous ({@link IgnoreRules.#decide}); this
   * only loads, one at a time, the rule files it asks for.
   */
  async explain(path: string, isDir: boolean): Promise<IgnoreMatch | undefined> {
    const segments = splitPath(path);
    const matched = this.ignoreCase ? segments.map(foldCase) : segments;
    for (;;) {
      const verdict = this.#decide(segments, matched, isDir);
      if (!(verdict instanceof Needs)) return verdict;
      await this.#load(verdict.source);
    }
  }

  /**
   * git's verdicts on the entries of `folder` (relative to the root, `""` for
   * the root; a folder the caller found on disk), once the rule files that
   * apply there are read: the same answers as {@link IgnoreRules.isIgnored}
   * on `<folder>/<name>`, without a promise per name (a walk asks about every
   * entry). When `folder` itself or a folder above it is ignored, every entry
   * is. A caller that just read `folder`, having found it in a listing made
   * with these rules, passes `listed` with `visible`: the folder is then
   * known to be a real folder that neither is ignored nor lies in an ignored
   * one, and what its `.gitignore` entry is (`missing` when there is none),
   * which spares the checks and `lstat` calls of each. Rejects as
   * `isIgnored` does.
   */
  async inFolder(folder: string, listed?: ListedFolder): Promise<FolderIgnores> {
    const segments = folder === "" ? [] : splitPath(folder);
    if (listed?.visible !== true) {
      return await this.#unlisted(normalizeProjectPath(folder), segments);
    }
    this.#files.entries.noteListed(folder, ".gitignore", listed.gitignore);
    return await this.#levels(folder, segments);
  }

  /**
   * {@link IgnoreRules.inFolder} of `folder` (normalized; `segments` its
   * segments, when known), not known to be visible: {@link IGNORES_ALL}
   * when its parent's verdicts ignore it as a folder (they say what
   * `isIgnored` says of it, a folder above included), otherwise its own
   * levels. Remembered by folder: the guard asks about many folders side
   * by side, each parent once. Rejects as `isIgnored` does.
   */
  #unlisted(folder: string, segments?: readonly string[]): Promise<FolderIgnores> {
    let ignores = this.#unlistedFolders.get(folder);
    if (ignores === undefined) {
      ignores = (async () => {
        if (folder !== "") {
          const slash = folder.lastIndexOf("/");
          const parent = await this.#unlisted(slash < 0 ? "" : folder.slice(0, slash));
          if (parent.ignores(folder.slice(slash + 1), true)) return IGNORES_ALL;
        }
        return await this.#levels(folder, segments ?? (folder === "" ? [] : folder.split("/")));
      })();
      this.#unlistedFolders.set(folder, ignores);
    }
    return ignores;
  }

  /**
   * The verdicts on the entries of `folder` (its segments `segments`), known
   * to be neither ignored nor in an ignored folder: every rule file on the
   * way may be read, and is. Rejects as `isIgnored` does.
   */
  async #levels(folder: string, segments: readonly string[]): Promise<LevelIgnores> {
    const keys = [EXCLUDE_KEY, ""];
    for (let depth = 1; depth <= segments.length; depth++) {
      keys.push(depth === 1 ? segments[0] : `${keys[depth]}/${segments[depth - 1]}`);
    }
    for (const key of keys) if (!this.#loaded.has(key)) await this.#load(key);

    const sources = keys.map((key) => this.#loaded.get(key));
    const caseNeutral = isCaseNeutralText(folder) &&
      sources.every((source) => source?.rules.caseNeutral ?? true);
    const build = () => {
      const matched = this.ignoreCase ? segments.map(foldCase) : segments;
      const levels: FolderPatterns[] = [];
      // The nearest `.gitignore` first, each with the folder's path relative to its own.
      for (let depth = segments.length; depth >= 0; depth--) {
        const rest = depth === segments.length ? "" : `${matched.slice(depth).join("/")}/`;
        const patterns = sources[depth + 1]?.rules.inFolder(rest);
        if (patterns !== undefined) levels.push(patterns);
      }
      const exclude = sources[0]?.rules.inFolder(
        matched.length === 0 ? "" : `${matched.join("/")}/`,
      );
      if (exclude !== undefined) levels.push(exclude);
      return levels;
    };
    return new LevelIgnores(build, this.ignoreCase, caseNeutral);
  }

  /**
   * Whether git ignores each entry of `folder` exactly, or once names are
   * compared without regard to case (see `withIgnoreCase`): the question the
   * walk and the guard ask, as {@link IgnoreRules.inFolder} answers it for
   * each. Rejects as `isIgnored` does.
   */
  async inFolderEitherCase(folder: string, listed?: ListedFolder): Promise<FolderIgnores> {
    const exact = await this.withIgnoreCase(false).inFolder(folder, listed);
    if (exact === IGNORES_ALL) return IGNORES_ALL;
    return new EitherCase(exact, await this.withIgnoreCase(true).inFolder(folder, listed));
  }

  /**
   * git's verdict on the path `segments` from the sources loaded so far, or
   * the source that must be loaded first ({@link Needs}). `matched` is the
   * path as it is compared (folded, with `ignoreCase`). A path is ignored
   * when a folder above it is (tested as a folder, from the top: nothing
   * inside an ignored folder is read); otherwise its own match decides: the
   * `.gitignore` files from the nearest folder up to the root, then
   * `info/exclude`; in each, the last rule that matches decides, and the first
   * source with a match wins.
   */
  #decide(
    segments: readonly string[],
    matched: readonly string[],
    isDir: boolean,
  ): IgnoreMatch | undefined | Needs {
    if (segments.length > 1) {
      const folder = this.#folderVerdict(segments.slice(0, -1), matched.slice(0, -1));
      if (folder !== undefined) return folder;
    }
    const last = segments.length - 1;
    let key = "";
    const keys = [""];
    for (let depth = 1; depth <= last; depth++) {
      key = key === "" ? segments[depth - 1] : `${key}/${segments[depth - 1]}`;
      keys.push(key);
    }
    for (let depth = last; depth >= 0; depth--) {
      if (!this.#loaded.has(keys[depth])) return new Needs(keys[depth]);
      const source = this.#loaded.get(keys[depth]);
      if (source === undefined) continue;
      const relative = depth === 0 ? matched : matched.slice(depth);
      const match = source.rules.lastMatch(relative.join("/"), isDir);
      if (match !== undefined) return this.#verdict(segments, source, match);
    }
    if (!this.#loaded.has(EXCLUDE_KEY)) return new Needs(EXCLUDE_KEY);
    const exclude = this.#loaded.get(EXCLUDE_KEY);
    if (exclude === undefined) return undefined;
    const match = exclude.rules.lastMatch(matched.join("/"), isDir);
    return match === undefined ? undefined : this.#verdict(segments, exclude, match);
  }

  #verdict(
    segments: readonly string[],
    source: Source,
    match: IgnorePattern,
  ): IgnoreMatch | undefined {
    return match.negated
      ? undefined
      : { path: segments.join("/"), source: source.name, pattern: match.text };
  }

  /** The verdict on the folder `segments` (remembered once known), or the source it needs. */
  #folderVerdict(
    segments: readonly string[],
    matched: readonly string[],
  ): IgnoreMatch | undefined | Needs {
    const folder = segments.join("/");
    if (this.#folders.has(folder)) return this.#folders.get(folder);
    const verdict = this.#decide(segments, matched, true);
    if (!(verdict instanceof Needs)) this.#folders.set(folder, verdict);
    return verdict;
  }

  /** Loads the source `key` (a folder's `.gitignore`, or {@link EXCLUDE_KEY}); rejects as `explain`. */
  async #load(key: string): Promise<void> {
    if (this.#loaded.has(key)) return;
    let source = this.#sources.get(key);
    if (source === undefined) {
      source = this.#compile(key);
      this.#sources.set(key, source);
    }
    this.#loaded.set(key, await source);
  }

  /** Reads and compiles the rules of source `key`; undefined when git reads no file there. */
  async #compile(key: string): Promise<Source | undefined> {
    const exclude = key === EXCLUDE_KEY;
    const text = exclude ? await this.#files.exclude() : await this.#files.gitignore(key);
    if (text === undefined) return undefined;
    const name = exclude ? ".git/info/exclude" : key === "" ? ".gitignore" : `${key}/.gitignore`;
    return {
      name,
      rules: parseIgnorePatterns(this.ignoreCase ? foldCase(text) : text, this.ignoreCase),
    };
  }
}

/** What {@link IgnoreRules} must load before it can answer: the source `source`. */
class Needs {
  /** Makes the request for the source `source` (a folder, or {@link EXCLUDE_KEY}). */
  constructor(readonly source: string) {}
}

/** The key of `.git/info/exclude` among the sources (no folder can be named with a NUL). */
const EXCLUDE_KEY = "\0exclude";

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
