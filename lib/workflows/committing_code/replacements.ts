/**
 * The file replacements a repair prompt lists: the latest change of each file
 * the run changed, in path order.
 *
 * @module
 */
import { compareCodePoints } from "../../project_files/order.ts";
import type { FileOperation } from "../../reply/operations.ts";

/** The latest applied change of each file in a run. */
export class ReplacementLedger {
  readonly #latest = new Map<string, FileOperation>();

  /** Records an applied operation; it replaces any earlier one of the same path. Never throws. */
  record(operation: FileOperation): void {
    this.#latest.set(operation.path, operation);
  }

  /** The changed paths, sorted by code point (the same on every machine). Never throws. */
  paths(): string[] {
    return [...this.#latest.keys()].sort(compareCodePoints);
  }

  /** The `--- FILE REPLACEMENT p ---` / `--- FILE REMOVED p ---` listing. Never throws. */
  format(): string {
    if (this.#latest.size === 0) return "(none: no reply has been applied yet)\n";
    return this.paths().map((path) => {
      const operation = this.#latest.get(path)!;
      return operation.kind === "delete"
        ? `--- FILE REMOVED ${path} ---\n`
        : `--- FILE REPLACEMENT ${path} ---\n${operation.content}`;
    }).join("");
  }
}
