/**
 * A contained build that failed because the sandbox refused it something
 * outside the project: a write to a read-only file system (`EROFS`,
 * `Read-only file system`) or a permission denied (`EACCES`, `Permission
 * denied`, `EPERM`, `Operation not permitted`) on an absolute path outside
 * the project, named in its output.
 * No change to the code can fix that, so no repair is asked for. A refused
 * path inside the project (`build.sh`, `.git`, a protected file the sandbox
 * made read-only) is not one of these: a build that writes there is a
 * build the model broke, and a repair can fix it. Pure.
 *
 * @module
 */
import { posix } from "node:path";
import { stripAnsi } from "../text/ansi.ts";

/**
 * A line that reports a refusal by the file system: bubblewrap's read-only
 * mounts give `EROFS`, a path a build may not reach `EACCES`, and macOS's
 * sandbox-exec `EPERM` (`Operation not permitted`).
 */
const REFUSAL =
  /\bEROFS\b|read-only file system|\bEACCES\b|permission denied|\bEPERM\b|operation not permitted/i;

/** Absolute paths on a line: quoted (`'/root/.npm'`) or bare (`/root/x: Permission denied`). */
const QUOTED_PATH = /['"‘`](\/[^'"’`\n]*)['"’`]/g;
const BARE_PATH = /(?:^|[\s=(])(\/[^\s:'"(),]+)/g;

/** Lines of output looked at: a refusal is reported where it happens, not a million lines on. */
const MAX_LINES = 200_000;

/** A refusal outside the project found in a build's output. */
export interface OutsideRefusal {
  /** The absolute path refused. */
  readonly path: string;
  /** The line that reports it (escape sequences removed, at most 300 characters). */
  readonly line: string;
}

/**
 * The first line of `output` that reports a read-only file system or a
 * permission denied on an absolute path outside every one of `roots` (the
 * project root as given and as resolved), or `undefined`. Never throws.
 */
export function findOutsideRefusal(
  output: string,
  roots: readonly string[],
): OutsideRefusal | undefined {
  const inside = (path: string) =>
    roots.some((root) => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`));
  const lines = stripAnsi(output).split("\n", MAX_LINES);
  for (const line of lines) {
    if (!REFUSAL.test(line)) continue;
    for (const path of absolutePaths(line)) {
      const normal = posix.normalize(path).replace(/(.)\/$/, "$1");
      if (!inside(normal)) {
        const shown = line.trim();
        return { path: normal, line: shown.length > 300 ? `${shown.slice(0, 300)}…` : shown };
      }
    }
  }
  return undefined;
}

/** The absolute paths `line` names, quoted ones first. */
function absolutePaths(line: string): string[] {
  const quoted = [...line.matchAll(QUOTED_PATH)].map((match) => match[1]);
  const bare = [...line.matchAll(BARE_PATH)].map((match) => match[1]);
  return [...quoted, ...bare].filter((path) => path.length > 1);
}
