/**
 * Lists of changed files as the terminal and the logs show them, and long lists cut short. Pure.
 *
 * @module
 */
import { formatCount } from "./numbers.ts";

/** One file a run changed (or a reply would change); line counts undefined when not counted. */
export interface ChangedFile {
  readonly path: string;
  readonly kind: "created" | "replaced" | "deleted";
  readonly added: number | undefined;
  readonly removed: number | undefined;
}

/** `+12 -0`, or `(lines not counted)` when the counts are unknown. Never throws. */
export function formatLineCounts(change: Pick<ChangedFile, "added" | "removed">): string {
  if (change.added === undefined || change.removed === undefined) return "(lines not counted)";
  return `+${formatCount(change.added)} -${formatCount(change.removed)}`;
}

/** How many lines of a list the terminal shows; the log has them all. */
const LINES_SHOWN = 20;

/** `  created   src/a.ts  +12 -0`, one line per file, the kinds aligned. Never throws. */
export function formatChangedFiles(changes: readonly ChangedFile[]): string[] {
  return changes.map((change) =>
    `  ${change.kind.padEnd(8)}  ${change.path}  ${formatLineCounts(change)}`
  );
}

/** How many paths (or other items) one message names at most; the rest are counted. */
export const NAMED_AT_MOST = 20;

/**
 * Every message that lists paths names them with this: at most `limit` (20) `items` joined by
 * `separator` (`, `), the rest counted: `a, b, and 1,602 more; all in <where>`. Never throws.
 */
export function nameSome(
  items: readonly string[],
  options: { readonly separator?: string; readonly where?: string; readonly limit?: number } = {},
): string {
  const limit = options.limit ?? NAMED_AT_MOST;
  const separator = options.separator ?? ", ";
  if (items.length <= limit) return items.join(separator);
  const where = options.where === undefined ? "" : `; all in ${options.where}`;
  return `${items.slice(0, limit).join(separator)}${separator}and ${
    formatCount(items.length - limit)
  } more${where}`;
}

/** The first `limit` of `lines`, then a line `  … and N more (all of them in <where>)`. */
export function cutList(lines: readonly string[], where: string, limit = LINES_SHOWN): string[] {
  if (lines.length <= limit) return [...lines];
  return [
    ...lines.slice(0, limit),
    `  … and ${formatCount(lines.length - limit)} more (all of them in ${where})`,
  ];
}

/** `3 created, 1 replaced, 2 deleted`, leaving out the kinds with none. Never throws. */
export function countKinds(changes: readonly ChangedFile[]): string {
  const parts: string[] = [];
  for (const kind of ["created", "replaced", "deleted"] as const) {
    const count = changes.filter((change) => change.kind === kind).length;
    if (count > 0) parts.push(`${formatCount(count)} ${kind}`);
  }
  return parts.join(", ");
}
