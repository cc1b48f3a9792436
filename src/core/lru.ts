/**
 * A memo of at most `max` values by key, the least recently used dropped first: `make` runs on a
 * miss, and a `make` that throws keeps nothing.
 */
export function lruMemo<K, V>(max: number): (key: K, make: () => V) => V {
  const kept = new Map<K, V>();
  return (key, make) => {
    let value = kept.get(key);
    if (value === undefined) {
      value = make();
      if (kept.size >= max) kept.delete(kept.keys().next().value as K);
    } else {
      kept.delete(key);
    }
    kept.set(key, value); // the most recently used last
    return value;
  };
}
