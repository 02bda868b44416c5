// A bounded memo for per-request work keyed by a string that the same requests ask for again and again (a derived
// id, a route label): kept until the map is full, then emptied, so memory stays bounded whatever the keys.
export function boundedMemo<V>(make: (key: string) => V, max = 10_000): (key: string) => V {
  const known = new Map<string, V>();
  return (key) => {
    let value = known.get(key);
    if (value === undefined) {
      value = make(key);
      if (known.size >= max) known.clear();
      known.set(key, value);
    }
    return value;
  };
}
