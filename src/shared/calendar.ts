// Reading an ISO 8601 UTC instant strictly (CONTRACT §2, §13): a day that is not on the calendar is a format
// error, never normalised to another day; years outside 0001–9999 (PostgreSQL has no year 0) are out of range.
// The one reader of dates: GraphQL's DateTime scalar uses it, and the REST facade reads dates through that scalar.

const UTC = /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]00:00)$/i;

export type UtcReading =
  | { ok: true; date: Date }
  | { ok: false; code: 'InvalidFormat' | 'OutOfRange'; message: string };

const daysIn = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

export function readUtc(text: string): UtcReading {
  const m = UTC.exec(text);
  if (!m)
    return {
      ok: false,
      code: 'InvalidFormat',
      message: 'must be an ISO 8601 date and time in UTC (ending in Z or +00:00)',
    };
  const [, y, mo, d, h, mi, s, frac] = m;
  const year = Number(y);
  // ISO 8601's expanded form (`+010000`) is read too, so a year beyond 9999 is out of range, not malformed.
  if (!(year >= 1 && year <= 9999))
    return { ok: false, code: 'OutOfRange', message: 'must be a year from 0001 to 9999' };
  const month = Number(mo);
  const day = Number(d);
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysIn(year, month) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s ?? 0) > 59
  )
    return { ok: false, code: 'InvalidFormat', message: 'is not a date and time on the calendar' };
  const ms = frac ? Number(`${frac.slice(1)}00`.slice(0, 3)) : 0;
  const date = new Date(Date.UTC(year, month - 1, day, Number(h), Number(mi), Number(s ?? 0), ms));
  // Date.UTC maps years 0–99 to 1900–1999.
  date.setUTCFullYear(year);
  return { ok: true, date };
}
