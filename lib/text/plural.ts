/**
 * Counted nouns, one rule for every message: `1 file`, `2 files`,
 * `1,000 LLM calls`. Pure.
 *
 * @module
 */
import { formatCount } from "./numbers.ts";

/**
 * `count` and the noun in the number it needs: the singular for exactly 1,
 * else `pluralForm` (by default the singular with an `s`). The count is
 * written with thousands separators. Never throws.
 */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatCount(count)} ${count === 1 ? singular : pluralForm}`;
}
