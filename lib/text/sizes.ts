/**
 * Sizes as people read them, in binary units. Pure.
 *
 * @module
 */
import { plural } from "./plural.ts";

const UNITS = ["KiB", "MiB", "GiB"] as const;

/** `bytes` for people: `1,023 bytes`, else KiB, MiB or GiB with one decimal at most. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return plural(bytes, "byte");
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${UNITS[unit]}`;
}
