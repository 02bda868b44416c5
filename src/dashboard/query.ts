// Reading a page's search parameters: one trimmed string each, a choice from a list, the offset, and dates typed
// as days (UTC).
import type Koa from 'koa';
import type { Problem } from './errors.js';

/** A query-string value as one trimmed string, at most 200 characters ('' when absent). */
export function param(ctx: Koa.Context, key: string): string {
  const v = ctx.query[key];
  return (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).trim().slice(0, 200);
}

/** The value if it is one of `allowed` (a state, a kind), '' (any) for anything else. */
export const oneOf = <T extends string>(value: unknown, allowed: readonly T[]): T | '' =>
  allowed.includes(value as T) ? (value as T) : '';

/** Where a list page starts: the `offset` parameter, 0 when absent or not a number (the API bounds it). */
export const offsetOf = (query: Readonly<Record<string, unknown>>): number => Number(query.offset ?? 0) || 0;

/** The page a search shows with nothing found, when the API was not asked or refused. */
export const noResults = (limit = 25) => ({ total: 0, limit, offset: 0, nodes: [] as never[] });

/** `2026-07-01` → that day's start in UTC as the API takes it; anything else is passed on for the API to refuse. */
export function dayStart(day: string): string | null {
  if (!day) return null;
  return /^\d{4}-\d{2}-\d{2}$/.test(day) ? `${day}T00:00:00.000Z` : day;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Id fields typed by hand that are not whole ids, as a problem in the operator's words (before asking the API). */
export function malformedIds(
  ids: Readonly<Record<string, string>>,
  labels: Readonly<Record<string, string>>,
): Problem | undefined {
  const fields = Object.entries(ids)
    .filter(([, v]) => v !== '' && !UUID.test(v))
    .map(([field]) => {
      const label = labels[field] ?? field;
      return {
        field,
        label,
        message: `${label} must be a whole id: 36 characters, 8-4-4-4-12 hexadecimal digits`,
      };
    });
  return fields.length ? { summary: 'Some fields need your attention.', fields } : undefined;
}
