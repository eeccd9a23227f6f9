/**
 * Absolute paths as the file system resolves them, for the few modules that
 * follow a symbolic link's text by hand: its folder, a link's target made
 * absolute and normalized, and where a path lies under a root. POSIX paths
 * (Linux, macOS), without `node:path`, whose module loads part of Deno's
 * Node layer on every run. Pure: no I/O.
 *
 * @module
 */

/** The folder that holds the absolute path `path`: `/a` for `/a/b`, `/` for `/a` and `/`. Never throws. */
export function folderOf(path: string): string {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  const slash = trimmed.lastIndexOf("/");
  return slash <= 0 ? "/" : trimmed.slice(0, slash);
}

/**
 * `path` normalized: repeated `/` made one, `.` segments dropped, each `..`
 * taking the segment before it away (none above the root `/`), no trailing
 * `/`. `path` must be absolute. Never throws.
 */
function normalizeAbsolute(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join("/")}`;
}

/**
 * Where a symbolic link in the folder `folder` (absolute) leads: its text
 * `target` as an absolute, normalized path (an absolute target as it is, a
 * relative one from `folder`), as the file system reads it before it
 * resolves the links on the way. Never throws.
 */
export function linkTarget(folder: string, target: string): string {
  return normalizeAbsolute(target.startsWith("/") ? target : `${folder}/${target}`);
}

/**
 * `path` relative to `root` (both absolute and normalized), `/`-separated,
 * when it lies under `root`; undefined for `root` itself and anything
 * outside it. Never throws.
 */
export function relativeUnder(root: string, path: string): string | undefined {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return path.length > prefix.length && path.startsWith(prefix)
    ? path.slice(prefix.length)
    : undefined;
}
