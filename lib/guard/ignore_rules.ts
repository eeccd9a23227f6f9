/**
 * git's ignore rules over a project, with git's own semantics (`dir.c`), so
 * that the path guard refuses exactly what `git status` would not show
 * (SPEC decision 6).
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
 * match wins.
 *
 * @module
 */

import ignore from "ignore";
import { CodeCommitError, messageOf } from "../errors/errors.ts";
import { FileReadError, readBounded } from "../file_system/bounded_read.ts";
import { READ_LIMITS } from "../file_system/read_limits.ts";
import { foldCase } from "./case_fold.ts";
import { EntryKinds } from "./entry_kinds.ts";
import { normalizeProjectPath } from "./path_syntax.ts";

type Ignore = ReturnType<typeof ignore>;

/** Where `git check-ignore -v` would say a path is ignored. */
export interface IgnoreMatch {
  /** The path that matched: the path asked about, or the ancestor folder that is ignored. */
  readonly path: string;
  /** The file the rule is in, relative to the project root: `.gitignore`, `src/.gitignore`, `.git/info/exclude`. */
  readonly source: string;
  /** The rule as written in that file. */
  readonly pattern: string;
}

/** The result of matching one path against one source: the last rule that matched. */
interface LevelMatch {
  readonly negated: boolean;
  readonly pattern: string;
}

/** The slice of the `ignore` package's private `RuleManager` used here. */
interface PrivateRuleManager {
  test(path: string, mode: "regex"): {
    ignored: boolean;
    unignored: boolean;
    rule?: { pattern: string };
  };
}

/**
 * Matches `path` against the rules of ONE source, without regard to its
 * parent folders: the last rule that matches the path itself decides.
 *
 * Why the private access: the package's public `test()`/`ignores()` fold in
 * the results of the path's parent folders against the same rules, which is
 * right for one `.gitignore` but wrong across several (root `.gitignore` has
 * `a/b/`, `a/.gitignore` has `!b/`: git does not ignore `a/b/c`, because the
 * nearer source re-includes `a/b` before the root one is consulted). The
 * package's internal `RuleManager.test(path, "regex")` is exactly the
 * single-level, last-rule-wins match git's `last_matching_pattern_from_list`
 * performs. The version is pinned in deno.lock, and `checkPackageShape` below
 * verifies on first use that this behaviour is still there.
 */
function matchOneLevel(rules: Ignore, path: string): LevelMatch | undefined {
  const manager = (rules as unknown as { _rules: PrivateRuleManager })._rules;
  const result = manager.test(path, "regex");
  if (result.ignored) return { negated: false, pattern: result.rule?.pattern ?? "" };
  if (result.unignored) return { negated: true, pattern: "" };
  return undefined;
}

let packageShapeError: string | undefined | null = null;

/**
 * Checks once that the `ignore` package still has the private single-level
 * matcher `matchOneLevel` relies on and that it behaves as expected. Throws a
 * `CodeCommitError` saying what changed.
 */
function checkPackageShape(): void {
  if (packageShapeError === null) {
    packageShapeError = findPackageShapeProblem();
  }
  if (packageShapeError !== undefined) {
    throw new CodeCommitError(
      `the \`ignore\` package no longer has the shape lib/guard/ignore_rules.ts relies on ` +
        `(${packageShapeError}); restore npm:ignore@7.0.16 as pinned in deno.lock, or adapt ` +
        "matchOneLevel in lib/guard/ignore_rules.ts",
    );
  }
}

