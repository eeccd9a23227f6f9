/**
 * A contained build the sandbox refused a path outside the project (read-only file system or
 * permission denied): no code change fixes that, so no repair is asked for. A refused path inside
 * the project is the model's doing, and a repair can fix it. Pure.
 *
 * @module
 */
import { posix } from "node:path";
import { stripAnsi } from "../text/ansi.ts";

/** A refusal: bubblewrap's read-only mounts give `EROFS`, hidden paths `EACCES`, sandbox-exec `EPERM`. */
const REFUSAL =
  /\bEROFS\b|read-only file system|\bEACCES\b|permission denied|\bEPERM\b|operation not permitted/i;

const QUOTED_PATH = /['"‘`](\/[^'"’`\n]*)['"’`]/g;
const BARE_PATH = /(?:^|[\s=(])(\/[^\s:'"(),]+)/g;

/** Lines of output looked at: a refusal is reported where it happens, not a million lines on. */
const MAX_LINES = 200_000;

/**
 * The first refusal in `output` of an absolute `path` outside every one of `roots` (the root as
 * given and resolved), with its `line` (escapes removed, at most 300 characters). Never throws.
 */
export function findOutsideRefusal(
  output: string,
  roots: readonly string[],
): { readonly path: string; readonly line: string } | undefined {
  const inside = (path: string) =>
    roots.some((root) => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`));
  const lines = stripAnsi(output).split("\n", MAX_LINES);
  for (const line of lines) {
    if (!REFUSAL.test(line)) continue;
    const found = [...line.matchAll(QUOTED_PATH), ...line.matchAll(BARE_PATH)];
    for (const [, path] of found.filter(([, path]) => path.length > 1)) {
      const normal = posix.normalize(path).replace(/(.)\/$/, "$1");
      if (!inside(normal)) {
        const shown = line.trim();
        return { path: normal, line: shown.length > 300 ? `${shown.slice(0, 300)}…` : shown };
      }
    }
  }
  return undefined;
}
