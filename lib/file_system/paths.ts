/**
 * Absolute POSIX paths for the modules that follow a link's text by hand;
 * not `node:path`, which loads part of Deno's Node layer. Pure.
 * @module
 */

/** The folder that holds the absolute path `path`: `/a` for `/a/b`, `/` for `/a` and `/`. Never throws. */
export function folderOf(path: string): string {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  const slash = trimmed.lastIndexOf("/");
  return slash <= 0 ? "/" : trimmed.slice(0, slash);
}

/**
 * Where a link in the absolute `folder` with the text `target` leads, normalized as the file system
 * reads it before resolving links on the way (`..` drops the segment before it). Never throws.
 */
export function linkTarget(folder: string, target: string): string {
  const segments: string[] = [];
  for (const segment of (target.startsWith("/") ? target : `${folder}/${target}`).split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join("/")}`;
}

/** `path` relative to `root` (both absolute, normalized) when it lies strictly under `root`. Never throws. */
export function relativeUnder(root: string, path: string): string | undefined {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return path.length > prefix.length && path.startsWith(prefix)
    ? path.slice(prefix.length)
    : undefined;
}
