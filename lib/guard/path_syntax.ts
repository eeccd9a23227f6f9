/**
 * The syntax check of a path in an LLM reply, before the file system sees it: relative,
 * `/`-separated, inside the project on any operating system, naming one file in one way only.
 *
 * @module
 */

import { codePointName, findControlCharacter, findInvisibleCharacter } from "../text/characters.ts";
import { utf8Length } from "../text/tokens.ts";

/** A Windows short (8.3) name such as `BUILD~1.SH` or `GIT~1`: it can stand for another file. */
const SHORT_NAME = /~[0-9]/;

/** File systems refuse longer names (bytes of UTF-8). */
const MAX_SEGMENT_BYTES = 255;

/** Linux's PATH_MAX; longer paths cannot be opened at all. */
const MAX_PATH_BYTES = 4096;

/**
 * Why a path from an LLM reply is refused, or undefined: empty, absolute, home (`~`), `..`,
 * backslash, `:`, control, invisible or unpaired surrogate characters, empty or `.` segments
 * (one leading `./` aside), a trailing `/`, white space or `.` ending a segment, Windows short
 * names, too long. Reasons name a control character by code point. With `lengths: false` the
 * length limits are left to the file system (the applier reports its error). Never throws.
 */
export function checkPathSyntax(
  path: string,
  options: { readonly lengths?: boolean } = {},
): string | undefined {
  const lengths = options.lengths !== false;
  if (path === "") return "is empty";
  if (!path.isWellFormed()) return "is not valid Unicode (it holds a lone surrogate)";
  const control = findControlCharacter(path);
  if (control !== undefined) return `contains the control character ${codePointName(control)}`;
  const invisible = findInvisibleCharacter(path);
  if (invisible !== undefined) {
    return `contains the invisible formatting character ${codePointName(invisible)}`;
  }
  if (path.includes("\\")) {
    return "contains a backslash, which is a folder separator on Windows; use `/`";
  }
  if (path.includes(":")) {
    return "contains `:`, which on Windows makes a drive letter or an NTFS data stream";
  }
  if (path.startsWith("/")) return "is absolute; paths must be relative to the project root";
  if (lengths && utf8Length(path) > MAX_PATH_BYTES) {
    return `is longer than ${MAX_PATH_BYTES} bytes`;
  }
  const relative = normalizeProjectPath(path);
  if (relative === "") return "names the project root folder, not a file";
  if (relative.endsWith("/")) return "ends with `/`, which names a folder, not a file";
  if (relative.startsWith("~")) return "starts with `~`, which a shell reads as a home folder";
  const segments = relative.split("/");
  for (const segment of segments) {
    if (segment === "..") return "contains a `..` segment, which could lead out of the project";
    if (segment === "") return "contains an empty segment (`//`)";
    if (segment === ".") {
      return "contains a `.` segment (only one leading `./` is allowed)";
    }
  }
  for (const segment of segments) {
    if (lengths && utf8Length(segment) > MAX_SEGMENT_BYTES) {
      return `has a name longer than ${MAX_SEGMENT_BYTES} bytes`;
    }
    if (/^\s|\s$/u.test(segment)) {
      return `has the name ${
        JSON.stringify(segment)
      }, which starts or ends with white space (Windows drops it; a listing hides it)`;
    }
    if (segment.endsWith(".")) {
      return `has the name \`${segment}\`, which ends with \`.\` (Windows drops it: \`build.sh.\` is ` +
        "`build.sh`)";
    }
    if (SHORT_NAME.test(segment)) {
      return `has the name \`${segment}\`: \`~\` and a digit make a Windows short (8.3) name, which ` +
        "can stand for another file (`BUILD~1.SH` for `build.sh`)";
    }
  }
  return undefined;
}

/** `path` without one leading `./`: the form the guard checks and the applier writes. */
export function normalizeProjectPath(path: string): string {
  return path.startsWith("./") ? path.slice(2) : path;
}
