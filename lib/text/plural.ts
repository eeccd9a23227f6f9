/**
 * Counted nouns, one rule for every message: `1 file`, `2 files`. Pure.
 *
 * @module
 */
import { formatCount } from "./numbers.ts";

/** `count` (thousands separated) and the noun: singular for exactly 1, else `pluralForm`. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatCount(count)} ${count === 1 ? singular : pluralForm}`;
}
