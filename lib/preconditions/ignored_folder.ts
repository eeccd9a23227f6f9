/**
 * Whether git's ignore rules ignore everything in a top-level folder — every
 * name, now and later — decided from the rules themselves, not from the
 * files there today: the check that `.gitignore` keeps all of
 * `agent-config/` out of git. Pure: no I/O.
 *
 * git ignores every path in the folder in exactly two ways:
 * 1. The folder itself is ignored (`/agent-config`, `agent-config/`, `*`,
 *    `/agent-*`, …). git then never looks inside: no rule, in no
 *    `.gitignore`, can re-include anything there.
 * 2. Every entry directly in it is ignored, as a file and as a folder (an
 *    ignored folder entry hides all below it). The root `.gitignore` must
 *    then hold a rule that matches every such entry (`/agent-config/*`,
 *    `/agent-config/**`, either after leading `**` segments) with no
 *    negation after it that can match one (a later `!/agent-config/x` or
 *    `!*.md` re-includes those names); and the folder's own `.gitignore`,
 *    which git reads even when it is ignored itself and which outranks the
 *    root one, must hold no negation that can match one.
 *
 * `.git/info/exclude` ranks below the root `.gitignore`: once the root
 * `.gitignore` ignores the folder or every entry in it, nothing there can
 * change that, so the decision needs only these two files.
 *
 * Case 1 is decided by git's own matching (`lib/guard/ignore_patterns.ts`). Case 2 is
 * exact for every rule the analysis can place; a negation it cannot place
 * (a `**` inside an anchored path, say) counts as one that re-includes, and
 * a covering rule of another form does not count, so the check errs only
 * towards refusing.
 *
 * @module
 */
import { parseIgnorePatterns, readIgnoreLines } from "../guard/ignore_patterns.ts";

/** One rule of a `.gitignore`, as git reads its line. */
export interface IgnoreRuleLine {
  /** 1-based line number in its file. */
  readonly line: number;
  /** The rule as written, trailing white space git drops removed. */
  readonly text: string;
  /** A `!` rule: it re-includes what it matches. */
  readonly negated: boolean;
  /** A rule ending in `/`: it matches folders only. */
  readonly folderOnly: boolean;
  /**
   * The pattern without `!`, the trailing `/` and a leading `/`, split at
   * `/` when it is anchored (it held a `/` other than a trailing one); one
   * segment, matched against the name at any depth, when it is not.
   */
  readonly segments: readonly string[];
  /** Whether the pattern is relative to its file's folder (it held a `/` other than a trailing one). */
  readonly anchored: boolean;
}

/**
 * Reads the rules of a `.gitignore` text as git does, with the matcher's
 * reader ({@link readIgnoreLines}). Never throws.
 */
function parseIgnoreRules(text: string): IgnoreRuleLine[] {
  return readIgnoreLines(text).map((read) => ({
    line: read.line,
    text: read.rule,
    negated: read.negated,
    folderOnly: read.mustBeFolder,
    segments: read.nameOnly ? [read.pattern] : read.pattern.split("/"),
    anchored: !read.nameOnly,
  }));
}

/** Whether the one-segment glob `glob` matches the name `name`, by git's matching. */
function segmentMatches(glob: string, name: string): boolean {
  if (glob === "") return false;
  const literal = glob.startsWith("!") || glob.startsWith("#") ? `\\${glob}` : glob;
  return parseIgnorePatterns(literal).ignores(name, false);
}

/** Drops the leading `**` segments (each matches no folder as well as any). */
function withoutLeadingStars(segments: readonly string[]): readonly string[] {
  let start = 0;
  while (start < segments.length - 1 && segments[start] === "**") start++;
  return segments.slice(start);
}

/**
 * Whether a rule of the root `.gitignore` matches every entry directly in
 * the top-level `folder`, files and folders alike: a positive, anchored rule
 * whose path is a glob matching `folder`, then `*`, `**` or `**` and `*`
 * (after any leading `**` segments). Checked against git's matching too,
 * so a form it reads otherwise does not count. Never throws.
 */
function coversEveryEntry(rule: IgnoreRuleLine, folder: string): boolean {
  if (rule.negated || rule.folderOnly || !rule.anchored) return false;
  const [first, ...rest] = withoutLeadingStars(rule.segments);
  const tail = rest.join("/");
  if (tail !== "*" && tail !== "**" && tail !== "**/*") return false;
  if (!segmentMatches(first, folder)) return false;
  const matcher = parseIgnorePatterns(rule.text);
  return matcher.ignores(`${folder}/x`, false) && matcher.ignores(`${folder}/x`, true);
}

/**
 * Whether a negation may match some entry directly in the top-level
 * `folder`: a path one level below the folder of the file the rule is in
 * (`inFolder`: the folder's own `.gitignore`) or two levels below the root
 * (the root `.gitignore`). Errs towards yes. Never throws.
 */
function mayReinclude(rule: IgnoreRuleLine, folder: string, inFolder: boolean): boolean {
  if (!rule.negated) return false;
  if (!rule.anchored) return true; // a name at any depth
  if (rule.segments.some((segment) => segment.includes("**"))) return true;
  if (inFolder) return rule.segments.length === 1;
  return rule.segments.length === 2 && segmentMatches(rule.segments[0], folder);
}

/** Whether the rules ignore everything in the folder, and if not, a rule that re-includes something. */
export type FolderCoverage =
  | {
    /** Every path in the folder is ignored. */
    readonly ignored: true;
  }
  | {
    /** Some path in the folder is not ignored (or may not be). */
    readonly ignored: false;
    /** A negation that re-includes (or may re-include) something in it, when that is the cause. */
    readonly reinclude?: {
      /** The file the rule is in: `.gitignore`, or the folder's own (`agent-config/.gitignore`). */
      readonly file: string;
      /** The rule. */
      readonly rule: IgnoreRuleLine;
    };
  };

/**
 * Decides whether the root `.gitignore` (`rootText`), with the folder's own
 * `.gitignore` (`folderText`, undefined when git reads none), ignores every
 * path in the top-level folder `folder`, e.g. `agent-config` (see the module
 * doc). Never throws.
 */
export function folderCoverage(
  folder: string,
  rootText: string,
  folderText: string | undefined,
): FolderCoverage {
  if (parseIgnorePatterns(rootText).ignores(folder, true)) return { ignored: true };

  const rootRules = parseIgnoreRules(rootText);
  const lastCover = rootRules.findLastIndex((rule) => coversEveryEntry(rule, folder));
  if (lastCover < 0) return { ignored: false };
  const later = rootRules.slice(lastCover + 1).find((rule) => mayReinclude(rule, folder, false));
  if (later !== undefined) {
    return { ignored: false, reinclude: { file: ".gitignore", rule: later } };
  }
  const own = parseIgnoreRules(folderText ?? "").find((rule) => mayReinclude(rule, folder, true));
  if (own !== undefined) {
    return { ignored: false, reinclude: { file: `${folder}/.gitignore`, rule: own } };
  }
  return { ignored: true };
}