function findPackageShapeProblem(): string | undefined {
  try {
    const rules = ignore({ ignorecase: false }).add(["a/", "!a/b", "*.log"]);
    const manager = (rules as unknown as { _rules?: { test?: unknown } })._rules;
    if (typeof manager?.test !== "function") return "`_rules.test` is not a function";
    const expect = (path: string, want: "ignored" | "negated" | "none") => {
      const got = matchOneLevel(rules, path);
      const verdict = got === undefined ? "none" : got.negated ? "negated" : "ignored";
      if (verdict !== want) throw new Error(`\`${path}\` matched as ${verdict}, not ${want}`);
    };
    expect("a/", "ignored");
    expect("x/a/", "ignored");
    expect("a", "none"); // `a/` matches folders only
    expect("a/c", "none"); // single level: the ignored parent is not folded in
    expect("a/b", "negated");
    expect("a/b/c.log", "ignored");
    if (matchOneLevel(rules, "a/")?.pattern !== "a/") return "the matching rule is not reported";
    const folded = ignore({ ignorecase: true }).add("FOO");
    if (matchOneLevel(folded, "foo") === undefined) return "`ignorecase: true` has no effect";
    return undefined;
  } catch (error) {
    return messageOf(error);
  }
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

interface Source {
  readonly name: string;
  readonly rules: Ignore;
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
      if (!(await this.entries.isRealFolder(folder))) return undefined;
      const file = folder === "" ? ".gitignore" : `${folder}/.gitignore`;
      if ((await this.entries.kind(file)) !== "file") return undefined; // git ≥ 2.32 does not follow symlinks
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
      if (!(await this.entries.isRealFolder(".git/info"))) return undefined;
      const kind = await this.entries.kind(".git/info/exclude");
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
   * (the guard must not guess), or when the `ignore` package is not the
   * version this module was written against.
   */
  static async load(root: string, options?: IgnoreRulesOptions): Promise<IgnoreRules> {
    checkPackageShape();
    const rules = new IgnoreRules(new SourceFiles(root), options?.ignoreCase ?? false);
    await rules.#load("");
    await rules.#load(EXCLUDE_KEY);
    return rules;
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
    for (;;) {
      const verdict = this.#decide(segments, isDir);
      if (!(verdict instanceof Needs)) return verdict;
      await this.#load(verdict.source);
    }
  }

  /**
   * git's verdict on the path `segments` from the sources loaded so far, or
   * the source that must be loaded first ({@link Needs}). A path is ignored
   * when a folder above it is (tested as a folder, from the top: nothing
   * inside an ignored folder is read); otherwise its own match decides: the
   * `.gitignore` files from the nearest folder up to the root, then
   * `info/exclude`; in each, the last rule that matches decides, and the first
   * source with a match wins.
   */
  #decide(segments: readonly string[], isDir: boolean): IgnoreMatch | undefined | Needs {
    if (segments.length > 1) {
      const folder = this.#folderVerdict(segments.slice(0, -1));
      if (folder !== undefined) return folder;
    }
    const path = segments.join("/");
    const suffix = isDir ? "/" : "";
    const folders = [""];
    let folder = "";
    for (let depth = 1; depth < segments.length; depth++) {
      folder = folder === "" ? segments[depth - 1] : `${folder}/${segments[depth - 1]}`;
      folders.push(folder);
    }
    for (let depth = segments.length - 1; depth >= 0; depth--) {
      if (!this.#loaded.has(folders[depth])) return new Needs(folders[depth]);
      const source = this.#loaded.get(folders[depth]);
      if (source === undefined) continue;
      const match = this.#match(source, segments.slice(depth).join("/") + suffix);
      if (match !== undefined) {
        return match.negated ? undefined : { path, source: source.name, pattern: match.pattern };
      }
    }
    if (!this.#loaded.has(EXCLUDE_KEY)) return new Needs(EXCLUDE_KEY);
    const exclude = this.#loaded.get(EXCLUDE_KEY);
    if (exclude === undefined) return undefined;
    const match = this.#match(exclude, path + suffix);
    if (match === undefined || match.negated) return undefined;
    return { path, source: exclude.name, pattern: match.pattern };
  }

  /** The verdict on the folder `segments` (remembered once known), or the source it needs. */
  #folderVerdict(segments: readonly string[]): IgnoreMatch | undefined | Needs {
    const folder = segments.join("/");
    if (this.#folders.has(folder)) return this.#folders.get(folder);
    const verdict = this.#decide(segments, true);
    if (!(verdict instanceof Needs)) this.#folders.set(folder, verdict);
    return verdict;
  }

  #match(source: Source, relative: string): LevelMatch | undefined {
    return matchOneLevel(source.rules, this.ignoreCase ? foldCase(relative) : relative);
  }

  /** Loads the source `key` (a folder's `.gitignore`, or {@link EXCLUDE_KEY}); rejects as `explain`. */
  async #load(key: string): Promise<void> {
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
    const rules = ignore({ ignorecase: this.ignoreCase }).add(
      this.ignoreCase ? foldCase(text) : text,
    );
    return { name, rules };
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
