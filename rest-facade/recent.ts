// A bounded memo of the most recently used values: documents made once per car share (the OpenAPI document, the
// TypeScript DTOs) are kept for the few car shares asking now, not for every car share the process has served.
export function recentlyUsed<V>(max: number): (key: string, make: () => V) => V {
  const held = new Map<string, V>();
  return (key, make) => {
    let value = held.get(key);
    if (value === undefined) {
      value = make();
      // The least recently used leaves first (a Map iterates in insertion order; a hit is inserted again).
      if (held.size >= max) held.delete(held.keys().next().value!);
    } else held.delete(key);
    held.set(key, value);
    return value;
  };
}
