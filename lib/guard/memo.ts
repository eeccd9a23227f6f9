/**
 * A cache lookup that works on every Deno 2 (`Map.getOrInsertComputed` and `getOrInsert` are
 * new in Deno 2.9, and build.sh accepts any Deno 2 on PATH).
 *
 * @module
 */

/** The value `cache` holds for `key`, computed and stored on the first call. Throws as `compute`. */
export function memo<K, V>(
  cache: { has(key: K): boolean; get(key: K): V | undefined; set(key: K, value: V): unknown },
  key: K,
  compute: () => V,
): V {
  if (cache.has(key)) return cache.get(key) as V;
  const value = compute();
  cache.set(key, value);
  return value;
}
