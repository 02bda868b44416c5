// Reading a page's search parameters: one trimmed string each, and dates typed as days (UTC).
import type Koa from 'koa';

/** A query-string value as one trimmed string, at most 200 characters ('' when absent). */
export function param(ctx: Koa.Context, key: string): string {
  const v = ctx.query[key];
  return (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).trim().slice(0, 200);
}

/** `2026-07-01` → that day's start in UTC as the API takes it; anything else is passed on for the API to refuse. */
export function dayStart(day: string): string | null {
  if (!day) return null;
  return /^\d{4}-\d{2}-\d{2}$/.test(day) ? `${day}T00:00:00.000Z` : day;
}
