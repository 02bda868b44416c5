// JSV, ServiceStack's text format (CONTRACT §11): compact, CSV-style quoting, True/False, raw short dates.

const ESCAPE = /[":,{}[\]\r\n]/;
const ISO = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?Z$/;

/** A date's shortest form: `2026-07-03` at midnight, no fraction when whole seconds, else milliseconds. */
export function shortDate(s: string): string | undefined {
  const m = ISO.exec(s);
  if (!m) return undefined;
  const fraction = m[3] && Number(m[3]) !== 0 ? m[3] : '';
  if (m[2] === '00:00:00' && fraction === '') return m[1];
  return `${m[1]}T${m[2]}${fraction}Z`;
}

export function jsvString(s: string): string {
  if (s === '') return '""';
  const date = shortDate(s);
  if (date) return date;
  return ESCAPE.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** Writes a value as JSV; null properties are omitted, null array items leave an empty slot. */
export function jsv(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'string') return jsvString(value);
  if (Array.isArray(value)) return `[${value.map(jsv).join(',')}]`;
  const parts: string[] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === null || v === undefined) continue;
    parts.push(`${jsvString(k)}:${jsv(v)}`);
  }
  return `{${parts.join(',')}}`;
}
