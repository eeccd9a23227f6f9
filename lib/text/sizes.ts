/**
 * Sizes as people read them, in binary units: `512 bytes`, `3.2 KiB`,
 * `1 MiB`. Pure.
 *
 * @module
 */
import { plural } from "./plural.ts";

const UNITS = ["KiB", "MiB", "GiB"] as const;

/**
 * `bytes` for people: a count of bytes below 1 KiB (`1 byte`, `1,023 bytes`),
 * else KiB, MiB or GiB with at most one decimal (`1.5 KiB`, `1 MiB`).
 * Never throws.
 */
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
