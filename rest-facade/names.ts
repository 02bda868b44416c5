// The mechanical mapping between GraphQL names (camelCase fields) and REST names (PascalCase, any-case input).

/** `createdDateUtc` → `CreatedDateUtc`. */
export const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** `CreatedDateUtc` → `createdDateUtc`. */
export const camel = (name: string): string => name.charAt(0).toLowerCase() + name.slice(1);

/** Inbound names match ignoring case, `_` and `-` (CONTRACT §2): `start_date_utc` ≡ `StartDateUtc`. */
export const nameKey = (name: string): string => name.replace(/[_-]/g, '').toLowerCase();

/** The plural of a REST name: `s`, or `y` → `ies` (`Unavailabilities`, `Feedbacks`). */
export const plural = (name: string): string =>
  /[^aeiou]y$/i.test(name) ? `${name.slice(0, -1)}ies` : `${name}s`;

/**
 * A GraphQL error's field path in REST terms: the argument wrapper goes, each segment is PascalCase.
 * `input.seats` → `Seats`, `evidence.number` → `Evidence.Number`, `id` → `Id`.
 */
export function restFieldName(path: string): string {
  const segments = path.split('.').filter((s) => s !== '' && !/^\d+$/.test(s));
  if (segments[0] === 'input' && segments.length > 1) segments.shift();
  return segments.map(pascal).join('.');
}

/** Converts every object key to PascalCase at every depth and drops null properties (JSON keeps arrays' nulls). */
export function toRest(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toRest);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === null || v === undefined) continue;
      out[pascal(k)] = toRest(v);
    }
    return out;
  }
  return value;
}
