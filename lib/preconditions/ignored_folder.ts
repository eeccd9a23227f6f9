/**
 * Whether git's ignore rules ignore every name in a top-level folder, now and later. git does so
 * in two ways only: the folder itself is ignored (nothing inside can be re-included), or the root
 * `.gitignore` holds a rule matching every entry in it (`/agent-config/*`) with no later negation
 * that can match one, nor any in the folder's own `.gitignore` (which outranks the root one;
 * `.git/info/exclude` ranks lower). A negation not placed counts as re-including: errs to refuse.
 * @module
 */
import { type IgnoreLine, parseIgnorePatterns, readIgnoreLines } from "../guard/ignore_patterns.ts";

/** The pattern's segments: split at `/` when anchored (relative to its file's folder), else one. */
function segmentsOf(rule: IgnoreLine): readonly string[] {
  return rule.nameOnly ? [rule.pattern] : rule.pattern.split("/");
}

function segmentMatches(glob: string, name: string): boolean {
  if (glob === "") return false;
  const literal = glob.startsWith("!") || glob.startsWith("#") ? `\\${glob}` : glob;
  return parseIgnorePatterns(literal).ignores(name, false);
}

/** Whether a root `.gitignore` rule matches every entry in `folder` (`<glob>/*`, `/**`, …). */
function coversEveryEntry(rule: IgnoreLine, folder: string): boolean {
  if (rule.negated || rule.mustBeFolder || rule.nameOnly) return false;
  // Leading `**` segments dropped: each matches no folder as well as any.
  const segments = segmentsOf(rule);
  const [first, ...rest] = segments.slice(
    segments.findIndex((segment, i) => segment !== "**" || i === segments.length - 1),
  );
  const tail = rest.join("/");
  if (tail !== "*" && tail !== "**" && tail !== "**/*") return false;
  if (!segmentMatches(first, folder)) return false;
  const matcher = parseIgnorePatterns(rule.rule);
  return matcher.ignores(`${folder}/x`, false) && matcher.ignores(`${folder}/x`, true);
}

/** Whether a negation in the folder's own (`inFolder`) or the root `.gitignore` may match in it. */
function mayReinclude(rule: IgnoreLine, folder: string, inFolder: boolean): boolean {
  if (!rule.negated) return false;
  if (rule.nameOnly) return true; // a name at any depth
  const segments = segmentsOf(rule);
  if (segments.some((segment) => segment.includes("**"))) return true;
  if (inFolder) return segments.length === 1;
  return segments.length === 2 && segmentMatches(segments[0], folder);
}

/** Whether the rules ignore everything in the folder; if not, a negation at fault, when that is the cause. */
export type FolderCoverage =
  | { readonly ignored: true }
  | {
    readonly ignored: false;
    /** `file`: `.gitignore`, or the folder's own (`agent-config/.gitignore`). */
    readonly reinclude?: { readonly file: string; readonly rule: IgnoreLine };
  };

/**
 * Whether the root `.gitignore` (`rootText`), with the folder's own
 * (`folderText`, undefined when git reads none), ignores every path in the
 * top-level `folder`. Never throws.
 */
export function folderCoverage(
  folder: string,
  rootText: string,
  folderText: string | undefined,
): FolderCoverage {
  if (parseIgnorePatterns(rootText).ignores(folder, true)) return { ignored: true };

  const rootRules = readIgnoreLines(rootText);
  const lastCover = rootRules.findLastIndex((rule) => coversEveryEntry(rule, folder));
  if (lastCover < 0) return { ignored: false };
  const later = rootRules.slice(lastCover + 1).find((rule) => mayReinclude(rule, folder, false));
  if (later !== undefined) {
    return { ignored: false, reinclude: { file: ".gitignore", rule: later } };
  }
  const own = readIgnoreLines(folderText ?? "").find((rule) => mayReinclude(rule, folder, true));
  if (own !== undefined) {
    return { ignored: false, reinclude: { file: `${folder}/.gitignore`, rule: own } };
  }
  return { ignored: true };
}
